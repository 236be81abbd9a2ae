#include "model/detect.h"

#include <cmath>

#include "model/box_decode.h"

namespace ywb::model {

DetectImpl::DetectImpl(const DetectOptions& o) : options(o) {
  const auto& ch = o.ch();
  // Hidden widths as in the published head: box max(16, ch0/4, 4*16), class max(ch0, min(nc, 100)).
  const int64_t c2 = std::max<int64_t>({16, ch[0] / 4, 4 * kRegMax});
  const int64_t c3 = std::max<int64_t>(ch[0], std::min<int64_t>(o.nc(), 100));
  torch::nn::ModuleList cv2, cv3;
  for (int64_t c : ch) box_.push_back(makeBranch(c, c2, 4 * kRegMax, cv2));
  for (int64_t c : ch) cls_.push_back(makeBranch(c, c3, o.nc(), cv3));
  register_module("cv2", cv2);
  register_module("cv3", cv3);
  dfl = register_module("dfl", DFL(kRegMax));
  initBiases();
}

DetectImpl::Branch DetectImpl::makeBranch(int64_t c_in, int64_t hidden, int64_t c_out,
                                          torch::nn::ModuleList& list) {
  Branch b;
  b.a = Conv(ConvOptions(c_in, hidden, 3));
  b.b = Conv(ConvOptions(hidden, hidden, 3));
  b.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(hidden, c_out, 1));
  list->push_back(torch::nn::Sequential(b.a, b.b, b.out));
  return b;
}

void DetectImpl::initBiases() {
  torch::NoGradGuard no_grad;
  const double nc = double(options.nc());
  for (size_t i = 0; i < box_.size(); ++i) {
    box_[i].out->bias.fill_(1.0);
    const double s = double(options.strides()[i]);
    cls_[i].out->bias.fill_(std::log(5.0 / nc / std::pow(640.0 / s, 2)));
  }
}

std::vector<at::Tensor> DetectImpl::forward(const std::vector<at::Tensor>& x) {
  std::vector<at::Tensor> out;
  out.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const at::Tensor box = box_[i].out->forward(box_[i].b->forward(box_[i].a->forward(x[i])));
    const at::Tensor cls = cls_[i].out->forward(cls_[i].b->forward(cls_[i].a->forward(x[i])));
    out.push_back(at::cat({box, cls}, 1));
  }
  return out;
}

at::Tensor DetectImpl::decode(const std::vector<at::Tensor>& raw) {
  return decodeOutputs(raw, options.strides(), options.nc(), dfl->conv->weight);
}

void DetectImpl::fuse() {
  for (auto* branches : {&box_, &cls_}) {
    for (auto& b : *branches) {
      b.a->fuse();
      b.b->fuse();
    }
  }
}

double DetectImpl::flops(const std::vector<std::pair<int64_t, int64_t>>& level_hw, bool count_bn) const {
  double total = 0;
  for (auto* branches : {&box_, &cls_}) {
    for (size_t i = 0; i < branches->size() && i < level_hw.size(); ++i) {
      const Branch& b = (*branches)[i];
      const LayerFlops a = b.a->flops(level_hw[i].first, level_hw[i].second, count_bn);
      const LayerFlops m = b.b->flops(a.out_h, a.out_w, count_bn);
      const auto& oo = b.out->options;
      total += a.flops + m.flops +
               2.0 * double(m.out_h * m.out_w) * double(oo.in_channels()) * double(oo.out_channels());
    }
  }
  return total;
}

}  // namespace ywb::model
