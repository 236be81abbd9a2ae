// YOLOv8 detection head: per level a box branch cv2 (Conv 3x3, Conv 3x3, Conv2d 1x1 -> 4*16) and a class
// branch cv3 (Conv 3x3, Conv 3x3, Conv2d 1x1 -> nc), plus the DFL integral. Keys: cv2.<level>.<0..2>.*,
// cv3.<level>.<0..2>.*, dfl.conv.weight. Thread rules: a module is used by one thread at a time.
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>

#include "model/conv.h"
#include "model/dfl.h"

namespace ywb::model {

struct DetectOptions {
  DetectOptions(int64_t nc, std::vector<int64_t> ch, std::vector<int64_t> strides)
      : nc_(nc), ch_(std::move(ch)), strides_(std::move(strides)) {}
  TORCH_ARG(int64_t, nc);
  TORCH_ARG(std::vector<int64_t>, ch);       ///< input channels per level
  TORCH_ARG(std::vector<int64_t>, strides);  ///< stride per level (8, 16, 32), used for the bias prior
};

class DetectImpl : public torch::nn::Module {
 public:
  explicit DetectImpl(const DetectOptions& options);
  /// Raw maps [N, 4*16+nc, H_i, W_i], one per level.
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& x);
  /// Raw maps -> [N, 4+nc, A] (boxes xywh in input pixels, sigmoid scores).
  at::Tensor decode(const std::vector<at::Tensor>& raw);
  /// Ultralytics' prior: box bias 1.0, class bias log(5 / nc / (640 / stride)^2).
  void initBiases();
  void fuse();
  /// FLOPs of all levels for the given input sizes per level.
  double flops(const std::vector<std::pair<int64_t, int64_t>>& level_hw, bool count_bn) const;

  DetectOptions options;
  DFL dfl{nullptr};

 private:
  struct Branch {
    Conv a{nullptr}, b{nullptr};
    torch::nn::Conv2d out{nullptr};
  };
  Branch makeBranch(int64_t c_in, int64_t hidden, int64_t c_out, torch::nn::ModuleList& list);

  std::vector<Branch> box_, cls_;
};
TORCH_MODULE(Detect);

}  // namespace ywb::model
