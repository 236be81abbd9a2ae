// Creating a data.yaml for a folder of images and YOLO labels (what `ywb dataset init` and the GUI's
// "Create from folder..." do). Thread rules: a free function over the file system; reentrant for
// different folders.
#pragma once
#include <string>
#include <vector>

namespace ywb {

struct DatasetInitOptions {
  std::string folder;              ///< the dataset root
  std::vector<std::string> names;  ///< class names; empty = classes.txt / *.names / inferred from labels
  bool overwrite = false;          ///< replace an existing data.yaml (and train.txt/val.txt lists)
  int val_every = 10;              ///< flat layout: every Nth image (sorted by path) goes to val
};

/// What initDatasetYaml() found and wrote.
struct DatasetInitReport {
  std::string data_yaml;         ///< absolute path of the written data.yaml
  std::string layout;            ///< "images/<split>", "<split>/images" or "flat images/ + labels/"
  std::string train, val, test;  ///< the split entries as written (relative to the folder; test may be "")
  int train_images = 0, val_images = 0, test_images = 0;
  int label_files = 0;             ///< label .txt files read
  int label_rows = 0;              ///< box rows read
  int bad_rows = 0;                ///< rows whose first field is not a class id (the scan will report them)
  int max_class_id = -1;           ///< largest class id seen in the labels (-1: none)
  std::vector<std::string> names;  ///< the names written (nc = names.size())
  std::string names_source;  ///< "names=", "classes.txt", "<file>.names", "existing data.yaml", "labels"
  std::vector<std::string> written;  ///< files written, data.yaml last
  std::vector<std::string> notes;    ///< things worth a look (ids beyond names, orphan labels, ...)
};

/// Finds the Ultralytics layout under `options.folder` (root/images/{train,val} -- also train2017-style
/// names starting with the split --, root/{train,val}/images,
/// or flat root/images + root/labels, split deterministically into train.txt/val.txt), infers the classes
/// and writes root/data.yaml. Throws ywb::Error for a missing folder, no images, labels without images,
/// an existing data.yaml without overwrite, or no way to know the classes.
DatasetInitReport initDatasetYaml(const DatasetInitOptions& options);

/// The report as a few human-readable lines.
std::string datasetInitText(const DatasetInitReport& report);

}  // namespace ywb
