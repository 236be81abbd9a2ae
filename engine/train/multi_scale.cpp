#include "train/multi_scale.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "ywb/train_args.h"

namespace ywb {
namespace {

// Tags this stream among the run's seeded draws (the loader's are keyed by epoch and sample).
constexpr uint64_t kMultiScaleStream = 0x6d756c74695f7363ull;  // "multi_sc"

}  // namespace

MultiScale::MultiScale(int imgsz, double range, int stride, uint64_t seed)
    : imgsz_(imgsz), range_(range), stride_(std::max(stride, 32)), seed_(seed) {
  // TrainArgs refuses the value first; a direct caller here. A copy: g++ 13's -Wdangling-reference flags a
  // reference returned for a temporary argument.
  const ArgSpec spec = trainArgSpec("multi_scale");
  if (!(range >= spec.min && range <= spec.max))
    fail("multi_scale=", range, " is outside the valid range [", spec.min, ", ", spec.max, "]");
}

// Python's int() of a positive float truncates: the same as the cast. The products are formed in doubles as
// Python forms them (imgsz * (1 - ms), then + stride).
int64_t MultiScale::low() const {
  return std::max<int64_t>(stride_, int64_t(double(imgsz_) * (1.0 - range_)));
}

int64_t MultiScale::high() const {
  return int64_t(double(imgsz_) * (1.0 + range_) + double(stride_));
}

int MultiScale::sizeFor(int64_t step) const {
  if (!on()) return imgsz_;
  Rng rng(mixSeed(seed_, kMultiScaleStream, uint64_t(step)));
  const int64_t raw = rng.uniformInt(low(), high() - 1);  // randrange(low, high)
  return int(raw / stride_ * stride_);
}

int MultiScale::maxSize() const {
  if (!on()) return imgsz_;
  return int(std::ceil(double(imgsz_) * (1.0 + range_) / double(stride_))) * stride_;
}

at::Tensor MultiScale::resize(const at::Tensor& x, int size) const {
  const int64_t h = x.size(2), w = x.size(3);
  const double sf = double(size) / double(std::max(h, w));
  if (sf == 1.0) return x;
  // ceil(side * sf / stride) * stride, in the order Python evaluates it.
  const auto side = [&](int64_t s) { return int64_t(std::ceil(double(s) * sf / double(stride_))) * stride_; };
  return at::upsample_bilinear2d(x, {side(h), side(w)}, /*align_corners=*/false);
}

at::Tensor MultiScale::apply(const at::Tensor& x, int64_t step) const {
  return on() ? resize(x, sizeFor(step)) : x;
}

}  // namespace ywb
