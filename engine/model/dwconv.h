// Depth-wise convolution block (Ultralytics' DWConv): a Conv whose groups are gcd(c1, c2), i.e. one filter
// per channel when c1 == c2. Same keys and behaviour as Conv (conv.*, bn.*), so everything that handles a
// Conv (fusion, SyncBatchNorm, export) handles it. Thread rules: a module is used by one thread at a time.
#pragma once
#include "model/conv.h"

namespace ywb::model {

struct DWConvOptions {
  DWConvOptions(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1) : c1_(c1), c2_(c2), k_(k), s_(s) {}
  TORCH_ARG(int64_t, c1);
  TORCH_ARG(int64_t, c2);
  TORCH_ARG(int64_t, k);
  TORCH_ARG(int64_t, s);
  TORCH_ARG(bool, act) = true;
};

class DWConvImpl : public ConvImpl {
 public:
  explicit DWConvImpl(const DWConvOptions& options);
};
TORCH_MODULE(DWConv);

}  // namespace ywb::model
