// C3 whose bottlenecks use one kernel size k for both convolutions (Ultralytics' C3k, the inner block of
// C3k2 when its c3k argument is set). Keys as C3. Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/c3.h"

namespace ywb::model {

struct C3kOptions {
  C3kOptions(int64_t c1, int64_t c2, int64_t n = 1) : c1_(c1), c2_(c2), n_(n) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, n);
  TORCH_ARG(bool, shortcut) = true;
  TORCH_ARG(int64_t, g) = 1;
  TORCH_ARG(double, e) = 0.5;
  TORCH_ARG(int64_t, k) = 3;  ///< kernel of both bottleneck convolutions
};

class C3kImpl : public C3Impl {
 public:
  explicit C3kImpl(const C3kOptions& options);
};
TORCH_MODULE(C3k);

}  // namespace ywb::model
