#include "loss/tal_assigner.h"

#include "loss/box_iou.h"

namespace ywb::loss {

at::Tensor TaskAlignedAssigner::candidatesInGts(const at::Tensor& anchors, const at::Tensor& gt_bboxes,
                                                double eps) {
  const at::Tensor xy = anchors.view({1, 1, -1, 2});
  const at::Tensor lt = gt_bboxes.slice(-1, 0, 2).unsqueeze(2);  // [B,M,1,2]
  const at::Tensor rb = gt_bboxes.slice(-1, 2, 4).unsqueeze(2);
  return at::cat({xy - lt, rb - xy}, -1).amin(-1).gt(eps);
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
  const at::Tensor real = mask_gt.to(at::kBool);                                        // [B,M,1]
  const at::Tensor in_gts = candidatesInGts(anchors, gt_bboxes, opt_.eps);              // [B,M,A]
  const at::Tensor cand = in_gts.logical_and(real);                                     // [B,M,A]
  const at::Tensor labels = gt_labels.to(at::kLong).squeeze(-1).clamp(0, opt_.nc - 1);  // [B,M]

  // Alignment metric on the candidates: predicted score of the GT's class ^ alpha * CIoU ^ beta.
  const at::Tensor scores = pd_scores.transpose(1, 2).gather(1, labels.unsqueeze(-1).expand({b, m, a}));
  const at::Tensor bbox_scores = at::where(cand, scores, at::zeros_like(scores));
  at::Tensor overlaps = at::zeros({b, m, a}, pd_bboxes.options());
  {
    const at::Tensor pd = pd_bboxes.unsqueeze(1).expand({b, m, a, 4}).index({cand});
    const at::Tensor gt = gt_bboxes.unsqueeze(2).expand({b, m, a, 4}).index({cand});
    overlaps.index_put_({cand},
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

  // One GT per anchor: where several claim it, keep the one with the highest overlap.
  at::Tensor fg = mask_pos.sum(1);  // [B,A]
  const at::Tensor multi = fg.gt(1).unsqueeze(1).expand({b, m, a});
  const at::Tensor best = at::zeros_like(mask_pos).scatter_(1, overlaps.argmax(1, true), 1.0);
  mask_pos = at::where(multi, best, mask_pos);
  fg = mask_pos.sum(1);
  const at::Tensor gt_idx = mask_pos.argmax(1);  // [B,A]

  // Targets from the assigned GT.
  const at::Tensor flat_idx = gt_idx + at::arange(b, gt_idx.options()).unsqueeze(1) * m;
  out.labels = labels.flatten().index({flat_idx});            // [B,A]
  out.bboxes = gt_bboxes.reshape({-1, 4}).index({flat_idx});  // [B,A,4]
  out.fg_mask = fg.gt(0);
  at::Tensor one_hot = at::zeros({b, a, opt_.nc}, pd_scores.options());
  one_hot.scatter_(2, out.labels.unsqueeze(-1), 1.0);
  one_hot = one_hot * out.fg_mask.unsqueeze(-1).to(one_hot.scalar_type());

  // Soft scores: each positive's alignment, rescaled so that a GT's best anchor gets that GT's best IoU.
  align = align * mask_pos;
  const at::Tensor pos_align = align.amax(-1, true);  // [B,M,1]
  const at::Tensor pos_overlap = (overlaps * mask_pos).amax(-1, true);
  const at::Tensor norm = (align * pos_overlap / (pos_align + opt_.eps)).amax(1).unsqueeze(-1);  // [B,A,1]
  out.scores = one_hot * norm;
  out.gt_index = gt_idx;
  return out;
}

}  // namespace ywb::loss
