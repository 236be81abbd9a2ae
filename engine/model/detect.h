// YOLO detection head: per level a box branch cv2 (Conv 3x3, Conv 3x3, Conv2d 1x1 -> 4*16) and a class
// branch cv3 ending in Conv2d 1x1 -> nc, plus the DFL integral. The class branch is YOLOv8's two 3x3 Convs
// (legacy) or YOLO11's depth-wise form (Ultralytics' legacy=False): [DWConv 3x3, Conv 1x1] twice.
// Keys: cv2.<level>.<0..2>.*, cv3.<level>.<0..2>.* (legacy) or cv3.<level>.<0|1>.<0|1>.* and cv3.<level>.2.*,
// dfl.conv.weight. Thread rules: a module is used by one thread at a time.
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
  TORCH_ARG(bool, legacy) = true;            ///< YOLOv8's class branch; false = YOLO11's depth-wise one
};

class DetectImpl : public torch::nn::Module {
 public:
  /// One branch of one level: its Convs in order with their key prefixes relative to the head
  /// ("cv3.0.0.1"), then the final Conv2d ("cv3.0.2").
  struct Branch {
    std::vector<std::pair<std::string, Conv>> stages;
    std::string out_name;
    torch::nn::Conv2d out{nullptr};
  };

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
  /// The box (cv2) and class (cv3) branch of a level, e.g. for an exporter.
  Branch& boxBranch(size_t level) { return box_.at(level); }
  Branch& classBranch(size_t level) { return cls_.at(level); }

  DetectOptions options;
  DFL dfl{nullptr};

 private:
  std::vector<Branch> box_, cls_;
};
TORCH_MODULE(Detect);

}  // namespace ywb::model
