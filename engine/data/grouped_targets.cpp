#include "data/grouped_targets.h"

#include <algorithm>
#include <vector>

#include "core/error.h"

namespace ywb {

GroupedTargets GroupedTargets::to(at::Device device, bool non_blocking) const {
  return {labels.to(device, non_blocking), xywh.to(device, non_blocking), mask.to(device, non_blocking)};
}

GroupedTargets groupTargets(const at::Tensor& targets, int64_t batch, int64_t nc) {
  if (targets.dim() != 2 || (targets.size(0) > 0 && targets.size(1) != 6))
    fail("loss targets must be [M,6] (image index, class, cx, cy, w, h), got ", targets.sizes());
  const at::Tensor t = targets.to(at::kCPU).to(at::kFloat).contiguous();
  const int64_t n = t.size(0);
  const float* r = t.data_ptr<float>();
  std::vector<int64_t> count(size_t(std::max<int64_t>(batch, 0)), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t img = int64_t(r[k * 6]);  // as a float -> long conversion: truncation
    const int64_t cls = int64_t(r[k * 6 + 1]);
    if (img < 0 || img >= batch) fail("loss targets: image index ", img, " outside [0, ", batch, ")");
    if (nc > 0 && (cls < 0 || cls >= nc)) fail("loss targets: class ", cls, " outside [0, ", nc, ")");
    ++count[size_t(img)];
  }
  const int64_t mmax = count.empty() ? 0 : *std::max_element(count.begin(), count.end());
  const auto fopts = at::TensorOptions().dtype(at::kFloat);
  GroupedTargets g{at::zeros({batch, mmax, 1}, fopts), at::zeros({batch, mmax, 4}, fopts),
                   at::zeros({batch, mmax, 1}, fopts)};
  float* labels = g.labels.data_ptr<float>();
  float* xywh = g.xywh.data_ptr<float>();
  float* mask = g.mask.data_ptr<float>();
  std::fill(count.begin(), count.end(), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t img = int64_t(r[k * 6]);
    const int64_t slot = img * mmax + count[size_t(img)]++;
    labels[slot] = r[k * 6 + 1];
    std::copy(r + k * 6 + 2, r + k * 6 + 6, xywh + slot * 4);
    mask[slot] = 1.0f;
  }
  return g;
}

GroupedTargets padGroupedTargets(const GroupedTargets& g, int64_t capacity) {
  const int64_t m = g.mask.size(1);
  if (m > capacity)
    fail("targets: an image of this batch has ", m, " boxes, more than the capacity ", capacity,
         " that fixes the loss's shapes; raise the capacity (data/target_capacity.h gives a bound)");
  const auto pad = [&](const at::Tensor& t) { return at::constant_pad_nd(t, {0, 0, 0, capacity - m}, 0); };
  return {pad(g.labels), pad(g.xywh), pad(g.mask)};
}

}  // namespace ywb
