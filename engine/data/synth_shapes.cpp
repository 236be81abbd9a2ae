#include "data/synth_shapes.h"

#include <cmath>
#include <opencv2/imgproc.hpp>

#include "core/rng.h"

namespace ywb {
namespace {

constexpr double kPi = 3.14159265358979323846;

cv::Scalar hsvColor(Rng& rng, double s_lo, double s_hi, double v_lo, double v_hi) {
  cv::Mat hsv(1, 1, CV_8UC3,
              cv::Scalar(rng.uniform(0, 180), rng.uniform(s_lo, s_hi), rng.uniform(v_lo, v_hi)));
  cv::Mat bgr;
  cv::cvtColor(hsv, bgr, cv::COLOR_HSV2BGR);
  const auto p = bgr.at<cv::Vec3b>(0, 0);
  return cv::Scalar(p[0], p[1], p[2]);
}

void drawBackground(cv::Mat& img, Rng& rng) {
  // Gradient between two muted colours, plus low-contrast clutter and sensor-like noise.
  const cv::Scalar a = hsvColor(rng, 10, 90, 60, 200), b = hsvColor(rng, 10, 90, 60, 200);
  const bool vertical = rng.chance(0.5);
  for (int y = 0; y < img.rows; ++y) {
    auto* row = img.ptr<cv::Vec3b>(y);
    for (int x = 0; x < img.cols; ++x) {
      const double t = vertical ? double(y) / img.rows : double(x) / img.cols;
      for (int c = 0; c < 3; ++c) row[x][c] = cv::saturate_cast<uint8_t>(a[c] * (1 - t) + b[c] * t);
    }
  }
  const int clutter = int(rng.uniformInt(3, 12));
  for (int i = 0; i < clutter; ++i) {
    const cv::Scalar c = hsvColor(rng, 0, 60, 50, 210);
    const cv::Point p1(int(rng.uniform(0, img.cols)), int(rng.uniform(0, img.rows)));
    const cv::Point p2(int(rng.uniform(0, img.cols)), int(rng.uniform(0, img.rows)));
    cv::line(img, p1, p2, c, int(rng.uniformInt(1, 3)), cv::LINE_AA);
  }
  cv::Mat noise(img.size(), CV_16SC3);
  const uint64_t noise_seed = rng.next();
  cv::RNG cvrng(noise_seed);
  cvrng.fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(rng.uniform(2, 10)));
  cv::Mat img16;
  img.convertTo(img16, CV_16SC3);
  img16 += noise;
  img16.convertTo(img, CV_8UC3);
}

std::vector<cv::Point> regularPolygon(cv::Point2d c, double rx, double ry, double rot, int n, double inner) {
  // inner > 0 makes a star: alternate vertices at radius `inner` x outer.
  std::vector<cv::Point> pts;
  const int m = inner > 0 ? 2 * n : n;
  for (int i = 0; i < m; ++i) {
    const double ang = -kPi / 2 + 2 * kPi * i / m;
    const double r = (inner > 0 && i % 2 == 1) ? inner : 1.0;
    const double x = std::cos(ang) * rx * r, y = std::sin(ang) * ry * r;
    pts.emplace_back(cvRound(c.x + x * std::cos(rot) - y * std::sin(rot)),
                     cvRound(c.y + x * std::sin(rot) + y * std::cos(rot)));
  }
  return pts;
}

std::vector<cv::Point> crossPolygon(cv::Point2d c, double rx, double ry, double rot) {
  const double t = 0.33;  // arm half-thickness relative to the half-size
  const double xs[12] = {-t, t, t, 1, 1, t, t, -t, -t, -1, -1, -t};
  const double ys[12] = {-1, -1, -t, -t, t, t, 1, 1, t, t, -t, -t};
  std::vector<cv::Point> pts;
  for (int i = 0; i < 12; ++i) {
    const double x = xs[i] * rx, y = ys[i] * ry;
    pts.emplace_back(cvRound(c.x + x * std::cos(rot) - y * std::sin(rot)),
                     cvRound(c.y + x * std::sin(rot) + y * std::cos(rot)));
  }
  return pts;
}

// Draws shape `cls` and returns its outline (for the bounding box).
std::vector<cv::Point> drawShape(cv::Mat& img, int cls, cv::Point2d c, double rx, double ry, double rot,
                                 const cv::Scalar& color, Rng& rng) {
  std::vector<cv::Point> outline;
  switch (cls) {
    case 0:  // ellipse
    case 5:  // ring
      cv::ellipse2Poly(cv::Point(cvRound(c.x), cvRound(c.y)), cv::Size(cvRound(rx), cvRound(ry)),
                       int(rot * 180 / kPi), 0, 360, 5, outline);
      cv::fillPoly(img, std::vector<std::vector<cv::Point>>{outline}, color, cv::LINE_AA);
      if (cls == 5) {
        std::vector<cv::Point> hole;
        cv::ellipse2Poly(cv::Point(cvRound(c.x), cvRound(c.y)),
                         cv::Size(cvRound(rx * 0.55), cvRound(ry * 0.55)), int(rot * 180 / kPi), 0, 360, 5,
                         hole);
        cv::fillPoly(img, std::vector<std::vector<cv::Point>>{hole}, hsvColor(rng, 0, 60, 40, 220),
                     cv::LINE_AA);
      }
      return outline;
    case 1:
      outline = regularPolygon(c, rx * std::sqrt(2.0), ry * std::sqrt(2.0), rot + kPi / 4, 4, 0);
      break;
    case 2:
      outline = regularPolygon(c, rx, ry, rot, 3, 0);
      break;
    case 3:
      outline = regularPolygon(c, rx, ry, rot, 5, 0.45);
      break;
    default:
      outline = crossPolygon(c, rx, ry, rot);
      break;
  }
  cv::fillPoly(img, std::vector<std::vector<cv::Point>>{outline}, color, cv::LINE_AA);
  return outline;
}

double iou(const SynthBox& a, const SynthBox& b) {
  const double iw = std::max(0.f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const double ih = std::max(0.f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const double inter = iw * ih;
  const double ua = double(a.x2 - a.x1) * (a.y2 - a.y1) + double(b.x2 - b.x1) * (b.y2 - b.y1) - inter;
  return ua > 0 ? inter / ua : 0;
}

}  // namespace

SynthImage renderSynthImage(uint64_t seed, int imgsz, int max_objects) {
  Rng rng(seed);
  const int w = rng.chance(0.5) ? imgsz : int(std::lround(imgsz * rng.uniform(0.75, 1.0)));
  const int h = w == imgsz ? int(std::lround(imgsz * rng.uniform(0.75, 1.0))) : imgsz;
  SynthImage out;
  out.bgr = cv::Mat(h, w, CV_8UC3);
  drawBackground(out.bgr, rng);
  const int n = int(rng.uniformInt(1, std::max(1, max_objects)));
  for (int i = 0, attempts = 0; i < n && attempts < 50 * n; ++attempts) {
    const int cls = int(rng.uniformInt(0, kSynthClasses - 1));
    const double size = imgsz * rng.uniform(0.05, 0.3);
    const double aspect = rng.uniform(0.6, 1.6);
    const double rx = size / 2 * std::sqrt(aspect), ry = size / 2 / std::sqrt(aspect);
    // Centres may sit near the border so that some shapes are cut by it (boxes at the borders).
    const cv::Point2d c(rng.uniform(0, w), rng.uniform(0, h));
    const double rot = rng.uniform(0, 2 * kPi);
    // Measure the outline before drawing to decide whether the placement is acceptable.
    std::vector<cv::Point> probe;
    {
      Rng copy = rng;
      cv::Mat tiny(1, 1, CV_8UC3);
      probe = drawShape(tiny, cls, c, rx, ry, rot, cv::Scalar(), copy);
    }
    const cv::Rect r = cv::boundingRect(probe);
    SynthBox box{cls, float(std::max(0, r.x)), float(std::max(0, r.y)), float(std::min(w, r.x + r.width)),
                 float(std::min(h, r.y + r.height))};
    const double full = double(r.width) * r.height;
    const double kept = double(box.x2 - box.x1) * (box.y2 - box.y1);
    if (box.x2 - box.x1 < 6 || box.y2 - box.y1 < 6 || kept < 0.6 * full) continue;
    bool overlaps = false;
    for (const auto& o : out.boxes) overlaps = overlaps || iou(o, box) > 0.25;
    if (overlaps) continue;
    drawShape(out.bgr, cls, c, rx, ry, rot, hsvColor(rng, 150, 255, 120, 255), rng);
    out.boxes.push_back(box);
    ++i;
  }
  return out;
}

}  // namespace ywb
