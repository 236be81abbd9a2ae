#include "loss/class_weights.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "ywb/train_args.h"

namespace ywb::loss {

std::vector<int64_t> classCounts(const ScannedSplit& split, int64_t nc) {
  std::vector<int64_t> counts(size_t(std::max<int64_t>(nc, 0)), 0);
  for (const auto& img : split.images) {
    for (const auto& b : img.boxes) {
      if (b.cls < 0 || b.cls >= nc) fail(img.label, ": class ", b.cls, " outside [0, ", nc, ")");
      ++counts[size_t(b.cls)];
    }
  }
  return counts;
}

at::Tensor classWeights(const std::vector<int64_t>& counts, double power) {
  if (counts.empty()) fail("class weights: no classes");
  // Above 0: cls_pw=0 means no weights and is never passed here. The top is the argument's own range.
  // A copy: g++ 13's -Wdangling-reference flags a reference returned for a temporary argument.
  const ArgSpec spec = trainArgSpec("cls_pw");
  if (!(power > 0 && power <= spec.max))
    fail("cls_pw=", power, " is outside the valid range (0, ", spec.max, "]");
  std::vector<double> w;
  double sum = 0;
  for (int64_t c : counts) {
    w.push_back(std::pow(1.0 / double(std::max<int64_t>(c, 1)), power));
    sum += w.back();
  }
  const double mean = sum / double(w.size());
  std::vector<float> out;
  for (double v : w) out.push_back(float(v / mean));
  return at::tensor(out);
}

std::string classWeightsLine(const at::Tensor& weights) {
  const at::Tensor w = weights.to(at::kCPU, at::kDouble).contiguous();
  std::string line = "Class weights: [";
  char buf[32];
  for (int64_t i = 0; i < w.numel(); ++i) {
    std::snprintf(buf, sizeof(buf), "%s%.3f", i ? ", " : "", w.data_ptr<double>()[i]);
    line += buf;
  }
  return line + "]";
}

}  // namespace ywb::loss
