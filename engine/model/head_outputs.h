// The train-mode outputs of a detection head, per branch: what the head gives (model/detect.h) and what the
// losses take (loss/end_to_end_loss.h, loss/model_loss.h). A header of its own so that the losses need not
// include the model's modules.
#pragma once
#include <ATen/ATen.h>

#include <vector>

namespace ywb::model {

/// The head's raw maps per branch, each level [N, 4*reg_max+nc, H_i, W_i] (levels in stride order, finest
/// first). one2one is empty unless the head is end-to-end (YOLO26); in training its maps come from detached
/// features.
struct HeadOutputs {
  std::vector<at::Tensor> one2many;
  std::vector<at::Tensor> one2one;
};

}  // namespace ywb::model
