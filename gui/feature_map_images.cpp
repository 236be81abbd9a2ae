#include "feature_map_images.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

namespace ywb::gui {
namespace {

const QColor kBackground(0x1a, 0x1d, 0x23);

}  // namespace

ChannelStats channelStats(const ywb::FeatureMap& m, int c) {
  const size_t plane = size_t(m.width) * size_t(m.height);
  const float* p = m.data.data() + size_t(c) * plane;
  ChannelStats s;
  s.lo = s.hi = p[0];
  double sum = 0, sq = 0;
  for (size_t i = 0; i < plane; ++i) {
    s.lo = std::min(s.lo, double(p[i]));
    s.hi = std::max(s.hi, double(p[i]));
    sum += p[i];
    sq += double(p[i]) * p[i];
  }
  s.mean = sum / double(plane);
  s.sd = std::sqrt(std::max(0.0, sq / double(plane) - s.mean * s.mean));
  return s;
}

QRgb heatColour(double t) {
  // Perceptually ordered, with viridis-like endpoints.
  t = std::clamp(t, 0.0, 1.0);
  const double r = std::clamp(-0.1 + 1.2 * t * t, 0.0, 1.0);
  const double g = std::clamp(0.05 + 0.85 * t, 0.0, 1.0);
  const double b = std::clamp(0.35 + 0.6 * std::sin(3.14159 * t) - 0.3 * t, 0.0, 1.0);
  return qRgb(int(r * 255), int(g * 255), int(b * 255));
}

namespace {

// heatColour at kRampSteps evenly spaced points: the pictures look up their pixels here instead of evaluating
// the ramp (sin, clamps) per pixel (a 64-channel mosaic took ~30 ms of the GUI thread that way).
constexpr int kRampSteps = 1024;
const std::array<QRgb, kRampSteps>& heatRamp() {
  static const std::array<QRgb, kRampSteps> ramp = [] {
    std::array<QRgb, kRampSteps> r{};
    for (int i = 0; i < kRampSteps; ++i) r[size_t(i)] = heatColour(double(i) / (kRampSteps - 1));
    return r;
  }();
  return ramp;
}

// One map plane into `img` at (ox, oy), value v drawn as heatColour((v - lo) * scale).
void drawPlane(QImage& img, int ox, int oy, const float* p, int w, int h, double lo, double scale) {
  const auto& ramp = heatRamp();
  const double k = scale * (kRampSteps - 1);
  for (int y = 0; y < h; ++y) {
    auto* row = reinterpret_cast<QRgb*>(img.scanLine(oy + y)) + ox;
    const float* src = p + size_t(y) * size_t(w);
    for (int x = 0; x < w; ++x) {
      // Compared before the conversion: NaN goes to the ramp's start and infinity to its end, as heatColour's
      // clamps take them.
      const double t = (double(src[x]) - lo) * k + 0.5;
      row[x] = ramp[size_t(t > 0 ? (t < kRampSteps - 1 ? int(t) : kRampSteps - 1) : 0)];
    }
  }
}

}  // namespace

QImage channelMosaic(const ywb::FeatureMap& m, int max_channels, const std::vector<ChannelStats>& stats) {
  const int shown = std::min({m.channels, max_channels, int(stats.size())});
  const int cols = int(std::ceil(std::sqrt(double(std::max(1, shown)))));
  const int rows = (shown + cols - 1) / std::max(1, cols);
  const int gap = 2;
  QImage img(cols * (m.width + gap), std::max(1, rows) * (m.height + gap), QImage::Format_RGB32);
  img.fill(kBackground);
  const size_t plane = size_t(m.width) * size_t(m.height);
  for (int c = 0; c < shown; ++c) {
    const ChannelStats& s = stats[size_t(c)];
    const int ox = (c % cols) * (m.width + gap), oy = (c / cols) * (m.height + gap);
    const double range = s.hi > s.lo ? s.hi - s.lo : 1.0;
    drawPlane(img, ox, oy, m.data.data() + size_t(c) * plane, m.width, m.height, s.lo, 1.0 / range);
  }
  return img;
}

QString pyramidLevelName(int stride) {
  int level = 0;
  while ((1 << level) < stride) ++level;
  return QString("P%1").arg(level);
}

QImage headScoreMosaic(const std::vector<ywb::FeatureMap>& levels) {
  if (levels.empty()) return {};
  // Every tile at the finest level's size, enlarged so that the finest tile is at least 160 pixels wide
  // (captions stay legible however small the input was).
  const int base_w = levels.front().width, base_h = levels.front().height;
  const int zoom = std::max(1, int(std::ceil(160.0 / std::max(1, base_w))));
  const int tile_w = base_w * zoom, tile_h = base_h * zoom;
  const int gap = 12, caption = 22, legend = 34;
  const int n = int(levels.size());
  float top = 0;
  for (const auto& m : levels)
    for (float v : m.data) top = std::max(top, v);
  const double scale = top > 0 ? 1.0 / top : 1.0;
  QImage img(n * tile_w + (n + 1) * gap, caption + tile_h + legend + gap, QImage::Format_RGB32);
  img.fill(kBackground);
  QPainter painter(&img);
  QFont font = painter.font();
  font.setPixelSize(13);
  painter.setFont(font);
  painter.setPen(QColor(0xe0, 0xe0, 0xe0));
  for (int i = 0; i < n; ++i) {
    const ywb::FeatureMap& m = levels[size_t(i)];
    const int ox = gap + i * (tile_w + gap), oy = caption;
    // A level with stride s covers s/s0 finest-level pixels per cell.
    QImage tile(m.width, m.height, QImage::Format_RGB32);
    drawPlane(tile, 0, 0, m.data.data(), m.width, m.height, 0.0, scale);
    painter.drawImage(QRect(ox, oy, tile_w, tile_h), tile);
    painter.drawText(QRect(ox, 0, tile_w, caption), Qt::AlignLeft | Qt::AlignVCenter,
                     QCoreApplication::translate("ywb::gui::FeatureMapImages", "%1 (stride %2) %3x%4")
                         .arg(pyramidLevelName(m.stride))
                         .arg(m.stride)
                         .arg(m.width)
                         .arg(m.height));
  }
  // The colour scale under the tiles: 0 .. the highest score.
  const int lx = gap, ly = caption + tile_h + 8, lw = std::min(240, n * tile_w), lh = 10;
  for (int x = 0; x < lw; ++x) {
    painter.setPen(QColor(heatColour(double(x) / std::max(1, lw - 1))));
    painter.drawLine(lx + x, ly, lx + x, ly + lh);
  }
  painter.setPen(QColor(0xe0, 0xe0, 0xe0));
  painter.drawText(QRect(lx, ly + lh, lw, legend - lh - 8), Qt::AlignLeft | Qt::AlignVCenter, "0");
  painter.drawText(QRect(lx, ly + lh, lw, legend - lh - 8), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(double(top), 'g', 3));
  return img;
}

}  // namespace ywb::gui
