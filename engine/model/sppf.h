// Spatial pyramid pooling, fast (Ultralytics' SPPF): cv1, n chained k x k max-pools, concat, cv2, and with
// `shortcut` a residual around it all when c1 == c2 (YOLO26). From Ultralytics 8.4 cv1 has no activation
// (ModelSpec::sppfActivation() says which form a model follows). Keys: cv1.*, cv2.*.
// Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/conv.h"

namespace ywb::model {

struct SPPFOptions {
  SPPFOptions(int64_t c1, int64_t c2, int64_t k = 5) : c1_(c1), c2_(c2), k_(k) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, k);
  TORCH_ARG(int64_t, n) = 3;          ///< chained max-pools
  TORCH_ARG(bool, shortcut) = false;  ///< residual when c1 == c2
  TORCH_ARG(bool, cv1_act) = false;   ///< SiLU after cv1 (Ultralytics 8.3 and earlier)
};

class SPPFImpl : public torch::nn::Module {
 public:
  explicit SPPFImpl(const SPPFOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;
  /// Whether the input is added to the output (shortcut and c1 == c2).
  bool residual() const { return options.shortcut() && options.c1() == options.c2(); }

  SPPFOptions options;
  Conv cv1{nullptr}, cv2{nullptr};
};
TORCH_MODULE(SPPF);

}  // namespace ywb::model
