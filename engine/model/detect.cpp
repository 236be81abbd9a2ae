#include "model/detect.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <initializer_list>

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
  if (o.reg_max() < 1) fail("Detect: reg_max must be >= 1, got ", o.reg_max());
  addBranches("cv2", "cv3", &box_, &cls_);
  if (o.reg_max() > 1) dfl = register_module("dfl", DFL(o.reg_max()));
  if (o.end2end()) {
    // Ultralytics deep-copies the one-to-many branches: the copies start equal and draw no random numbers
    // (so a seed keeps giving its initial weights). Ours are built, then overwritten, then the draws undone.
    const at::Generator& gen = at::detail::getDefaultCPUGenerator();
    const at::Tensor rng = gen.get_state();
    addBranches("one2one_cv2", "one2one_cv3", &o2o_box_, &o2o_cls_);
    at::Generator(gen).set_state(rng);
    torch::NoGradGuard no_grad;
    const auto src = named_parameters(), src_b = named_buffers();
    for (auto& p : named_parameters()) {
      if (p.key().rfind("one2one_", 0) == 0) p.value().copy_(src[p.key().substr(8)]);
    }
    for (auto& b : named_buffers()) {
      if (b.key().rfind("one2one_", 0) == 0) b.value().copy_(src_b[b.key().substr(8)]);
    }
  }
  initBiases();
}

void DetectImpl::addBranches(const std::string& box_name, const std::string& cls_name,
                             std::vector<Branch>* box_out, std::vector<Branch>* cls_out) {
  const DetectOptions& o = options;
  const auto& ch = o.ch();
  const int64_t reg = o.reg_max();
  // Hidden widths as in the published head: box max(16, ch0/4, 4*reg_max), class max(ch0, min(nc, 100)).
  const int64_t c2 = std::max<int64_t>({16, ch[0] / 4, 4 * reg});
  const int64_t c3 = std::max<int64_t>(ch[0], std::min<int64_t>(o.nc(), 100));
  // Built in Ultralytics' order (every box branch, then every class branch; each stage before its output
  // convolution) so that a seed draws the same initial weights as Ultralytics' (test_parity_loss).
  torch::nn::ModuleList cv2, cv3;
  for (size_t i = 0; i < ch.size(); ++i) {
    const std::string lv = box_name + "." + std::to_string(i);
    Branch box;
    box.stages = {{lv + ".0", Conv(ConvOptions(ch[i], c2, 3))}, {lv + ".1", Conv(ConvOptions(c2, c2, 3))}};
    box.out_name = lv + ".2";
    box.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(c2, 4 * reg, 1));
    cv2->push_back(torch::nn::Sequential(box.stages[0].second, box.stages[1].second, box.out));
    box_out->push_back(box);
  }
  for (size_t i = 0; i < ch.size(); ++i) {
    const std::string lv = cls_name + "." + std::to_string(i);
    Branch cls;
    cls.out_name = lv + ".2";
    if (o.legacy()) {
      cls.stages = {{lv + ".0", Conv(ConvOptions(ch[i], c3, 3))}, {lv + ".1", Conv(ConvOptions(c3, c3, 3))}};
      cls.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(c3, o.nc(), 1));
      cv3->push_back(torch::nn::Sequential(cls.stages[0].second, cls.stages[1].second, cls.out));
    } else {
      // DWConv is a Conv (same keys and behaviour) with groups gcd(c1, c2).
      const Conv dw1{std::shared_ptr<ConvImpl>(DWConv(DWConvOptions(ch[i], ch[i], 3)).ptr())};
      const Conv pw1(ConvOptions(ch[i], c3, 1));
      const Conv dw2{std::shared_ptr<ConvImpl>(DWConv(DWConvOptions(c3, c3, 3)).ptr())};
      const Conv pw2(ConvOptions(c3, c3, 1));
      cls.stages = {{lv + ".0.0", dw1}, {lv + ".0.1", pw1}, {lv + ".1.0", dw2}, {lv + ".1.1", pw2}};
      cls.out = torch::nn::Conv2d(torch::nn::Conv2dOptions(c3, o.nc(), 1));
      // Lists, not Sequentials: only the key names matter (stages run in runBranch), and LibTorch cannot
      // nest a Sequential in a Sequential.
      cv3->push_back(
          torch::nn::ModuleList(torch::nn::ModuleList(dw1, pw1), torch::nn::ModuleList(dw2, pw2), cls.out));
    }
    cls_out->push_back(cls);
  }
  register_module(box_name, cv2);
  register_module(cls_name, cv3);
}

