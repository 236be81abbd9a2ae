#include "loss/box_iou.h"

#include <cmath>

namespace ywb::loss {

at::Tensor bboxIoU(const at::Tensor& box1, const at::Tensor& box2, bool xywh, bool ciou, double eps) {
  at::Tensor b1x1, b1y1, b1x2, b1y2, b2x1, b2y1, b2x2, b2y2, w1, h1, w2, h2;
  if (xywh) {
    const auto a = box1.split(1, -1), b = box2.split(1, -1);
    w1 = a[2];
    h1 = a[3];
    w2 = b[2];
    h2 = b[3];
    b1x1 = a[0] - w1 / 2;
    b1x2 = a[0] + w1 / 2;
    b1y1 = a[1] - h1 / 2;
    b1y2 = a[1] + h1 / 2;
    b2x1 = b[0] - w2 / 2;
    b2x2 = b[0] + w2 / 2;
    b2y1 = b[1] - h2 / 2;
    b2y2 = b[1] + h2 / 2;
    h1 = h1 + eps;
    h2 = h2 + eps;
  } else {
    const auto a = box1.split(1, -1), b = box2.split(1, -1);
    b1x1 = a[0];
    b1y1 = a[1];
    b1x2 = a[2];
    b1y2 = a[3];
    b2x1 = b[0];
    b2y1 = b[1];
    b2x2 = b[2];
    b2y2 = b[3];
    w1 = b1x2 - b1x1;
    h1 = b1y2 - b1y1 + eps;
    w2 = b2x2 - b2x1;
    h2 = b2y2 - b2y1 + eps;
  }
  const at::Tensor inter = (at::min(b1x2, b2x2) - at::max(b1x1, b2x1)).clamp_min(0) *
                           (at::min(b1y2, b2y2) - at::max(b1y1, b2y1)).clamp_min(0);
  const at::Tensor uni = w1 * h1 + w2 * h2 - inter + eps;
  const at::Tensor iou = inter / uni;
  if (!ciou) return iou;
  const at::Tensor cw = at::max(b1x2, b2x2) - at::min(b1x1, b2x1);  // enclosing box
  const at::Tensor ch = at::max(b1y2, b2y2) - at::min(b1y1, b2y1);
  const at::Tensor c2 = cw.pow(2) + ch.pow(2) + eps;
  const at::Tensor rho2 = ((b2x1 + b2x2 - b1x1 - b1x2).pow(2) + (b2y1 + b2y2 - b1y1 - b1y2).pow(2)) / 4;
  const at::Tensor v = (4.0 / (M_PI * M_PI)) * (at::atan(w2 / h2) - at::atan(w1 / h1)).pow(2);
  at::Tensor alpha;
  {
    at::NoGradGuard no_grad;
    alpha = v / (v - iou + (1.0 + eps));
  }
  return iou - (rho2 / c2 + v * alpha);
}

}  // namespace ywb::loss
