#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/dataset.h"

namespace ywb::cli {
namespace {

int runCheck(const Args& a) {
  a.requireKnown({"data", "workers", "problems"});
  if (!a.has("data")) return reportError(a, "dataset check: missing data=path/to/data.yaml");
  const DatasetReport r = checkDataset(a.str("data"), int(a.integer("workers", 0)));
  std::cout << (a.json ? datasetReportJson(r) + "\n" : datasetReportText(r, int(a.integer("problems", 20))));
  return r.ok() ? 0 : 1;
}

const RegisterVerb reg{
    {"dataset check", "scan and verify a dataset's images and labels",
     "data=data.yaml [workers=0] [problems=20] [--json]\n\n"
     "Reads an Ultralytics data.yaml, verifies every image and label file of each split in\n"
     "parallel and reports images, images with labels, backgrounds, orphan label files,\n"
     "corrupt images, boxes, duplicate rows removed, and every problem with file, line and\n"
     "reason. The scan is cached next to the labels (labels/<split>.ywb-cache) when that folder\n"
     "is writable, so the next check is near-instant.\n\n"
     "  workers=N   scanning threads (0 = all CPUs)\n"
     "  problems=N  problem lines shown per split in text mode (0 = all)\n\n"
     "Exit status: 0 when nothing is corrupt, 1 otherwise.",
     runCheck}};

}  // namespace
}  // namespace ywb::cli
