// Boxes with class names drawn on an image: the one palette and label style of every picture the engine
// writes (predict's annotated images and videos, `ywb preview`, a run's train_batch and val_batch plots).
// Thread rules: free functions, reentrant.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace ywb {

/// Ultralytics' 20-colour palette, class c taking colour c mod 20; `bgr` false gives it for an RGB image.
cv::Scalar classColour(int cls, bool bgr = true);

/// A box to draw, in the image's pixels (corners). score < 0: no score in the label.
struct DrawnBox {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  int cls = 0;
  float score = -1;
  int track_id = 0;  ///< drawn as "id:N " before the label when above 0 (a tracked object)
};

/// How boxes are drawn (predict's line_width, show_labels and show_conf).
struct BoxStyle {
  int line_width = 0;  ///< pixels; 0: from the image's size (its longer side / 320, at least 1)
  bool labels = true;  ///< the filled label with the class name
  bool scores = true;  ///< the score in the label (when the box has one)
};

/// Draws each box in its class's colour with a filled label above it (inside the box where there is no room
/// above): the class name (the index where `names` has none) and the score to two decimals when it has one.
/// The text size follows the line width. `bgr` false: the image is RGB.
void drawBoxes(cv::Mat& image, const std::vector<DrawnBox>& boxes, const std::vector<std::string>& names,
               bool bgr = true, const BoxStyle& style = {});

}  // namespace ywb
