#include "loss/tal_assigner.h"

#include "loss/box_iou.h"
#include "model/box_decode.h"

namespace ywb::loss {

at::Tensor TaskAlignedAssigner::candidatesInGts(const at::Tensor& anchors, const at::Tensor& gt_bboxes,
                                                double eps) {
  // min(x - x1, y - y1, x2 - x, y2 - y) > eps, as four comparisons: the same differences, and "the smallest
  // is > eps" is "all are > eps" (NaN compares false either way), without the [B,M,A,4] temporary.
  const at::Tensor x = anchors.select(1, 0).view({1, 1, -1}), y = anchors.select(1, 1).view({1, 1, -1});
  const auto side = [&](int64_t i) { return gt_bboxes.select(-1, i).unsqueeze(-1); };  // [B,M,1]
  return (x - side(0))
      .gt(eps)
      .logical_and_((y - side(1)).gt(eps))
      .logical_and_((side(2) - x).gt(eps))
      .logical_and_((side(3) - y).gt(eps));
}

at::Tensor TaskAlignedAssigner::widenSmallBoxes(const at::Tensor& xyxy, double below, double to) {
  const auto corners = xyxy.split(2, -1);  // x1y1, x2y2
  const at::Tensor centre = (corners[0] + corners[1]) / 2;
  const at::Tensor size = corners[1] - corners[0];
  const at::Tensor widened = at::where(size.lt(below), at::full({}, to, size.options()), size);
  return model::xywh2xyxy(at::cat({centre, widened}, -1));
}

Assignment TaskAlignedAssigner::operator()(const at::Tensor& pd_scores, const at::Tensor& pd_bboxes,
                                           const at::Tensor& anchors, const at::Tensor& gt_labels,
                                           const at::Tensor& gt_bboxes, const at::Tensor& mask_gt) const {
  at::NoGradGuard no_grad;
  const int64_t b = pd_scores.size(0), a = pd_scores.size(1), m = gt_bboxes.size(1);
  Assignment out;
  if (m == 0) {  // no GT in the whole batch: everything is background
    out.labels = at::zeros({b, a}, pd_scores.options().dtype(at::kLong));
    out.bboxes = at::zeros_like(pd_bboxes);
    out.scores = at::zeros_like(pd_scores);
    out.fg_mask = at::zeros({b, a}, pd_scores.options().dtype(at::kBool));
    out.gt_index = at::zeros({b, a}, pd_scores.options().dtype(at::kLong));
    return out;
  }
  const at::Tensor real = mask_gt.to(at::kBool);  // [B,M,1]
  // The small-box rule only changes which anchors are candidates; 8.3's path computes exactly what it did.
  const at::Tensor cand_boxes =
      opt_.small_side > 0 ? widenSmallBoxes(gt_bboxes, opt_.small_side, opt_.small_side_to) : gt_bboxes;
  const at::Tensor in_gts = candidatesInGts(anchors, cand_boxes, opt_.eps);             // [B,M,A]
  const at::Tensor cand = in_gts.logical_and(real);                                     // [B,M,A]
  const at::Tensor labels = gt_labels.to(at::kLong).squeeze(-1).clamp(0, opt_.nc - 1);  // [B,M]

  // Alignment metric on the candidates: predicted score of the GT's class ^ alpha * CIoU ^ beta.
  const at::Tensor scores = pd_scores.transpose(1, 2).gather(1, labels.unsqueeze(-1).expand({b, m, a}));
  const at::Tensor bbox_scores = at::where(cand, scores, at::zeros_like(scores));
  at::Tensor overlaps;
  if (opt_.fixed_shapes) {  // CIoU of every pair [B,M,A], kept on the candidates: the same per-pair
                            // arithmetic
    const at::Tensor all = bboxIoU(gt_bboxes.unsqueeze(2), pd_bboxes.unsqueeze(1), false, true).squeeze(-1);
    overlaps =
        at::where(cand, all.clamp_min(0).to(pd_bboxes.scalar_type()), at::zeros({}, pd_bboxes.options()));
  } else {  // CIoU of the candidate pairs only, in the mask's row-major order (one nonzero for all three
            // uses)
    overlaps = at::zeros({b, m, a}, pd_bboxes.options());
    const at::Tensor nz = cand.nonzero();  // [K,3]: image, GT, anchor
    const at::Tensor bi = nz.select(1, 0), mi = nz.select(1, 1), ai = nz.select(1, 2);
    const at::Tensor pd = pd_bboxes.index({bi, ai});  // [K,4]
    const at::Tensor gt = gt_bboxes.index({bi, mi});  // [K,4]
    overlaps.index_put_({bi, mi, ai},
                        bboxIoU(gt, pd, false, true).squeeze(-1).clamp_min(0).to(overlaps.scalar_type()));
  }
  at::Tensor align = bbox_scores.pow(opt_.alpha) * overlaps.pow(opt_.beta);

  // Top-k anchors per GT; padding GTs select nothing. An anchor picked twice by one GT (only possible through
  // the index-0 fill of padding) is dropped, as in the reference implementation.
  const int64_t k = std::min(opt_.topk, a);
  at::Tensor topk_idx = std::get<1>(align.topk(k, -1, true, true));  // [B,M,k]
  topk_idx = topk_idx.masked_fill(real.expand({b, m, k}).logical_not(), 0);
  at::Tensor count = at::zeros({b, m, a}, topk_idx.options().dtype(at::kInt));
  count.scatter_add_(-1, topk_idx, at::ones_like(topk_idx, topk_idx.options().dtype(at::kInt)));
  at::Tensor mask_pos = count.eq(1).logical_and(cand).to(pd_scores.scalar_type());  // [B,M,A]

  // One GT per anchor: where several claim it, keep the one with the highest overlap (the first on ties, as
  // argmax). Only those few anchors are looked at: their columns of overlaps, reset to one-hot.
  at::Tensor fg = mask_pos.sum(1);  // [B,A]
  if (opt_.fixed_shapes) {          // every anchor's best GT, taken where several claim it: the same argmax
    const at::Tensor one_hot = at::zeros_like(mask_pos).scatter_(1, overlaps.argmax(1, true), 1.0);
    mask_pos = at::where(fg.gt(1).unsqueeze(1), one_hot, mask_pos);
    fg = mask_pos.sum(1);
  } else if (const at::Tensor multi = fg.gt(1).nonzero(); multi.size(0) > 0) {  // [K,2]: image, anchor
    const at::Tensor bi = multi.select(1, 0), ai = multi.select(1, 1);
    const at::Tensor best = overlaps.permute({0, 2, 1}).index({bi, ai}).argmax(1);  // [K]
    mask_pos.index_put_({bi, at::indexing::Slice(), ai}, at::zeros({1}, mask_pos.options()));
    mask_pos.index_put_({bi, best, ai}, at::ones({1}, mask_pos.options()));
    fg = mask_pos.sum(1);
  }
  if (opt_.topk2 > 0) {  // each GT keeps its topk2 best-aligned positives (the one-to-one branch)
    const int64_t k2 = std::min(opt_.topk2, a);
    const at::Tensor best = std::get<1>((align * mask_pos).topk(k2, -1, true, true));  // [B,M,k2]
    mask_pos = mask_pos * at::zeros_like(mask_pos).scatter_(-1, best, 1.0);
    fg = mask_pos.sum(1);
  }
  // Each anchor now has at most one positive GT: its index is sum(m * mask), 0 where none (argmax's answer
  // for an all-zero column); exact in float for any realistic GT count.
  const at::Tensor gt_idx =
      (mask_pos * at::arange(m, mask_pos.options()).view({1, m, 1})).sum(1).to(at::kLong);  // [B,A]

  // Targets from the assigned GT.
  const at::Tensor flat_idx = gt_idx + at::arange(b, gt_idx.options()).unsqueeze(1) * m;
  out.labels = labels.flatten().index({flat_idx});            // [B,A]
  out.bboxes = gt_bboxes.reshape({-1, 4}).index({flat_idx});  // [B,A,4]
  out.fg_mask = fg.gt(0);

  // Soft scores: each positive's alignment, rescaled so that a GT's best anchor gets that GT's best IoU.
  align = align * mask_pos;
  const at::Tensor pos_align = align.amax(-1, true);  // [B,M,1]
  const at::Tensor pos_overlap = (overlaps * mask_pos).amax(-1, true);
  const at::Tensor norm = (align * pos_overlap / (pos_align + opt_.eps)).amax(1).unsqueeze(-1);  // [B,A,1]
  // one_hot(label) * fg * norm, written straight into the [B,A,nc] scores (the same products: 1 x norm or 0).
  out.scores =
      at::zeros({b, a, opt_.nc}, pd_scores.options())
          .scatter_(2, out.labels.unsqueeze(-1), norm * out.fg_mask.unsqueeze(-1).to(norm.scalar_type()));
  out.gt_index = gt_idx;
  return out;
}

}  // namespace ywb::loss
