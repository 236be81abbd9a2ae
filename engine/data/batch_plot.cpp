#include "data/batch_plot.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <opencv2/imgproc.hpp>

#include "core/error.h"

namespace ywb {

cv::Mat renderBatchBoxes(const at::Tensor& images, const std::vector<std::vector<DrawnBox>>& boxes,
                         const std::vector<std::string>& paths, const std::vector<std::string>& names) {
  if (images.dim() != 4 || images.size(1) != 3 || images.scalar_type() != at::kByte)
    fail("renderBatch: expected uint8 images [N, 3, H, W]");
  const int n = int(std::min<int64_t>(images.size(0), kBatchPlotImages));
  const int h = int(images.size(2)), w = int(images.size(3));
  const int cols = std::max(1, int(std::ceil(std::sqrt(double(n)))));
  const int rows = (n + cols - 1) / cols;
  const double scale = std::min(1.0, double(kBatchPlotMaxSide) / (cols * std::max(w, h)));
  const int tw = std::max(1, int(std::lround(w * scale))), th = std::max(1, int(std::lround(h * scale)));
  cv::Mat grid(rows * th, cols * tw, CV_8UC3, cv::Scalar::all(255));
  const at::Tensor hwc =
      images.narrow(0, 0, n).to(at::kCPU).permute({0, 2, 3, 1}).contiguous();  // the first n
  for (int i = 0; i < n; ++i) {
    const cv::Mat rgb(h, w, CV_8UC3, hwc[i].data_ptr<uint8_t>());
    cv::Mat tile;
    cv::cvtColor(rgb, tile, cv::COLOR_RGB2BGR);
    if (tw != w || th != h) cv::resize(tile, tile, {tw, th}, 0, 0, cv::INTER_AREA);
    if (size_t(i) < boxes.size()) {
      std::vector<DrawnBox> scaled = boxes[size_t(i)];
      const float sx = float(tw) / float(w), sy = float(th) / float(h);
      for (auto& b : scaled) b.x1 *= sx, b.x2 *= sx, b.y1 *= sy, b.y2 *= sy;
      drawBoxes(tile, scaled, names);
    }
    if (size_t(i) < paths.size()) {  // the file's name, as Ultralytics writes it (40 characters at most)
      const std::string name = std::filesystem::path(paths[size_t(i)]).filename().string().substr(0, 40);
      cv::putText(tile, name, {5, std::min(th - 4, 16)}, cv::FONT_HERSHEY_SIMPLEX, 0.45, cv::Scalar::all(220),
                  1, cv::LINE_AA);
    }
    const cv::Rect at((i % cols) * tw, (i / cols) * th, tw, th);
    tile.copyTo(grid(at));
    cv::rectangle(grid, at, cv::Scalar::all(255), 2);
  }
  return grid;
}

cv::Mat renderBatch(const at::Tensor& images, const at::Tensor& targets,
                    const std::vector<std::string>& paths, const std::vector<std::string>& names) {
  const float h = float(images.dim() == 4 ? images.size(2) : 0),
              w = float(images.dim() == 4 ? images.size(3) : 0);
  std::vector<std::vector<DrawnBox>> boxes(size_t(images.dim() == 4 ? images.size(0) : 0));
  const at::Tensor t = targets.numel() ? targets.to(at::kCPU, at::kFloat).contiguous() : at::empty({0, 6});
  const float* tp = t.data_ptr<float>();
  for (int64_t k = 0; k < t.size(0); ++k) {
    const float* r = tp + k * 6;
    const auto i = size_t(r[0]);
    if (i >= boxes.size()) continue;
    const float cx = r[2] * w, cy = r[3] * h, bw = r[4] * w, bh = r[5] * h;
    boxes[i].push_back({cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2, int(r[1]), -1.f});
  }
  return renderBatchBoxes(images, boxes, paths, names);
}

}  // namespace ywb
