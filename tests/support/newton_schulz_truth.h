// Muon's Newton-Schulz iteration (engine/train/newton_schulz.h: five steps of the quintic with (a, b, c) =
// (3.4445, -4.7750, 2.0315), a tall matrix transposed) in float64: the truth the bfloat16 implementations are
// measured against, since none of them is bit-exact to another across devices and kernels.
#pragma once
#include <ATen/ATen.h>

namespace ywb::test {

/// The iteration in float64 of `t` taken as the matrix [rows, numel / rows] (logical order); float32 result.
inline at::Tensor newtonSchulz5Float64(const at::Tensor& t) {
  at::Tensor x = t.reshape({t.size(0), -1}).to(at::kDouble);
  const bool tall = x.size(0) > x.size(1);
  x = x / (x.norm() + 1e-7);
  if (tall) x = x.t();
  for (int step = 0; step < 5; ++step) {
    const at::Tensor A = x.mm(x.t());
    x = x * 3.4445 + (A * -4.7750 + (A * 2.0315).mm(A)).mm(x);
  }
  if (tall) x = x.t();
  return x.to(at::kFloat);
}

/// The largest entry error of `got` (any shape with `t`'s elements, any device) against the float64 truth.
inline double newtonSchulzError(const at::Tensor& got, const at::Tensor& t) {
  const at::Tensor truth = newtonSchulz5Float64(t.cpu());
  return (got.cpu().reshape(truth.sizes()) - truth).abs().max().item<double>();
}

}  // namespace ywb::test
