// Anchor points and decoding of the Detect head's raw maps into boxes and class scores (Ultralytics'
// inference output). Plain functions; thread-safe.
#pragma once
#include <ATen/ATen.h>

#include <utility>
#include <vector>

namespace ywb::model {

constexpr int64_t kRegMax = 16;  ///< DFL bins per box side

/// Anchor centres in grid units of each level ([A,2], x then y, (i + offset)) and their strides ([A,1]),
/// levels concatenated in order. `feats` are [N,C,H,W] maps; only their sizes, dtype and device are used.
std::pair<at::Tensor, at::Tensor> makeAnchors(const std::vector<at::Tensor>& feats,
                                              const std::vector<int64_t>& strides, double offset = 0.5);

/// Distances (left, top, right, bottom) from anchor points to box sides -> boxes (xywh or xyxy) along `dim`.
at::Tensor dist2bbox(const at::Tensor& distance, const at::Tensor& anchor_points, bool xywh,
                     int64_t dim = -1);

/// Expected value of each side's DFL distribution: [N, 4*reg_max, A] logits -> [N, 4, A] distances in bins.
/// `projection` (optional, [reg_max]) defaults to 0..reg_max-1 (the DFL conv's fixed weights).
at::Tensor dflExpectation(const at::Tensor& box_logits, int64_t reg_max = kRegMax,
                          const at::Tensor& projection = {});

/// The Detect head's raw maps ([N, 4*reg_max+nc, H_i, W_i] per level) -> [N, 4+nc, A]: boxes xywh in input
/// pixels, then sigmoid class scores. This is the Ultralytics inference/export output. With reg_max 1 the
/// four box channels are the distances themselves (in stride units, no DFL).
at::Tensor decodeOutputs(const std::vector<at::Tensor>& feats, const std::vector<int64_t>& strides,
                         int64_t nc, const at::Tensor& projection = {}, int64_t reg_max = kRegMax);

/// xywh -> xyxy along the last dimension.
at::Tensor xywh2xyxy(const at::Tensor& xywh);

/// Decoded output split for post-processing: boxes xyxy in input pixels [N,A,4] and scores [N,A,nc].
struct Detections {
  at::Tensor boxes;
  at::Tensor scores;
};
Detections splitDecoded(const at::Tensor& decoded);

}  // namespace ywb::model
