#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/verb_registry.h"
#include "ywb/dataset_yaml.h"

namespace ywb::cli {
namespace {

int runInit(const Args& a) {
  a.requireKnown({"path", "names", "overwrite", "val_every"});
  if (!a.has("path")) return reportError(a, "dataset init: missing path=FOLDER (the dataset root)");
  DatasetInitOptions o;
  o.folder = a.str("path");
  o.overwrite = a.boolean("overwrite", false);
  o.val_every = int(a.integer("val_every", 10));
  std::istringstream names(a.str("names"));
  for (std::string n; std::getline(names, n, ',');)
    if (!n.empty()) o.names.push_back(n);
  const DatasetInitReport r = initDatasetYaml(o);
  if (!a.json) {
    std::cout << datasetInitText(r);
    return 0;
  }
  const nlohmann::json j = {{"data_yaml", r.data_yaml},
                            {"layout", r.layout},
                            {"train", r.train},
                            {"val", r.val},
                            {"test", r.test},
                            {"train_images", r.train_images},
                            {"val_images", r.val_images},
                            {"test_images", r.test_images},
                            {"label_files", r.label_files},
                            {"label_rows", r.label_rows},
                            {"bad_rows", r.bad_rows},
                            {"max_class_id", r.max_class_id},
                            {"names", r.names},
                            {"names_source", r.names_source},
                            {"written", r.written},
                            {"notes", r.notes}};
  std::cout << j.dump(2) << "\n";
  return 0;
}

const RegisterVerb reg{
    {"dataset init", "write a data.yaml for a folder of images and YOLO labels",
     "path=FOLDER [names=a,b,c] [overwrite=false] [val_every=10] [--json]\n\n"
     "Recognises the Ultralytics layouts under FOLDER: images/{train,val[,test]} with labels/...,\n"
     "{train,val|valid[,test]}/images with .../labels, or one flat images/ folder with labels/ (split\n"
     "deterministically: every val_every-th image, sorted by path, goes to val; written as train.txt\n"
     "and val.txt). The classes come from names=, a classes.txt (one name per line), a single *.names\n"
     "file, the data.yaml being replaced, or else class0..N from the largest class id in the labels.\n"
     "Writes FOLDER/data.yaml; an existing one is replaced only with overwrite=true.",
     runInit}};

}  // namespace
}  // namespace ywb::cli
