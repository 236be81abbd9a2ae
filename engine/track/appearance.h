// BoT-SORT's ReID with the detector's own features (Ultralytics' `with_reid: True`, `model: auto`): each
// detection's appearance is the head's input at the anchor it came from, and a track keeps a smoothed copy
// that the first association compares with each detection's. Thread rules: pure functions and plain values.
#pragma once
#include <ATen/core/Tensor.h>

#include <vector>

namespace ywb::track {

/// One vector per detection (empty when there are none).
using Features = std::vector<std::vector<float>>;

/// The appearance of the detections that came from `anchors` (int64 [k], indices into the head's anchors,
/// level by level, row by row, as the decoded output's columns) of image 0 of `head_inputs` (the head's
/// input maps [N, C_l, H_l, W_l]). Every level is cut to s = the fewest channels of any level: channels
/// 0..C_l-1 fall into s groups of C_l / s consecutive channels and each group is averaged (Ultralytics'
/// get_obj_feats), so a YOLOv8n object has 64 values wherever it was found. Throws ywb::Error when a level's
/// channels are not a multiple of s, or an anchor is outside the maps.
Features objectFeatures(const std::vector<at::Tensor>& head_inputs, const at::Tensor& anchors);

/// A track's appearance: the latest detection's features and their running average, both unit length.
struct Appearance {
  std::vector<float> current, smooth;
  /// Takes a detection's features: `current` becomes them scaled to unit length, `smooth` becomes
  /// 0.9 x smooth + 0.1 x current scaled to unit length (or current, the first time). Empty: no change.
  void update(const std::vector<float>& features);
  bool empty() const { return smooth.empty(); }
};

/// The appearance cost of a track for a detection, in [0, 1]: the cosine distance of the track's smoothed
/// features and the detection's (1 - cosine, at least 0) halved, as BoT-SORT's embedding distance / 2.
/// 1 when either has none.
double appearanceCost(const Appearance& track, const Appearance& detection);

}  // namespace ywb::track
