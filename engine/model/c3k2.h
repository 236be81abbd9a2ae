// YOLO11's CSP block (Ultralytics' C3k2): C2f's split/chain/concat structure whose n inner blocks are
// Bottlenecks (3x3 + 3x3, expansion 0.5), with c3k C3k blocks of two bottlenecks each, or with attn (8.4,
// YOLO26) a Bottleneck followed by a PSABlock (one attention head per 64 channels, at least one).
// Keys: cv1.*, cv2.*, m.<i>.* (m.<i>.cv1/cv2 for Bottlenecks, m.<i>.cv1/cv2/cv3/m.<j> for C3k,
// m.<i>.0.cv1/cv2 and m.<i>.1.attn/ffn for attn).
// Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/c3k.h"
#include "model/psa_block.h"

namespace ywb::model {

struct C3k2Options {
  C3k2Options(int64_t c1, int64_t c2, int64_t n = 1) : c1_(c1), c2_(c2), n_(n) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, n);
  TORCH_ARG(bool, c3k) = false;   ///< C3k inner blocks instead of Bottlenecks
  TORCH_ARG(bool, attn) = false;  ///< Bottleneck + PSABlock inner blocks (takes precedence over c3k)
  TORCH_ARG(double, e) = 0.5;     ///< hidden channels per half = int(c2 * e)
  TORCH_ARG(int64_t, g) = 1;
  TORCH_ARG(bool, shortcut) = true;
};

class C3k2Impl : public torch::nn::Module {
 public:
  explicit C3k2Impl(const C3k2Options& options);
  at::Tensor forward(const at::Tensor& x);
  void fuse();
  LayerFlops flops(int64_t h, int64_t w, bool count_bn) const;
  /// Hidden channels of each half of cv1's output.
  int64_t hidden() const { return c_; }

  C3k2Options options;
  Conv cv1{nullptr}, cv2{nullptr};
  std::vector<Bottleneck> bottlenecks;  ///< the inner blocks when !c3k (registered as "m")
  std::vector<C3k> c3ks;                ///< the inner blocks when c3k (registered as "m")
  std::vector<PSABlock> psa;            ///< with attn: after bottlenecks[i] in block i

 private:
  int64_t c_ = 0;
};
TORCH_MODULE(C3k2);

}  // namespace ywb::model
