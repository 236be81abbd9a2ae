// SGD (momentum, Nesterov, weight decay) whose update runs as a handful of multi-tensor (foreach) kernels
// per parameter group instead of 3-5 kernels per parameter. Same arithmetic, same state (SGDParamState
// momentum buffers under the same keys) as torch::optim::SGD, so checkpoints are interchangeable; the
// results are bit-identical (tests/engine/test_optimizers.cpp). On CUDA each foreach op is one launch
// for up to hundreds of tensors; on CPU it loops over the tensors like the plain optimizer.
// Thread rules: like any torch optimizer, one thread at a time.
#pragma once
#include <torch/optim/sgd.h>

namespace ywb {

class ForeachSGD : public torch::optim::SGD {
 public:
  using torch::optim::SGD::SGD;
  at::Tensor step(LossClosure closure = nullptr) override;
};

}  // namespace ywb
