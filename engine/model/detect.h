// YOLO detection head: per level a box branch cv2 (Conv 3x3, Conv 3x3, Conv2d 1x1 -> 4*reg_max) and a class
// branch cv3 ending in Conv2d 1x1 -> nc, plus the DFL integral (none when reg_max is 1: the four box
// channels are then distances in stride units). The class branch is YOLOv8's two 3x3 Convs (legacy) or
// YOLO11's depth-wise form (Ultralytics' legacy=False): [DWConv 3x3, Conv 1x1] twice. An end-to-end head
// (YOLO26) has a one-to-one copy of both branches (one2one_cv2/one2one_cv3) that runs on detached features:
// its loss trains only the copy, and inference from it needs no NMS.
// Keys: cv2.<level>.<0..2>.*, cv3.<level>.<0..2>.* (legacy) or cv3.<level>.<0|1>.<0|1>.* and cv3.<level>.2.*,
// dfl.conv.weight (reg_max > 1), one2one_cv2.* / one2one_cv3.* like cv2/cv3 (end2end).
// Thread rules: a module is used by one thread at a time.
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>

#include "model/conv.h"
#include "model/dfl.h"
#include "model/head_outputs.h"

namespace ywb::model {

struct DetectOptions {
  DetectOptions(int64_t nc, std::vector<int64_t> ch, std::vector<int64_t> strides)
      : nc_(nc), ch_(std::move(ch)), strides_(std::move(strides)) {}
  TORCH_ARG(int64_t, nc);
  TORCH_ARG(std::vector<int64_t>, ch);       ///< input channels per level
  TORCH_ARG(std::vector<int64_t>, strides);  ///< stride per level (8, 16, 32), used for the bias prior
  TORCH_ARG(bool, legacy) = true;            ///< YOLOv8's class branch; false = YOLO11's depth-wise one
  TORCH_ARG(int64_t, reg_max) = 16;          ///< DFL bins per box side; 1 = no DFL
  TORCH_ARG(bool, end2end) = false;          ///< one-to-one branches beside the one-to-many ones
  TORCH_ARG(double, box_bias) = 1.0;         ///< initial box bias (Ultralytics 8.3: 1.0, 8.4: 2.0)
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
  /// Raw maps of the one-to-many branches [N, 4*reg_max+nc, H_i, W_i], one per level.
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& x);
  /// Raw maps of both branches (one2one only when end2end; computed on x detached).
  HeadOutputs forwardHeads(const std::vector<at::Tensor>& x);
  /// Raw maps of the one-to-one branches (end2end only), on x as given.
  std::vector<at::Tensor> forwardOne2One(const std::vector<at::Tensor>& x);
  /// Raw maps of either branch -> [N, 4+nc, A] (boxes xywh in input pixels, sigmoid scores).
  at::Tensor decode(const std::vector<at::Tensor>& raw);
  /// Ultralytics' prior: box bias options.box_bias, class bias log(5 / nc / (640 / stride)^2), both branches.
  void initBiases();
  void fuse();
  /// FLOPs of all levels for the given input sizes per level (one-to-many branches; with `one2one` instead
  /// the one-to-one ones, what an end-to-end model runs at inference).
  double flops(const std::vector<std::pair<int64_t, int64_t>>& level_hw, bool count_bn,
               bool one2one = false) const;
  /// The box (cv2) and class (cv3) branch of a level, e.g. for an exporter; one2one_* for the copies.
  Branch& boxBranch(size_t level) { return box_.at(level); }
  Branch& classBranch(size_t level) { return cls_.at(level); }
  Branch& one2oneBoxBranch(size_t level) { return o2o_box_.at(level); }
  Branch& one2oneClassBranch(size_t level) { return o2o_cls_.at(level); }
  /// Parameters of the one-to-many branches (what Ultralytics drops when it fuses an end-to-end model).
  int64_t one2manyParameterCount() const;

  DetectOptions options;
  DFL dfl{nullptr};  ///< null when reg_max is 1

 private:
  /// Builds the box and class branches of every level, registered as `box_name` / `cls_name`.
  void addBranches(const std::string& box_name, const std::string& cls_name, std::vector<Branch>* box,
                   std::vector<Branch>* cls);
  std::vector<at::Tensor> run(std::vector<Branch>& box, std::vector<Branch>& cls,
                              const std::vector<at::Tensor>& x, bool detach);

  std::vector<Branch> box_, cls_, o2o_box_, o2o_cls_;
};
TORCH_MODULE(Detect);

}  // namespace ywb::model
