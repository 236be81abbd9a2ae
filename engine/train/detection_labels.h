// Detections written as YOLO label files (predict's and val's save_txt): one owner for the line format and
// for the file names of a run's outputs. Thread rules: free functions are reentrant; a UniqueStems belongs
// to one run.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ywb/metrics.h"

namespace ywb {

/// The label file of one image's detections (original-image pixels of a width x height image): a line
/// "class cx cy w h" per box, normalised to the image, six decimals; `with_conf` adds the confidence (five
/// decimals) as Ultralytics' save_conf; a tracked box's id (DetBox::track_id) comes last, as in Ultralytics'
/// track mode. Loadable as training labels (without the extra columns).
std::string yoloLabelText(const std::vector<DetBox>& boxes, int width, int height, bool with_conf);

/// Output names unique within a run: an image's stem, and for a second image of the same stem (another
/// folder of a recursive source, a list, a pattern) stem_2, stem_3, ..., so no output overwrites another.
class UniqueStems {
 public:
  std::string operator()(const std::string& path);

 private:
  std::set<std::string> used_;
};

}  // namespace ywb
