#include "model/detect.h"

#include <cmath>

#include "core/error.h"
#include "model/box_decode.h"
#include "model/dwconv.h"
#include "model/layer_builder.h"

namespace ywb::model {
namespace {

at::Tensor runBranch(DetectImpl::Branch& b, at::Tensor x) {
  for (auto& s : b.stages) x = s.second->forward(x);
  return b.out->forward(x);
}

}  // namespace

DetectImpl::DetectImpl(const DetectOptions& o) : options(o) {
  const auto& ch = o.ch();
  // Hidden widths as in the published head: box max(16, ch0/4, 4*16), class max(ch0, min(nc, 100)).
  const int64_t c2 = std::max<int64_t>({16, ch[0] / 4, 4 * kRegMax});
  const int64_t c3 = std::max<int64_t>(ch[0], std::min<int64_t>(o.nc(), 100));
  // Built in Ultralytics' order (every box branch, then every class branch; each stage before its output
  // convolution) so that a seed draws the same initial weights as Ultralytics' (test_parity_loss).
  torch::nn::ModuleList cv2, cv3;
  for (size_t i = 0; i < ch.size(); ++i) {
    const std::string lv = std::to_string(i);
    Branch box;
    box.stages = {{"cv2." + lv + ".0", Conv(ConvOptions(ch[i], c2, 3))},
                  {"cv2." + lv + ".1", Conv(ConvOptions(c2, c2, 3))}};
    box.out_name = "cv2." + lv + ".2";
    box.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(c2, 4 * kRegMax, 1));
    cv2->push_back(torch::nn::Sequential(box.stages[0].second, box.stages[1].second, box.out));
    box_.push_back(box);
  }
  for (size_t i = 0; i < ch.size(); ++i) {
    const std::string lv = std::to_string(i);
    Branch cls;
    cls.out_name = "cv3." + lv + ".2";
    if (o.legacy()) {
      cls.stages = {{"cv3." + lv + ".0", Conv(ConvOptions(ch[i], c3, 3))},
                    {"cv3." + lv + ".1", Conv(ConvOptions(c3, c3, 3))}};
      cls.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(c3, o.nc(), 1));
      cv3->push_back(torch::nn::Sequential(cls.stages[0].second, cls.stages[1].second, cls.out));
    } else {
      // DWConv is a Conv (same keys and behaviour) with groups gcd(c1, c2).
      const Conv dw1{std::shared_ptr<ConvImpl>(DWConv(DWConvOptions(ch[i], ch[i], 3)).ptr())};
      const Conv pw1(ConvOptions(ch[i], c3, 1));
      const Conv dw2{std::shared_ptr<ConvImpl>(DWConv(DWConvOptions(c3, c3, 3)).ptr())};
      const Conv pw2(ConvOptions(c3, c3, 1));
      cls.stages = {{"cv3." + lv + ".0.0", dw1},
                    {"cv3." + lv + ".0.1", pw1},
                    {"cv3." + lv + ".1.0", dw2},
                    {"cv3." + lv + ".1.1", pw2}};
      cls.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(c3, o.nc(), 1));
      // Lists, not Sequentials: only the key names matter (stages run in runBranch), and LibTorch cannot
      // nest a Sequential in a Sequential.
      cv3->push_back(
          torch::nn::ModuleList(torch::nn::ModuleList(dw1, pw1), torch::nn::ModuleList(dw2, pw2), cls.out));
    }
    cls_.push_back(cls);
  }
  register_module("cv2", cv2);
  register_module("cv3", cv3);
  dfl = register_module("dfl", DFL(kRegMax));
  initBiases();
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
  for (size_t i = 0; i < x.size(); ++i)
    out.push_back(at::cat({runBranch(box_[i], x[i]), runBranch(cls_[i], x[i])}, 1));
  return out;
}

at::Tensor DetectImpl::decode(const std::vector<at::Tensor>& raw) {
  return decodeOutputs(raw, options.strides(), options.nc(), dfl->conv->weight);
}

void DetectImpl::fuse() {
  for (auto* branches : {&box_, &cls_})
    for (auto& b : *branches)
      for (auto& s : b.stages) s.second->fuse();
}

double DetectImpl::flops(const std::vector<std::pair<int64_t, int64_t>>& level_hw, bool count_bn) const {
  double total = 0;
  for (auto* branches : {&box_, &cls_}) {
    for (size_t i = 0; i < branches->size() && i < level_hw.size(); ++i) {
      const Branch& b = (*branches)[i];
      LayerFlops f{0, level_hw[i].first, level_hw[i].second};
      for (const auto& s : b.stages) {
        const LayerFlops g = s.second->flops(f.out_h, f.out_w, count_bn);
        f = {f.flops + g.flops, g.out_h, g.out_w};
      }
      const auto& oo = b.out->options;
      total +=
          f.flops + 2.0 * double(f.out_h * f.out_w) * double(oo.in_channels()) * double(oo.out_channels());
    }
  }
  return total;
}

// YAML: Detect [nc] with one input per level. The class branch follows the model's family
// (ModelBuildState::legacy_head, set by the rows before it).
BuiltLayer buildDetectLayer(LayerContext& ctx) {
  std::vector<std::string> shown;
  for (int64_t c : ctx.ch) shown.push_back(argText(c));
  const int64_t nc = ctx.nc();
  Detect d(DetectOptions(nc, ctx.ch, ctx.stride).legacy(ctx.state.legacy_head));
  BuiltLayer b;
  b.module = d.ptr();
  b.fuse = [d]() mutable { d->fuse(); };
  b.channels = 4 * kRegMax + nc;
  b.stride = ctx.stride.back();
  std::string levels = "[";
  for (size_t i = 0; i < shown.size(); ++i) levels += (i ? ", " : "") + shown[i];
  b.args = {argText(nc), levels + "]"};
  return b;
}

}  // namespace ywb::model
