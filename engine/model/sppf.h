// Spatial pyramid pooling, fast (YOLOv8's SPPF): cv1, three chained k x k max-pools, concat, cv2.
// Keys: cv1.*, cv2.*. Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/conv.h"

namespace ywb::model {

struct SPPFOptions {
  SPPFOptions(int64_t c1, int64_t c2, int64_t k = 5) : c1_(c1), c2_(c2), k_(k) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, k);
};

class SPPFImpl : public torch::nn::Module {
 public:
  explicit SPPFImpl(const SPPFOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;

  SPPFOptions options;
  Conv cv1{nullptr}, cv2{nullptr};
};
TORCH_MODULE(SPPF);

}  // namespace ywb::model
