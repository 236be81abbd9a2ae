#include "cli/augment_arg.h"

namespace ywb::cli {

std::string augmentHelp() {
  return "augment=true is Ultralytics' test-time augmentation: each image also runs mirrored at 0.83x and "
         "at\n"
         "0.67x its size, and the three passes' boxes (the full-size pass without its coarsest level, the\n"
         "0.67x pass without its finest) go through NMS together: two to three times the inference time.\n"
         "An end-to-end model (YOLO26) on its NMS-free path runs one pass, as in Ultralytics; with\n"
         "end2end=false its one-to-many head is augmented.";
}

std::string augmentIgnoredNote() {
  return "note: augment=true has no effect on an end-to-end model's NMS-free path (as in Ultralytics); "
         "end2end=false runs test-time augmentation through its one-to-many head with NMS";
}

}  // namespace ywb::cli
