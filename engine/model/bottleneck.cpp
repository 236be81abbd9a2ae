#include "model/bottleneck.h"

namespace ywb::model {

BottleneckImpl::BottleneckImpl(const BottleneckOptions& o) : options(o) {
  const auto hidden = static_cast<int64_t>(double(o.c2()) * o.e());
  cv1 = register_module("cv1", Conv(ConvOptions(o.c1(), hidden, o.k1(), 1)));
  cv2 = register_module("cv2", Conv(ConvOptions(hidden, o.c2(), o.k2(), 1).g(o.g())));
  add_ = o.shortcut() && o.c1() == o.c2();
}

at::Tensor BottleneckImpl::forward(const at::Tensor& x) {
  at::Tensor y = cv2->forward(cv1->forward(x));
  return add_ ? x + y : y;
}

void BottleneckImpl::fuse() {
  cv1->fuse();
  cv2->fuse();
}

LayerFlops BottleneckImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  const LayerFlops a = cv1->flops(h, w, count_bn);
  LayerFlops b = cv2->flops(a.out_h, a.out_w, count_bn);
  b.flops += a.flops;
  return b;
}

void drawReplacedBottlenecks(const BottleneckOptions& options, int64_t n) {
  for (int64_t i = 0; i < n; ++i) Bottleneck dropped(options);
}

}  // namespace ywb::model
