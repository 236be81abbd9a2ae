// PreviewRenderer: augmented training samples in a grid, with boxes and class names drawn.
#include "ywb/preview.h"

#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/threads.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/image_source.h"
#include "data/sample_builder.h"

namespace ywb {
namespace {

// Ultralytics-like palette (distinct, saturated colours), RGB.
const cv::Scalar kPalette[] = {{255, 56, 56},  {255, 157, 151}, {255, 112, 31},  {255, 178, 29},
                               {207, 210, 49}, {72, 249, 10},   {146, 204, 23},  {61, 219, 134},
                               {26, 147, 52},  {0, 212, 187},   {44, 153, 168},  {0, 194, 255},
                               {52, 69, 147},  {100, 115, 255}, {0, 24, 236},    {132, 56, 255},
                               {82, 0, 133},   {203, 56, 255},  {255, 149, 200}, {255, 55, 199}};

void drawBoxes(cv::Mat& rgb, const std::vector<PixelBox>& boxes, const std::vector<std::string>& names) {
  const int thick = std::max(1, int(std::lround(rgb.cols / 320.0)));
  for (const auto& b : boxes) {
    const cv::Scalar col = kPalette[size_t(b.cls) % (sizeof kPalette / sizeof kPalette[0])];
    const cv::Point p1(int(b.x1), int(b.y1)), p2(int(b.x2), int(b.y2));
    cv::rectangle(rgb, p1, p2, col, thick, cv::LINE_AA);
    const std::string label = size_t(b.cls) < names.size() ? names[size_t(b.cls)] : std::to_string(b.cls);
    const double fs = 0.4 * thick;
    int base = 0;
    const cv::Size ts = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, fs, 1, &base);
    const int y = p1.y - ts.height - 3 >= 0 ? p1.y : p1.y + ts.height + 3;
    cv::rectangle(rgb, cv::Point(p1.x, y - ts.height - 3), cv::Point(p1.x + ts.width + 2, y), col,
                  cv::FILLED);
    cv::putText(rgb, label, cv::Point(p1.x + 1, y - 2), cv::FONT_HERSHEY_SIMPLEX, fs,
                cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
  }
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
  cv::Mat grid(rows * o.imgsz, cols * o.imgsz, CV_8UC3, cv::Scalar::all(114));
  const size_t n = src->size();
  for (int i = 0; i < o.count; ++i) {
    const size_t index = size_t(mixSeed(o.seed, uint64_t(i), 0x50524556ull) % n);
    Sample s = builder.build(index, mixSeed(o.seed, uint64_t(i)), true);
    if (!s.rgb) cv::cvtColor(s.image, s.image, cv::COLOR_BGR2RGB);
    if (o.boxes) drawBoxes(s.image, s.boxes, impl_->split->names);
    s.image.copyTo(grid(cv::Rect((i % cols) * o.imgsz, (i / cols) * o.imgsz, o.imgsz, o.imgsz)));
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