void DetectImpl::initBiases() {
  torch::NoGradGuard no_grad;
  const double nc = double(options.nc());
  for (auto* branches : {&box_, &o2o_box_})
    for (auto& b : *branches) b.out->bias.fill_(options.box_bias());
  for (auto* branches : {&cls_, &o2o_cls_}) {
    for (size_t i = 0; i < branches->size(); ++i) {
      const double s = double(options.strides()[i]);
      (*branches)[i].out->bias.fill_(std::log(5.0 / nc / std::pow(640.0 / s, 2)));
    }
  }
}

std::vector<at::Tensor> DetectImpl::run(std::vector<Branch>& box, std::vector<Branch>& cls,
                                        const std::vector<at::Tensor>& x, bool detach) {
  if (box.empty()) fail("Detect: this head has no one-to-one branches (not end2end)");
  std::vector<at::Tensor> out;
  out.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const at::Tensor xi = detach ? x[i].detach() : x[i];
    out.push_back(at::cat({runBranch(box[i], xi), runBranch(cls[i], xi)}, 1));
  }
  return out;
}

std::vector<at::Tensor> DetectImpl::forward(const std::vector<at::Tensor>& x) {
  return run(box_, cls_, x, false);
}

std::vector<at::Tensor> DetectImpl::forwardOne2One(const std::vector<at::Tensor>& x) {
  return run(o2o_box_, o2o_cls_, x, false);
}

HeadOutputs DetectImpl::forwardHeads(const std::vector<at::Tensor>& x) {
  HeadOutputs h;
  h.one2many = forward(x);
  if (options.end2end()) h.one2one = run(o2o_box_, o2o_cls_, x, /*detach=*/true);
  return h;
}

at::Tensor DetectImpl::decode(const std::vector<at::Tensor>& raw) {
  return decodeOutputs(raw, options.strides(), options.nc(), dfl ? dfl->conv->weight : at::Tensor(),
                       options.reg_max());
}

int64_t DetectImpl::one2manyParameterCount() const {
  int64_t n = 0;
  for (const auto& p : named_parameters())
    if (p.key().rfind("cv2.", 0) == 0 || p.key().rfind("cv3.", 0) == 0) n += p.value().numel();
  return n;
}

void DetectImpl::fuse() {
  for (auto* branches : {&box_, &cls_, &o2o_box_, &o2o_cls_})
    for (auto& b : *branches)
      for (auto& s : b.stages) s.second->fuse();
}

double DetectImpl::flops(const std::vector<std::pair<int64_t, int64_t>>& level_hw, bool count_bn,
                         bool one2one) const {
  double total = 0;
  const std::vector<const std::vector<Branch>*> heads =
      one2one ? std::vector<const std::vector<Branch>*>{&o2o_box_, &o2o_cls_}
              : std::vector<const std::vector<Branch>*>{&box_, &cls_};
  for (const auto* branches : heads) {
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
// (ModelBuildState::legacy_head, set by the rows before it); reg_max and end2end are the YAML's top-level
// keys and the box bias the model's module form.
BuiltLayer buildDetectLayer(LayerContext& ctx) {
  std::vector<std::string> shown;
  for (int64_t c : ctx.ch) shown.push_back(argText(c));
  const int64_t nc = ctx.nc();
  ctx.requireArgsAtMost(1, "nc");
  Detect d(DetectOptions(nc, ctx.ch, ctx.stride)
               .legacy(ctx.state.legacy_head)
               .reg_max(ctx.spec.reg_max)
               .end2end(ctx.spec.end2end)
               .box_bias(ctx.spec.boxBiasInit()));
  BuiltLayer b;
  b.module = d.ptr();
  b.fuse = [d]() mutable { d->fuse(); };
  b.channels = 4 * ctx.spec.reg_max + nc;
  b.stride = ctx.stride.back();
  std::string levels = "[";
  for (size_t i = 0; i < shown.size(); ++i) levels += (i ? ", " : "") + shown[i];
  b.args = {argText(nc), levels + "]"};
  return b;
}

}  // namespace ywb::model
