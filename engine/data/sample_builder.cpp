#include "data/sample_builder.h"

#include <cmath>
#include <opencv2/imgproc.hpp>

#include "core/error.h"
#include "core/rng.h"
#include "data/color_flip.h"
#include "data/cut_mix.h"
#include "data/letterbox.h"
#include "data/random_perspective.h"
#include "data/ultralytics_boxes.h"

namespace ywb {
namespace {

double now() {
  return threadCpuSeconds();
}

double gammaDraw(Rng& rng, double a) {
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = rng.uniform();
    if (u > 0 && std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

// Label boxes (normalised) of record `r` as pixels of an image of size `sz`, scaled by `ratio` and shifted.
void appendBoxes(const ImageRecord& r, cv::Size sz, double ratio, double dx, double dy,
                 std::vector<PixelBox>& out) {
  for (const auto& b : r.boxes) {
    PixelBox p;
    p.cls = b.cls;
    p.x1 = float((b.cx - b.w / 2) * sz.width * ratio + dx);
    p.x2 = float((b.cx + b.w / 2) * sz.width * ratio + dx);
    p.y1 = float((b.cy - b.h / 2) * sz.height * ratio + dy);
    p.y2 = float((b.cy + b.h / 2) * sz.height * ratio + dy);
    out.push_back(p);
  }
}

// Largest crop side, in multiples of imgsz, that a scale-and-shift warp is resized from (a larger one, a
// scale below 1/4 of the mosaic canvas's, goes through warpAffine, which reads only the pixels it samples).
constexpr int kMaxCropSide = 4;

cv::Matx33d translation(double x, double y) {
  return {1, 0, x, 0, 1, y, 0, 0, 1};
}

// Bounding rectangle (in source coordinates of m) of what an out-sized output can sample, plus a margin for
// bilinear neighbours; empty optional-like result (false) when the projective map folds over.
bool visibleRect(const cv::Matx33d& m, cv::Size out, cv::Rect* rect) {
  const cv::Matx33d inv = m.inv();
  double x1 = 1e30, y1 = 1e30, x2 = -1e30, y2 = -1e30;
  for (const cv::Point2d& p : {cv::Point2d(0, 0), cv::Point2d(out.width, 0), cv::Point2d(0, out.height),
                               cv::Point2d(out.width, out.height)}) {
    const double z = inv(2, 0) * p.x + inv(2, 1) * p.y + inv(2, 2);
    if (z <= 1e-9) return false;
    const double x = (inv(0, 0) * p.x + inv(0, 1) * p.y + inv(0, 2)) / z;
    const double y = (inv(1, 0) * p.x + inv(1, 1) * p.y + inv(1, 2)) / z;
    x1 = std::min(x1, x), x2 = std::max(x2, x), y1 = std::min(y1, y), y2 = std::max(y2, y);
  }
  const double lim = 1e7;
  x1 = std::max(x1, -lim), y1 = std::max(y1, -lim), x2 = std::min(x2, lim), y2 = std::min(y2, lim);
  *rect = cv::Rect(cv::Point(int(std::floor(x1)) - 2, int(std::floor(y1)) - 2),
                   cv::Point(int(std::ceil(x2)) + 3, int(std::ceil(y2)) + 3));
  return true;
}

}  // namespace

void mosaicPlacement(int i, int xc, int yc, cv::Size shp, int s2, cv::Rect* placed, cv::Rect* from) {
  const int w = shp.width, h = shp.height;
  int x1a, y1a, x2a, y2a, x1b, y1b, x2b, y2b;
  if (i == 0) {  // top left
    x1a = std::max(xc - w, 0), y1a = std::max(yc - h, 0), x2a = xc, y2a = yc;
    x1b = w - (x2a - x1a), y1b = h - (y2a - y1a), x2b = w, y2b = h;
  } else if (i == 1) {  // top right
    x1a = xc, y1a = std::max(yc - h, 0), x2a = std::min(xc + w, s2), y2a = yc;
    x1b = 0, y1b = h - (y2a - y1a), x2b = std::min(w, x2a - x1a), y2b = h;
  } else if (i == 2) {  // bottom left
    x1a = std::max(xc - w, 0), y1a = yc, x2a = xc, y2a = std::min(s2, yc + h);
    x1b = w - (x2a - x1a), y1b = 0, x2b = w, y2b = std::min(y2a - y1a, h);
  } else {  // bottom right
    x1a = xc, y1a = yc, x2a = std::min(xc + w, s2), y2a = std::min(s2, yc + h);
    x1b = 0, y1b = 0, x2b = std::min(w, x2a - x1a), y2b = std::min(y2a - y1a, h);
  }
  *placed = cv::Rect(cv::Point(x1a, y1a), cv::Point(x2a, y2a));
  *from = cv::Rect(cv::Point(x1b, y1b), cv::Point(x2b, y2b));
}

cv::Matx33d Flips::pixels(cv::Size out) const {
  // cv::flip convention on pixel indices: column i goes to W - 1 - i.
  return {
      lr ? -1.0 : 1.0, 0, lr ? out.width - 1.0 : 0, 0, ud ? -1.0 : 1.0, ud ? out.height - 1.0 : 0, 0, 0, 1};
}

void Flips::apply(cv::Mat& img) const {
  if (lr || ud) cv::flip(img, img, lr && ud ? -1 : lr ? 1 : 0);
}

cv::Matx33d Flips::boxes(cv::Size out) const {
  // Continuous box coordinates: x goes to W - x.
  return {lr ? -1.0 : 1.0,
          0,
          lr ? double(out.width) : 0,
          0,
          ud ? -1.0 : 1.0,
          ud ? double(out.height) : 0,
          0,
          0,
          1};
}

double betaSymmetric(Rng& rng, double a) {
  const double x = gammaDraw(rng, a), y = gammaDraw(rng, a);
  return x / (x + y);
}

SampleBuilder::SampleBuilder(std::shared_ptr<const ImageSource> source, bool augment,
                             const AugmentParams& hyp)
    : source_(std::move(source)), augment_(augment), hyp_(hyp) {
  if (!source_) fail("SampleBuilder: no image source");
  hyp_.validate();
}

cv::Mat SampleBuilder::fetch(size_t index, Sample& s, bool fresh) const {
  const double t0 = now();
  cv::Mat img;
  try {
    img = source_->get(index, fresh);
  } catch (const std::exception& e) {
    // Bad data is reported and skipped, never a crash: a grey stand-in keeps the batch shape.
    s.errors.push_back(e.what());
    img = cv::Mat(source_->shape(index), CV_8UC3, cv::Scalar::all(114));
  }
  s.decode_s += now() - t0;
  return img;
}

int64_t SampleBuilder::maxImagesPerSample(const AugmentParams& hyp) {
  // mosaic4() below; MixUp and CutMix in build() each add a second sample's boxes
  return (hyp.mosaic > 0 ? 4 : 1) * (1 + (hyp.mixup > 0 ? 1 : 0) + (hyp.cutmix > 0 ? 1 : 0));
}

Sample SampleBuilder::mosaic4(size_t index, Rng& rng, const Flips& f, PartnerPool partners,
                              const SampleDraws* draws) const {
  Sample s;
  const int sz = source_->imgsz();
  const int n = int(source_->size());
  size_t idx[4] = {index, 0, 0, 0};
  for (int i = 1; i < 4; ++i) {
    idx[i] = draws              ? draws->partners[i - 1]
             : partners.empty() ? size_t(rng.uniformInt(0, n - 1))
                                : partners.data[rng.uniformInt(0, int64_t(partners.size) - 1)];
    if (idx[i] >= size_t(n)) fail("mosaic partner ", idx[i], " outside the split's ", n, " images");
  }
  int xc = 0, yc = 0;
  if (draws) {
    xc = draws->xc, yc = draws->yc;
  } else {
    xc = int(rng.uniform(sz * 0.5, sz * 1.5)), yc = int(rng.uniform(sz * 0.5, sz * 1.5));
  }
  const int s2 = 2 * sz;
  cv::Rect placed[4], from[4];
  std::vector<PixelBox> boxes;
  for (int i = 0; i < 4; ++i) {
    const cv::Size shp = source_->shape(idx[i]);
    mosaicPlacement(i, xc, yc, shp, s2, &placed[i], &from[i]);
    const int dx = placed[i].x - from[i].x, dy = placed[i].y - from[i].y;
    if (draws) {
      const auto tile = ultralyticsTileBoxes(source_->split().images[idx[i]], shp, 1.f, dx, dy);
      boxes.insert(boxes.end(), tile.begin(), tile.end());
    } else {
      appendBoxes(source_->split().images[idx[i]], shp, 1.0, dx, dy, boxes);
    }
  }
  // Ultralytics clips the mosaic labels to the canvas and drops the boxes that became empty.
  std::vector<PixelBox> kept;
  for (auto b : boxes) {
    b.x1 = std::clamp(b.x1, 0.f, float(s2)), b.x2 = std::clamp(b.x2, 0.f, float(s2));
    b.y1 = std::clamp(b.y1, 0.f, float(s2)), b.y2 = std::clamp(b.y2, 0.f, float(s2));
    if (b.width() > 0 && b.height() > 0) kept.push_back(b);
  }
  const cv::Size out(sz, sz);
  const PerspectiveDraws pd = draws ? draws->perspective : drawPerspectiveParams(hyp_, rng);
  const double scale = pd.scale;
  // A replay of Ultralytics' draws warps the whole canvas with Ultralytics' float32 M, so that every output
  // pixel samples the point Ultralytics' warp samples (docs/PARITY.md, session 13).
  const cv::Matx33d m = draws ? perspectiveMatrixFloat32(pd, cv::Size(s2, s2), out)
                              : perspectiveMatrix(pd, cv::Size(s2, s2), out);

  // Otherwise only the part of the 2s x 2s canvas that the output shows is assembled (with 114 where that
  // part reaches past the canvas); sources outside it are not decoded. A warp that only scales and shifts is
  // that part resized (cropResizeFor).
  CropResize cr;
  const bool resized = !draws && cropResizeFor(m, out, kMaxCropSide * sz, &cr);
  cv::Rect vis;
  if (resized) {
    vis = cr.crop;
  } else {
    if (draws || !visibleRect(m, out, &vis)) vis = cv::Rect(0, 0, s2, s2);
    vis &= cv::Rect(0, 0, s2, s2);
    if (vis.empty()) vis = cv::Rect(0, 0, 1, 1);
  }
  cv::Mat canvas(vis.size(), CV_8UC3, cv::Scalar::all(114));
  for (int i = 0; i < 4; ++i) {
    const cv::Rect part = placed[i] & vis;
    if (part.empty()) continue;
    const cv::Mat img = fetch(idx[i], s, /*fresh=*/i == 0);
    const cv::Rect src(part.x - placed[i].x + from[i].x, part.y - placed[i].y + from[i].y, part.width,
                       part.height);
    img(src).copyTo(canvas(part - vis.tl()));
  }
  if (resized) {
    s.image = resizeCrop(canvas, out);
    f.apply(s.image);
    s.boxes = warpBoxes(f.boxes(out) * cr.m, kept, out, cr.scale);
  } else {
    s.image = warpImage(canvas, f.pixels(out) * m * translation(vis.x, vis.y), out);
    s.boxes =
        draws ? ultralyticsWarpBoxes(m, kept, out, scale) : warpBoxes(f.boxes(out) * m, kept, out, scale);
  }
  s.meta.mosaic = true;
  return s;
}

Sample SampleBuilder::single(size_t index, Rng& rng, const Flips& f, const SampleDraws* draws,
                             cv::Size out) const {
  Sample s;
  const int sz = source_->imgsz();
  if (out.empty()) out = cv::Size(sz, sz);
  const cv::Mat img = fetch(index, s, /*fresh=*/true);
  const LetterboxInfo lb = letterboxGeometry(img.size(), out, false, false);
  const PerspectiveDraws pd = draws ? draws->perspective : drawPerspectiveParams(hyp_, rng);
  const double scale = pd.scale;
  if (draws) {  // a replay: letterboxed, then warped with Ultralytics' float32 M, as Ultralytics does
    const cv::Matx33d m = perspectiveMatrixFloat32(pd, out, out);
    s.image = warpImage(letterbox(img, out, false, false, 32, nullptr), f.pixels(out) * m, out);
    const auto placed = ultralyticsTileBoxes(source_->split().images[index], img.size(), float(lb.ratio),
                                             int(lb.left), int(lb.top));
    s.boxes = ultralyticsWarpBoxes(m, placed, out, scale);
    return s;
  }
  // Letterbox (no upscaling) into `out`, folded into the warp as a scale + shift.
  const cv::Matx33d m = perspectiveMatrix(pd, out, out);
  const cv::Matx33d pre(lb.ratio, 0, lb.left, 0, lb.ratio, lb.top, 0, 0, 1);
  std::vector<PixelBox> boxes;
  CropResize cr;
  if (cropResizeFor(m * pre, out, kMaxCropSide * sz, &cr)) {  // boxes go from the image's own pixels
    appendBoxes(source_->split().images[index], img.size(), 1.0, 0, 0, boxes);
    s.image = resizeCrop(cropPadded(img, cr.crop), out);
    f.apply(s.image);
    s.boxes = warpBoxes(f.boxes(out) * cr.m, boxes, out, cr.scale);
    return s;
  }
  appendBoxes(source_->split().images[index], img.size(), lb.ratio, lb.left, lb.top, boxes);
  s.image = warpImage(img, f.pixels(out) * m * pre, out);
  s.boxes = warpBoxes(f.boxes(out) * m, boxes, out, scale);
  return s;
}

Sample SampleBuilder::letterboxed(size_t index, cv::Size target) const {
  Sample s;
  const cv::Mat img = fetch(index, s);
  LetterboxInfo lb;
  s.image = letterbox(img, target, false, false, 32, &lb);
  appendBoxes(source_->split().images[index], img.size(), lb.ratio, lb.left, lb.top, s.boxes);
  const ImageRecord& r = source_->split().images[index];
  s.meta.ratio_w = double(img.cols) / r.width * lb.ratio;
  s.meta.ratio_h = double(img.rows) / r.height * lb.ratio;
  s.meta.pad_x = lb.left;
  s.meta.pad_y = lb.top;
  return s;
}

Sample SampleBuilder::geometry(size_t index, Rng& rng, bool multi_image, const Flips& f, PartnerPool partners,
                               const SampleDraws* draws) const {
  const bool mosaic = multi_image && hyp_.mosaic > 0 && (draws ? draws->mosaic : rng.chance(hyp_.mosaic));
  return mosaic ? mosaic4(index, rng, f, partners, draws) : single(index, rng, f, draws);
}

Sample SampleBuilder::build(size_t index, uint64_t seed, bool multi_image, cv::Size target,
                            PartnerPool partners, const SampleDraws* draws) const {
  if (index >= source_->size())
    fail("sample index ", index, " outside the split's ", source_->size(), " images");
  const double t0 = now();
  const int sz = source_->imgsz();
  if (target.empty()) target = cv::Size(sz, sz);
  Rng rng(seed);
  // Colour and flips draw from their own stream, so flips are known before the warp and folded into it
  // (a flip commutes with the per-pixel HSV change that Ultralytics applies before it).
  Rng rng_color(mixSeed(seed, 0x434F4C4F52ull));
  HsvGains gains;
  Flips flips;
  bool bgr = false;
  if (draws) {
    gains.h = draws->hsv[0], gains.s = draws->hsv[1], gains.v = draws->hsv[2];
    gains.active = hsvEnabled(hyp_);
    flips.ud = draws->flip_ud, flips.lr = draws->flip_lr;
    bgr = draws->bgr;
  } else {
    gains = drawHsvGains(hyp_, rng_color);
    flips.ud = hyp_.flipud > 0 && rng_color.chance(hyp_.flipud);
    flips.lr = hyp_.fliplr > 0 && rng_color.chance(hyp_.fliplr);
    // Drawn last and only when asked for, so that bgr=0 draws as before and bgr changes nothing else.
    bgr = hyp_.bgr > 0 && rng_color.chance(hyp_.bgr);
  }
  Sample s;
  if (!augment_) {
    s = letterboxed(index, target);
  } else if (target != cv::Size(sz, sz)) {
    // A rectangular training batch (rect=true): Ultralytics letterboxes to the batch's shape and warps at
    // that size (no Mosaic border); one image per sample.
    s = single(index, rng, flips, nullptr, target);
  } else {
    // A replay of Ultralytics' draws flips after the warp, as Ultralytics does (folded into the warp, a
    // flipped output column samples a point a rounding step away from Ultralytics').
    const Flips folded = draws ? Flips{} : flips;
    s = geometry(index, rng, multi_image, folded, partners, draws);
    if (multi_image && hyp_.mixup > 0 && (draws ? draws->mixup : rng.chance(hyp_.mixup))) {
      const size_t j = size_t(rng.uniformInt(0, int64_t(source_->size()) - 1));
      Rng rng2(mixSeed(seed, 0x4D4958ull));
      // Ultralytics draws the MixUp image from the whole dataset; its own Mosaic uses the same buffer.
      Sample other = geometry(j, rng2, multi_image, folded, partners, nullptr);
      const double r = betaSymmetric(rng, 32.0);
      cv::addWeighted(s.image, r, other.image, 1 - r, 0, s.image);
      s.boxes.insert(s.boxes.end(), other.boxes.begin(), other.boxes.end());
      s.decode_s += other.decode_s;
      s.errors.insert(s.errors.end(), other.errors.begin(), other.errors.end());
    }
    if (multi_image && hyp_.cutmix > 0 && (draws ? draws->cutmix : rng.chance(hyp_.cutmix))) {
      // CutMix after MixUp, as Ultralytics orders them; its own stream, so that a run without it draws as
      // before. The region is drawn first: when none is free of boxes, no second sample is built.
      Rng rng3(mixSeed(seed, 0x4355544D4958ull));
      if (const auto area = chooseCutMixArea(s.image.size(), s.boxes, rng3)) {
        const size_t j = size_t(rng3.uniformInt(0, int64_t(source_->size()) - 1));
        const Sample other = geometry(j, rng3, multi_image, folded, partners, nullptr);
        pasteCutMix(s, other, *area);
        s.decode_s += other.decode_s;
        s.errors.insert(s.errors.end(), other.errors.begin(), other.errors.end());
      }
    }
    if (draws) s.centres = ultralyticsCentreBoxes(s.boxes, flips.lr, flips.ud, s.image.size());
    if (draws && flips.ud) flipVertical(s.image, s.boxes);
    if (draws && flips.lr) flipHorizontal(s.image, s.boxes);
  }
  if (augment_) s.rgb = applyHsv(s.image, gains, true);
  // Ultralytics' bgr (Format, training only): the model takes this sample's channels in reverse order. The
  // collate reads the order from `rgb`, so the swap costs no pixel work.
  if (augment_ && bgr) s.rgb = !s.rgb;
  const ImageRecord& r = source_->split().images[index];
  s.path = r.image;
  s.meta.index = int(index);
  s.meta.orig_w = r.width;
  s.meta.orig_h = r.height;
  s.augment_s = now() - t0 - s.decode_s;
  return s;
}

}  // namespace ywb
