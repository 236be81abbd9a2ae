#include "data/box_drawing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>

#include "core/class_name.h"

namespace ywb {

cv::Scalar classColour(int cls, bool bgr) {
  // Ultralytics' palette (distinct, saturated colours), RGB.
  static const cv::Scalar kRgb[] = {{255, 56, 56},  {255, 157, 151}, {255, 112, 31},  {255, 178, 29},
                                    {207, 210, 49}, {72, 249, 10},   {146, 204, 23},  {61, 219, 134},
                                    {26, 147, 52},  {0, 212, 187},   {44, 153, 168},  {0, 194, 255},
                                    {52, 69, 147},  {100, 115, 255}, {0, 24, 236},    {132, 56, 255},
                                    {82, 0, 133},   {203, 56, 255},  {255, 149, 200}, {255, 55, 199}};
  constexpr int n = int(sizeof kRgb / sizeof kRgb[0]);
  const cv::Scalar& c = kRgb[((cls % n) + n) % n];
  return bgr ? cv::Scalar(c[2], c[1], c[0]) : c;
}

void drawBoxes(cv::Mat& image, const std::vector<DrawnBox>& boxes, const std::vector<std::string>& names,
               bool bgr, const BoxStyle& style) {
  const int side = std::max(image.cols, image.rows);
  const int thick = style.line_width > 0 ? style.line_width : std::max(1, int(std::lround(side / 320.0)));
  const double font = std::max(0.35, 0.4 * thick);
  for (const auto& b : boxes) {
    const cv::Scalar col = classColour(b.cls, bgr);
    const cv::Point p1(int(std::lround(b.x1)), int(std::lround(b.y1)));
    const cv::Point p2(int(std::lround(b.x2)), int(std::lround(b.y2)));
    cv::rectangle(image, p1, p2, col, thick, cv::LINE_AA);
    if (!style.labels) continue;
    std::string label =
        (b.track_id > 0 ? "id:" + std::to_string(b.track_id) + " " : std::string()) + className(names, b.cls);
    if (b.score >= 0 && style.scores) {
      char s[16];
      std::snprintf(s, sizeof s, " %.2f", double(b.score));
      label += s;
    }
    int base = 0;
    const cv::Size ts = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, font, 1, &base);
    const int y = p1.y - ts.height - 3 >= 0 ? p1.y : p1.y + ts.height + 3;
    cv::rectangle(image, cv::Point(p1.x, y - ts.height - 3), cv::Point(p1.x + ts.width + 2, y), col,
                  cv::FILLED);
    cv::putText(image, label, cv::Point(p1.x + 1, y - 2), cv::FONT_HERSHEY_SIMPLEX, font,
                cv::Scalar::all(255), 1, cv::LINE_AA);
  }
}

}  // namespace ywb
