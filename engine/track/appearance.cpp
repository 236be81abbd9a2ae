#include "track/appearance.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace ywb::track {
namespace {

// v scaled to unit length (left as it is when all zero, where the length says nothing).
void unitLength(std::vector<float>& v) {
  double sq = 0;
  for (const float x : v) sq += double(x) * x;
  if (sq <= 0) return;
  const double inv = 1 / std::sqrt(sq);
  for (float& x : v) x = float(x * inv);
}

}  // namespace

Features objectFeatures(const std::vector<at::Tensor>& head_inputs, const at::Tensor& anchors) {
  if (head_inputs.empty()) fail("ReID features: the head has no inputs");
  int64_t s = head_inputs[0].size(1);
  for (const auto& m : head_inputs) {
    if (m.dim() != 4 || m.size(0) < 1) fail("ReID features: expected maps [N, C, H, W], got ", m.sizes());
    s = std::min(s, m.size(1));
  }
  // Each level's image-0 map as [H*W, s] group means, on the maps' device; one table over the levels, of
  // which only the detections' rows are copied to the host.
  std::vector<at::Tensor> levels;
  for (const auto& m : head_inputs) {
    const int64_t c = m.size(1);
    if (c % s)
      fail("ReID features: a head input has ", c, " channels, not a multiple of ", s,
           " (the fewest of any level); this model's features cannot be pooled to one length");
    levels.push_back(m[0].to(at::kFloat).permute({1, 2, 0}).reshape({-1, s, c / s}).mean(-1));  // [H*W, s]
  }
  const at::Tensor table = at::cat(levels, 0);  // [A, s]
  const at::Tensor idx = anchors.to(at::kCPU, at::kLong).contiguous().view(-1);
  for (int64_t i = 0; i < idx.size(0); ++i) {
    const int64_t a = idx.data_ptr<int64_t>()[i];
    if (a < 0 || a >= table.size(0))
      fail("ReID features: anchor ", a, " is outside the head's ", table.size(0), " anchors");
  }
  const at::Tensor rows = table.index_select(0, idx.to(table.device())).to(at::kCPU).contiguous();  // [k, s]
  Features out(size_t(idx.size(0)));
  const float* t = rows.data_ptr<float>();
  for (size_t i = 0; i < out.size(); ++i) out[i].assign(t + int64_t(i) * s, t + (int64_t(i) + 1) * s);
  return out;
}

void Appearance::update(const std::vector<float>& features) {
  if (features.empty()) return;
  current = features;
  unitLength(current);
  if (smooth.empty()) {
    smooth = current;
    return;
  }
  if (smooth.size() != current.size())
    fail("ReID features: a track's features have ", smooth.size(), " values, the detection's ",
         current.size());
  constexpr float kAlpha = 0.9f;  // BoT-SORT's feature smoothing
  for (size_t i = 0; i < smooth.size(); ++i) smooth[i] = kAlpha * smooth[i] + (1 - kAlpha) * current[i];
  unitLength(smooth);
}

double appearanceCost(const Appearance& track, const Appearance& detection) {
  if (track.smooth.empty() || detection.current.empty()) return 1;
  if (track.smooth.size() != detection.current.size())
    fail("ReID features: a track's features have ", track.smooth.size(), " values, a detection's ",
         detection.current.size());
  double dot = 0;
  for (size_t i = 0; i < track.smooth.size(); ++i) dot += double(track.smooth[i]) * detection.current[i];
  return std::max(0.0, 1 - dot) / 2;
}

}  // namespace ywb::track
