#include "loss/detection_loss.h"

#include "core/error.h"
#include "loss/box_iou.h"
#include "loss/dfl_loss.h"
#include "model/box_decode.h"

namespace ywb::loss {

using model::kRegMax;

DetectionLoss::DetectionLoss(const model::DetectionModel& m, LossGains gains)
    : DetectionLoss(m->nc(), m->strides(), gains) {}

DetectionLoss::DetectionLoss(int64_t nc, std::vector<int64_t> strides, LossGains gains)
    : nc_(nc), strides_(std::move(strides)), gains_(gains), assigner_(TalOptions{10, nc, 0.5, 6.0, 1e-9}) {}

PaddedTargets scaleTargets(const GroupedTargets& g, double img_w, double img_h) {
  // Scale first, then convert, as the reference does (the same float rounding); padding stays 0.
  const at::Tensor scale = at::tensor({img_w, img_h, img_w, img_h}, g.xywh.options());
  return {g.labels, model::xywh2xyxy(g.xywh * scale), g.mask};
}

PaddedTargets padTargets(const at::Tensor& targets, int64_t batch, int64_t nc, double img_w, double img_h) {
  return scaleTargets(groupTargets(targets, batch, nc).to(targets.device(), false), img_w, img_h);
}

LossResult DetectionLoss::operator()(const std::vector<at::Tensor>& feats, const at::Tensor& targets) const {
  if (feats.empty()) fail("loss: no feature maps");
  return (*this)(feats, groupTargets(targets, feats[0].size(0), nc_).to(feats[0].device(), false));
}

LossResult DetectionLoss::operator()(const std::vector<at::Tensor>& feats_in,
                                     const GroupedTargets& targets) const {
  if (feats_in.size() != strides_.size())
    fail("loss: ", feats_in.size(), " maps for ", strides_.size(), " strides");
  const int64_t b = feats_in[0].size(0), no = 4 * kRegMax + nc_;
  std::vector<at::Tensor> feats, flat;
  for (const auto& f : feats_in) {
    if (f.size(1) != no) fail("loss: map has ", f.size(1), " channels, expected 4*16+nc = ", no);
    feats.push_back(f.to(at::kFloat));  // the loss runs in float32 even under mixed precision
    flat.push_back(feats.back().view({b, no, -1}));
  }
  const auto parts = at::cat(flat, 2).split_with_sizes({4 * kRegMax, nc_}, 1);
  const at::Tensor pred_dist = parts[0].permute({0, 2, 1}).contiguous();    // [B,A,64]
  const at::Tensor pred_scores = parts[1].permute({0, 2, 1}).contiguous();  // [B,A,nc]
  const double img_h = double(feats[0].size(2) * strides_[0]), img_w = double(feats[0].size(3) * strides_[0]);
  auto [anchors, stride_t] = model::makeAnchors(feats, strides_, 0.5);

  if (targets.mask.size(0) != b) fail("loss: targets for ", targets.mask.size(0), " images, maps for ", b);
  const PaddedTargets gt = scaleTargets(targets, img_w, img_h);
  const int64_t a = pred_dist.size(1);
  // Predicted boxes in grid units: expected distance per side from its DFL distribution.
  const at::Tensor proj = at::arange(kRegMax, pred_dist.options());
  const at::Tensor dist = pred_dist.view({b, a, 4, kRegMax}).softmax(3).matmul(proj);
  const at::Tensor pred_bboxes = model::dist2bbox(dist, anchors, false, -1);  // [B,A,4] xyxy

  const Assignment as = assigner_(pred_scores.detach().sigmoid(), pred_bboxes.detach() * stride_t,
                                  anchors * stride_t, gt.labels, gt.bboxes, gt.mask);
  const at::Tensor score_sum = as.scores.sum().clamp_min(1.0);

  const at::Tensor loss_cls =
      at::binary_cross_entropy_with_logits(pred_scores, as.scores, {}, {}, at::Reduction::Sum) / score_sum;

  // Box losses on positives only (empty selections give exact zeros, so no data-dependent branch).
  const at::Tensor fg = as.fg_mask;
  const at::Tensor target_bboxes = as.bboxes / stride_t;
  const at::Tensor weight = as.scores.sum(-1).index({fg}).unsqueeze(-1);  // [K,1]
  const at::Tensor iou = bboxIoU(pred_bboxes.index({fg}), target_bboxes.index({fg}), false, true);
  const at::Tensor loss_box = ((1.0 - iou) * weight).sum() / score_sum;
  const at::Tensor target_ltrb = bbox2dist(anchors, target_bboxes, double(kRegMax - 1));
  const at::Tensor loss_dfl =
      (dflLoss(pred_dist.index({fg}).view({-1, kRegMax}), target_ltrb.index({fg})) * weight).sum() /
      score_sum;

  const at::Tensor items = at::stack({loss_box * gains_.box, loss_cls * gains_.cls, loss_dfl * gains_.dfl});
  return {items.sum() * double(b), items.detach()};
}

}  // namespace ywb::loss
