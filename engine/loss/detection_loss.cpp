#include "loss/detection_loss.h"

#include <tuple>

#include "core/error.h"
#include "loss/box_iou.h"
#include "loss/dfl_loss.h"
#include "model/box_decode.h"

namespace ywb::loss {

namespace {

TalOptions talOptions(const DetectionLossOptions& o) {
  TalOptions t;
  t.topk = o.topk;
  t.nc = o.nc;
  t.alpha = 0.5;
  t.beta = 6.0;
  t.eps = 1e-9;
  t.topk2 = o.topk2;
  t.fixed_shapes = o.fixed_shapes;
  if (o.small_box_rule && !o.strides.empty()) {
    // 8.4: sides under the finest stride (8) widen to the next one (16).
    t.small_side = double(o.strides[0]);
    t.small_side_to = double(o.strides.size() > 1 ? o.strides[1] : 2 * o.strides[0]);
  }
  return t;
}

// [w, h, w, h] on the device of `o`: copied from the host (the default, as before), or filled there (a CUDA
// graph cannot capture a host-to-device copy). The same float values either way.
at::Tensor whwh(double w, double h, const at::TensorOptions& o, bool on_device) {
  if (!on_device) return at::tensor({w, h, w, h}, o);
  return at::cat({at::full({1}, w, o), at::full({1}, h, o)}).repeat({2});
}

}  // namespace

struct DetectionLoss::Prepared {
  at::Tensor pred_dist;    // [B,A,4*reg_max]
  at::Tensor pred_scores;  // [B,A,nc] logits
  at::Tensor pred_bboxes;  // [B,A,4] xyxy in grid units
  at::Tensor anchors, stride_t;
  double img_w = 0, img_h = 0;
  PaddedTargets gt;
};

DetectionLoss::DetectionLoss(DetectionLossOptions options)
    : opt_(std::move(options)), assigner_(talOptions(opt_)) {
  if (opt_.reg_max < 1) fail("loss: reg_max ", opt_.reg_max, " (need 1, no DFL, or more bins)");
  if (opt_.strides.empty()) fail("loss: no strides");
  if (opt_.class_weights.defined() && opt_.class_weights.numel() != opt_.nc)
    fail("loss: ", opt_.class_weights.numel(), " class weights for ", opt_.nc, " classes");
}

PaddedTargets scaleTargets(const GroupedTargets& g, double img_w, double img_h, bool device_constants) {
  // Scale first, then convert, as the reference does (the same float rounding); padding stays 0.
  const at::Tensor scale = whwh(img_w, img_h, g.xywh.options(), device_constants);
  return {g.labels, model::xywh2xyxy(g.xywh * scale), g.mask};
}

PaddedTargets padTargets(const at::Tensor& targets, int64_t batch, int64_t nc, double img_w, double img_h) {
  return scaleTargets(groupTargets(targets, batch, nc).to(targets.device(), false), img_w, img_h);
}

LossResult DetectionLoss::operator()(const std::vector<at::Tensor>& feats, const at::Tensor& targets) const {
  if (feats.empty()) fail("loss: no feature maps");
  return (*this)(feats, groupTargets(targets, feats[0].size(0), opt_.nc).to(feats[0].device(), false));
}

LossResult DetectionLoss::operator()(const std::vector<at::Tensor>& feats,
                                     const GroupedTargets& targets) const {
  const at::Tensor items = terms(feats, targets);
  return {items.sum() * double(feats[0].size(0)), items.detach()};
}

DetectionLoss::Prepared DetectionLoss::prepare(const std::vector<at::Tensor>& feats_in,
                                               const GroupedTargets& targets) const {
  const auto& strides = opt_.strides;
  const int64_t nc = opt_.nc, reg_max = opt_.reg_max;
  if (feats_in.size() != strides.size())
    fail("loss: ", feats_in.size(), " maps for ", strides.size(), " strides");
  const int64_t b = feats_in[0].size(0), no = 4 * reg_max + nc;
  std::vector<at::Tensor> feats, flat;
  for (const auto& f : feats_in) {
    if (f.size(1) != no)
      fail("loss: map has ", f.size(1), " channels, expected 4*reg_max+nc = 4*", reg_max, "+", nc, " = ", no);
    feats.push_back(f.to(at::kFloat));  // the loss runs in float32 even under mixed precision
    flat.push_back(feats.back().view({b, no, -1}));
  }
  Prepared p;
  const auto parts = at::cat(flat, 2).split_with_sizes({4 * reg_max, nc}, 1);
  p.pred_dist = parts[0].permute({0, 2, 1}).contiguous();    // [B,A,4*reg_max]
  p.pred_scores = parts[1].permute({0, 2, 1}).contiguous();  // [B,A,nc]
  p.img_h = double(feats[0].size(2) * strides[0]);
  p.img_w = double(feats[0].size(3) * strides[0]);
  std::tie(p.anchors, p.stride_t) = model::makeAnchors(feats, strides, 0.5);

  if (targets.mask.size(0) != b) fail("loss: targets for ", targets.mask.size(0), " images, maps for ", b);
  p.gt = scaleTargets(targets, p.img_w, p.img_h, opt_.fixed_shapes);
  const int64_t a = p.pred_dist.size(1);
  // Predicted boxes in grid units: with DFL the expected distance per side from its distribution, without
  // it the four channels themselves.
  at::Tensor dist = p.pred_dist;
  if (reg_max > 1) {
    const at::Tensor proj = at::arange(reg_max, p.pred_dist.options());
    dist = p.pred_dist.view({b, a, 4, reg_max}).softmax(3).matmul(proj);
  }
  p.pred_bboxes = model::dist2bbox(dist, p.anchors, false, -1);  // [B,A,4] xyxy
  return p;
}

Assignment DetectionLoss::assign(const Prepared& p) const {
  return assigner_(p.pred_scores.detach().sigmoid(), p.pred_bboxes.detach() * p.stride_t,
                   p.anchors * p.stride_t, p.gt.labels, p.gt.bboxes, p.gt.mask);
}

Assignment DetectionLoss::assignment(const std::vector<at::Tensor>& feats,
                                     const GroupedTargets& targets) const {
  return assign(prepare(feats, targets));
}

at::Tensor DetectionLoss::terms(const std::vector<at::Tensor>& feats, const GroupedTargets& targets) const {
  const int64_t reg_max = opt_.reg_max;
  const Prepared p = prepare(feats, targets);
  const at::Tensor &pred_dist = p.pred_dist, &pred_scores = p.pred_scores, &pred_bboxes = p.pred_bboxes;
  const at::Tensor &anchors = p.anchors, &stride_t = p.stride_t;
  const Assignment as = assign(p);
  const at::Tensor score_sum = as.scores.sum().clamp_min(1.0);

  // cls_pw: each anchor's per-class BCE [B,A,nc] times its class's weight, then summed (Ultralytics 8.4).
  const at::Tensor& cw = opt_.class_weights;
  const at::Tensor loss_cls =
      (cw.defined()
           ? (at::binary_cross_entropy_with_logits(pred_scores, as.scores, {}, {}, at::Reduction::None) *
              cw.to(pred_scores.device(), pred_scores.scalar_type()))
                 .sum()
           : at::binary_cross_entropy_with_logits(pred_scores, as.scores, {}, {}, at::Reduction::Sum)) /
      score_sum;

  const LossGains& g = opt_.gains;
  const at::Tensor target_bboxes = as.bboxes / stride_t;
  if (opt_.fixed_shapes) {
    const auto [loss_box, loss_dfl] = fixedBoxTerms(p, as, target_bboxes);
    return at::stack({loss_box / score_sum * g.box, loss_cls * g.cls, loss_dfl / score_sum * g.dfl});
  }
  // Box losses on positives only (empty selections give exact zeros, so no data-dependent branch).
  const at::Tensor fg = as.fg_mask;
  const at::Tensor weight = as.scores.sum(-1).index({fg}).unsqueeze(-1);  // [K,1]
  const at::Tensor iou = bboxIoU(pred_bboxes.index({fg}), target_bboxes.index({fg}), false, true);
  const at::Tensor loss_box = ((1.0 - iou) * weight).sum() / score_sum;
  at::Tensor loss_dfl;
  if (reg_max > 1) {
    const at::Tensor target_ltrb = bbox2dist(anchors, target_bboxes, double(reg_max - 1));
    loss_dfl = (dflLoss(pred_dist.index({fg}).view({-1, reg_max}), target_ltrb.index({fg})) * weight).sum() /
               score_sum;
  } else {
    // L1 between predicted and target distances, both in pixels (grid units x stride) divided by the image
    // width (left, right) or height (top, bottom), averaged over the four sides.
    const at::Tensor size = whwh(p.img_w, p.img_h, pred_dist.options(), false);
    const at::Tensor target_ltrb = ltrbDistances(anchors, target_bboxes) * stride_t / size;
    const at::Tensor pred_ltrb = pred_dist * stride_t / size;
    loss_dfl =
        ((pred_ltrb.index({fg}) - target_ltrb.index({fg})).abs().mean(-1, true) * weight).sum() / score_sum;
  }
  return at::stack({loss_box * g.box, loss_cls * g.cls, loss_dfl * g.dfl});
}

std::pair<at::Tensor, at::Tensor> DetectionLoss::fixedBoxTerms(const Prepared& p, const Assignment& as,
                                                               const at::Tensor& target_bboxes) const {
  // Every anchor's terms, weighted by its summed soft score: exactly 0 on background anchors (the assigner's
  // scores are one-hot x fg x norm), so the sums are the default's over the positives, in another order.
  // Background anchors get a unit box in both places first, so that no degenerate box (possible with
  // reg_max 1, whose distances may be negative) makes an Inf or NaN that 0 x Inf would carry into the sum or
  // the gradient; where() passes no gradient to the boxes it replaced.
  const int64_t reg_max = opt_.reg_max;
  const at::Tensor fg = as.fg_mask.unsqueeze(-1);     // [B,A,1]
  const at::Tensor weight = as.scores.sum(-1, true);  // [B,A,1]
  const auto o = p.pred_bboxes.options();
  const at::Tensor unit = at::cat({at::zeros({2}, o), at::ones({2}, o)});  // xyxy (0, 0, 1, 1)
  const at::Tensor iou = bboxIoU(at::where(fg, p.pred_bboxes, unit), at::where(fg, target_bboxes, unit),
                                 false, true);  // [B,A,1]
  const at::Tensor loss_box = ((1.0 - iou) * weight).sum();
  if (reg_max > 1) {
    const at::Tensor target_ltrb = bbox2dist(p.anchors, target_bboxes, double(reg_max - 1));  // [B,A,4]
    return {loss_box, (dflLoss(p.pred_dist.view({-1, reg_max}), target_ltrb) * weight).sum()};
  }
  const at::Tensor size = whwh(p.img_w, p.img_h, p.pred_dist.options(), true);
  const at::Tensor target_ltrb = ltrbDistances(p.anchors, target_bboxes) * p.stride_t / size;
  const at::Tensor pred_ltrb = p.pred_dist * p.stride_t / size;
  return {loss_box, ((pred_ltrb - target_ltrb).abs().mean(-1, true) * weight).sum()};
}

}  // namespace ywb::loss
