// PreviewRenderer: augmented training samples in a grid, with boxes and class names drawn.
#include "ywb/preview.h"

#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/threads.h"
#include "data/box_drawing.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/image_source.h"
#include "data/sample_builder.h"
#include "data/sampler.h"

namespace ywb {
namespace {

std::vector<DrawnBox> drawnBoxes(const std::vector<PixelBox>& boxes) {
  std::vector<DrawnBox> out;
  for (const auto& b : boxes) out.push_back({b.x1, b.y1, b.x2, b.y2, b.cls, -1.f});
  return out;
}

}  // namespace

struct PreviewRenderer::Impl {
  std::shared_ptr<const ScannedSplit> split;
  std::map<int, std::shared_ptr<ImageSource>> sources;  // by imgsz

  std::shared_ptr<ImageSource> source(int imgsz) {
    auto& s = sources[imgsz];
    if (!s) {
      s = std::make_shared<ImageSource>(split, imgsz);
      // Small datasets are decoded once, so re-rendering on a slider change only augments.
      if (s->cacheBytes() < (size_t(256) << 20)) s->enableRamCache(availableCpus());
    }
    return s;
  }
};

PreviewRenderer::PreviewRenderer(const std::string& data_yaml, const std::string& split)
    : impl_(std::make_unique<Impl>()) {
  const DataConfig cfg = loadDataConfig(data_yaml);
  auto scanned = std::make_shared<ScannedSplit>(scanSplit(cfg, split));
  if (scanned->images.empty()) fail(data_yaml, ": the ", split, " split has no usable images to preview");
  impl_->split = std::move(scanned);
}

PreviewRenderer::~PreviewRenderer() = default;

size_t PreviewRenderer::images() const {
  return impl_->split->images.size();
}

RgbImage PreviewRenderer::render(const PreviewOptions& o) {
  if (o.count < 1 || o.count > 64) fail("preview count=", o.count, " must be in [1, 64]");
  if (o.imgsz < 32 || o.imgsz > 4096) fail("preview imgsz=", o.imgsz, " must be in [32, 4096]");
  const auto src = impl_->source(o.imgsz);
  const SampleBuilder builder(src, true, o.hyp);
  const int cols = int(std::ceil(std::sqrt(double(o.count))));
  const int rows = (o.count + cols - 1) / cols;
  // A rect grid's surround is the GUI's dark background, so that each sample's shape shows against it.
  cv::Mat grid(rows * o.imgsz, cols * o.imgsz, CV_8UC3,
               o.rect ? cv::Scalar(26, 29, 35) : cv::Scalar::all(114));
  const size_t n = src->size();
  for (int i = 0; i < o.count; ++i) {
    const size_t index = size_t(mixSeed(o.seed, uint64_t(i), 0x50524556ull) % n);
    cv::Size target(o.imgsz, o.imgsz);
    if (o.rect)
      target = rectBatchShape({impl_->split->images[index].aspect()}, o.imgsz, o.stride, rectBatchPad(true));
    // The trainer asks rect batches for single-image samples; a square shape would otherwise take Mosaic.
    Sample s = builder.build(index, mixSeed(o.seed, uint64_t(i)), !o.rect, target);
    if (!s.rgb) cv::cvtColor(s.image, s.image, cv::COLOR_BGR2RGB);
    if (o.boxes) drawBoxes(s.image, drawnBoxes(s.boxes), impl_->split->names, /*bgr=*/false);
    const int x = (i % cols) * o.imgsz + (o.imgsz - s.image.cols) / 2;
    const int y = (i / cols) * o.imgsz + (o.imgsz - s.image.rows) / 2;
    s.image.copyTo(grid(cv::Rect(x, y, s.image.cols, s.image.rows)));
  }
  RgbImage out;
  out.width = grid.cols;
  out.height = grid.rows;
  out.rgb.assign(grid.data, grid.data + grid.total() * 3);
  return out;
}

RgbImage renderPreview(const PreviewOptions& options) {
  PreviewRenderer r(options.data, options.split);
  return r.render(options);
}

void saveRgbImage(const RgbImage& image, const std::string& path) {
  if (image.width <= 0 || image.height <= 0 || image.rgb.size() != size_t(image.width) * image.height * 3) {
    fail("saveRgbImage: empty or inconsistent image");
  }
  const cv::Mat rgb(image.height, image.width, CV_8UC3, const_cast<uint8_t*>(image.rgb.data()));
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  const bool png = path.size() > 4 && path.compare(path.size() - 4, 4, ".png") == 0;
  writeFileAtomic(path, png ? encodePng(bgr) : encodeJpeg(bgr, 92));
}

}  // namespace ywb
