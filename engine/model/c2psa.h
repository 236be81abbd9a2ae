// YOLO11's attention stage (Ultralytics' C2PSA): cv1 (1x1) splits into halves a and b, b runs through n
// PSABlocks (c/64 heads, attention ratio 0.5), cv2 (1x1) fuses [a, b]. Input and output widths are equal.
// Keys: cv1.*, cv2.*, m.<i>.*. Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/psa_block.h"

namespace ywb::model {

struct C2PSAOptions {
  C2PSAOptions(int64_t c1, int64_t c2, int64_t n = 1) : c1_(c1), c2_(c2), n_(n) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, n);
  TORCH_ARG(double, e) = 0.5;  ///< half width = int(c1 * e)
};

class C2PSAImpl : public torch::nn::Module {
 public:
  explicit C2PSAImpl(const C2PSAOptions& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;
  int64_t hidden() const { return c_; }

  C2PSAOptions options;
  Conv cv1{nullptr}, cv2{nullptr};
  std::vector<PSABlock> blocks;  ///< registered as the Sequential "m"

 private:
  int64_t c_ = 0;
};
TORCH_MODULE(C2PSA);

}  // namespace ywb::model
