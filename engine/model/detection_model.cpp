#include "model/detection_model.h"

#include <torch/nn/modules/upsampling.h>

#include "core/error.h"
#include "model/box_decode.h"
#include "model/c2f.h"
#include "model/concat.h"
#include "model/sppf.h"

namespace ywb::model {
namespace {

struct ArgReader {
  const LayerSpec& row;
  std::string where() const { return "layer " + std::to_string(row.index) + " (" + row.module + ")"; }
  bool has(size_t i) const { return i < row.args.size() && row.args[i] != "None" && row.args[i] != "null"; }
  int64_t integer(size_t i, int64_t fallback, int64_t nc) const {
    if (!has(i)) return fallback;
    if (row.args[i] == "nc") return nc;
    try {
      size_t used = 0;
      const double v = std::stod(row.args[i], &used);
      if (used == row.args[i].size()) return static_cast<int64_t>(v);
    } catch (const std::exception&) {
    }
    fail(where(), ": argument ", i, " '", row.args[i], "' is not a number");
  }
  bool boolean(size_t i, bool fallback) const {
    if (!has(i)) return fallback;
    const std::string& s = row.args[i];
    if (s == "True" || s == "true" || s == "1") return true;
    if (s == "False" || s == "false" || s == "0") return false;
    fail(where(), ": argument ", i, " '", s, "' is not True/False");
  }
};

std::string joinArgs(const std::vector<std::string>& parts) {
  std::string s = "[";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s + "]";
}

std::string str(int64_t v) {
  return std::to_string(v);
}

}  // namespace

DetectionModelImpl::DetectionModelImpl(const ModelSpec& spec) : spec_(spec) {
  if (spec_.layers.empty() || spec_.layers.back().module != "Detect")
    fail("model '", spec_.name, "': the last layer must be Detect");
  list_ = register_module("model", torch::nn::ModuleList());
  std::vector<int64_t> ch, stride;
  for (const auto& row : spec_.layers) addLayer(row, &ch, &stride);
  // A layer's output is kept when a layer other than the next one reads it (Ultralytics' `save` list).
  saved_.assign(spec_.layers.size(), false);
  for (const auto& row : spec_.layers)
    for (int f : row.from)
      if (f >= 0 && (f != row.index - 1 || row.from.size() > 1)) saved_[size_t(f)] = true;
}

void DetectionModelImpl::addLayer(const LayerSpec& row, std::vector<int64_t>* ch,
                                  std::vector<int64_t>* stride) {
  const ArgReader a{row};
  const int64_t nc = spec_.nc;
  auto chOf = [&](int f) { return f < 0 ? int64_t(3) : (*ch)[size_t(f)]; };
  auto strideOf = [&](int f) { return f < 0 ? int64_t(1) : (*stride)[size_t(f)]; };
  const int f0 = row.from[0];
  LayerInfo li;
  li.index = row.index;
  li.from = row.from;
  li.from_text = row.from_text;
  li.module = row.module;
  int64_t n = row.repeats > 1 ? std::max<int64_t>(roundHalfEven(row.repeats * spec_.depth), 1) : row.repeats;
  li.repeats = int(n);
  // Output width: scaled, capped and rounded up to a multiple of 8, except when it equals nc (Ultralytics
  // leaves a classifier's output alone; kept for weight compatibility).
  auto width = [&](int64_t c2) {
    return c2 != nc ? makeDivisible(double(std::min(c2, spec_.max_channels)) * spec_.width, 8) : c2;
  };
  if (row.from.size() != 1 && row.module != "Concat" && row.module != "Detect")
    fail(a.where(), ": takes one input, got ", row.from.size());
  std::shared_ptr<torch::nn::Module> module;
  if (row.module == "Conv") {
    const int64_t c1 = chOf(f0), c2 = width(a.integer(0, 0, nc)), k = a.integer(1, 1, nc),
                  s = a.integer(2, 1, nc);
    if (a.has(3) && a.integer(3, 0, nc) != k / 2)
      fail(a.where(), ": only 'same' padding (None) is supported");
    const int64_t g = a.integer(4, 1, nc);
    if (n != 1) fail(a.where(), ": repeats > 1 is not supported for Conv");
    Conv m(ConvOptions(c1, c2, k, s).g(g));
    run_.push_back([m](const std::vector<at::Tensor>& x) mutable { return m->forward(x[0]); });
    flops_.push_back([m](int64_t h, int64_t w, bool bn) { return m->flops(h, w, bn); });
    fuse_.push_back([m]() mutable { m->fuse(); });
    module = m.ptr();
    li.channels = c2;
    li.stride = strideOf(f0) * s;
    std::vector<std::string> shown{str(c1), str(c2), str(k), str(s)};
    if (g != 1) shown.insert(shown.end(), {"None", str(g)});
    li.args = joinArgs(shown);
  } else if (row.module == "C2f") {
    const int64_t c1 = chOf(f0), c2 = width(a.integer(0, 0, nc));
    const bool shortcut = a.boolean(1, false);
    C2f m(C2fOptions(c1, c2, n).shortcut(shortcut));
    run_.push_back([m](const std::vector<at::Tensor>& x) mutable { return m->forward(x[0]); });
    flops_.push_back([m](int64_t h, int64_t w, bool bn) { return m->flops(h, w, bn); });
    fuse_.push_back([m]() mutable { m->fuse(); });
    module = m.ptr();
    li.channels = c2;
    li.stride = strideOf(f0);
    std::vector<std::string> shown{str(c1), str(c2), str(n)};
    if (a.has(1)) shown.push_back(shortcut ? "True" : "False");
    li.args = joinArgs(shown);
  } else if (row.module == "SPPF") {
    const int64_t c1 = chOf(f0), c2 = width(a.integer(0, 0, nc)), k = a.integer(1, 5, nc);
    SPPF m(SPPFOptions(c1, c2, k));
    run_.push_back([m](const std::vector<at::Tensor>& x) mutable { return m->forward(x[0]); });
    flops_.push_back([m](int64_t h, int64_t w, bool bn) { return m->flops(h, w, bn); });
    fuse_.push_back([m]() mutable { m->fuse(); });
    module = m.ptr();
    li.channels = c2;
    li.stride = strideOf(f0);
    li.args = joinArgs({str(c1), str(c2), str(k)});
  } else if (row.module == "nn.Upsample" || row.module == "Upsample") {
    if (a.has(0)) fail(a.where(), ": only scale_factor upsampling (size None) is supported");
    const int64_t factor = a.integer(1, 2, nc);
    const std::string mode = row.args.size() > 2 ? row.args[2] : "nearest";
    if (mode != "nearest") fail(a.where(), ": only 'nearest' upsampling is supported");
    torch::nn::Upsample m(torch::nn::UpsampleOptions()
                              .scale_factor(std::vector<double>{double(factor), double(factor)})
                              .mode(torch::kNearest));
    run_.push_back([m](const std::vector<at::Tensor>& x) mutable { return m->forward(x[0]); });
    flops_.push_back([factor](int64_t h, int64_t w, bool) { return LayerFlops{0, h * factor, w * factor}; });
    fuse_.push_back([] {});
    module = m.ptr();
    li.channels = chOf(f0);
    if (strideOf(f0) % factor) fail(a.where(), ": upsampling below stride 1");
    li.stride = strideOf(f0) / factor;
    li.args = joinArgs({"None", str(factor), "'nearest'"});
  } else if (row.module == "Concat") {
    const int64_t dim = a.integer(0, 1, nc);
    if (dim != 1) fail(a.where(), ": only channel concatenation (dimension 1) is supported");
    Concat m(dim);
    run_.push_back([m](const std::vector<at::Tensor>& x) mutable { return m->forward(x); });
    flops_.push_back([](int64_t h, int64_t w, bool) { return LayerFlops{0, h, w}; });
    fuse_.push_back([] {});
    module = m.ptr();
    for (int f : row.from) {
      li.channels += chOf(f);
      if (strideOf(f) != strideOf(f0)) fail(a.where(), ": concatenated inputs have different strides");
    }
    li.stride = strideOf(f0);
    li.args = joinArgs({str(dim)});
  } else if (row.module == "Detect") {
    std::vector<int64_t> chs, strides;
    std::vector<std::string> shown;
    for (int f : row.from) {
      chs.push_back(chOf(f));
      strides.push_back(strideOf(f));
      shown.push_back(str(chOf(f)));
    }
    detect_ = Detect(DetectOptions(nc, chs, strides));
    run_.push_back(nullptr);
    flops_.push_back(nullptr);
    fuse_.push_back([d = detect_]() mutable { d->fuse(); });
    module = detect_.ptr();
    li.channels = 4 * kRegMax + nc;
    li.stride = strides.back();
    li.args = "[" + str(nc) + ", " + joinArgs(shown) + "]";
  } else {
    fail(a.where(), ": unknown module; supported: Conv, C2f, SPPF, nn.Upsample, Concat, Detect");
  }
  if (row.module == "Detect" && row.index + 1 != int(spec_.layers.size()))
    fail(a.where(), ": Detect must be the last layer");
  list_->push_back(module);
  layers_.push_back(module);
  ch->push_back(li.channels);
  stride->push_back(li.stride);
  info_.push_back(std::move(li));
}

std::vector<at::Tensor> DetectionModelImpl::runBackbone(const at::Tensor& x, int last,
                                                        const std::vector<bool>& keep) {
  std::vector<at::Tensor> out(size_t(last) + 1);
  at::Tensor cur = x;
  std::vector<at::Tensor> inputs;
  for (int i = 0; i <= last; ++i) {
    const auto& from = spec_.layers[size_t(i)].from;
    inputs.clear();
    for (int f : from) inputs.push_back(f < 0 || f == i - 1 ? cur : out[size_t(f)]);
    cur = run_[size_t(i)](inputs);
    if (keep[size_t(i)]) out[size_t(i)] = cur;
  }
  return out;
}

std::vector<at::Tensor> DetectionModelImpl::forward(const at::Tensor& x) {
  const int64_t smax = strides().back();
  if (x.dim() != 4 || x.size(1) != 3 || x.size(2) % smax || x.size(3) % smax)
    fail("model input must be [N,3,H,W] with H and W multiples of ", smax, ", got ", x.sizes());
  const int last = int(spec_.layers.size()) - 2;
  const auto outs = runBackbone(x, last, saved_);
  std::vector<at::Tensor> head_in;
  for (int f : spec_.layers.back().from) head_in.push_back(outs[size_t(f)]);
  return detect_->forward(head_in);
}

at::Tensor DetectionModelImpl::predict(const at::Tensor& x) {
  return detect_->decode(forward(x));
}

std::vector<at::Tensor> DetectionModelImpl::taps(const at::Tensor& x, const std::vector<int>& layers) {
  torch::NoGradGuard no_grad;
  const int max_layer = int(spec_.layers.size()) - 2;
  int last = -1;
  std::vector<bool> keep = saved_;
  for (int l : layers) {
    if (l < 0 || l > max_layer)
      fail("feature-map layer ", l, " is out of range 0..", max_layer, " (layer ", max_layer + 1,
           " is the head)");
    keep[size_t(l)] = true;
    last = std::max(last, l);
  }
  if (last < 0) return {};
  const auto outs = runBackbone(x, last, keep);
  std::vector<at::Tensor> result;
  for (int l : layers) result.push_back(outs[size_t(l)]);
  return result;
}

void DetectionModelImpl::fuse() {
  if (fused_) return;
  for (auto& f : fuse_) f();
  fused_ = true;
}

double DetectionModelImpl::flops(int64_t h, int64_t w, bool count_bn) const {
  std::vector<std::pair<int64_t, int64_t>> hw;
  double total = 0;
  int64_t ch = h, cw = w;
  for (size_t i = 0; i + 1 < spec_.layers.size(); ++i) {
    const int f = spec_.layers[i].from[0];
    const int64_t ih = f < 0 || f == int(i) - 1 ? ch : hw[size_t(f)].first;
    const int64_t iw = f < 0 || f == int(i) - 1 ? cw : hw[size_t(f)].second;
    const LayerFlops lf = flops_[i](ih, iw, count_bn);
    total += lf.flops;
    hw.emplace_back(lf.out_h, lf.out_w);
    ch = lf.out_h;
    cw = lf.out_w;
  }
  std::vector<std::pair<int64_t, int64_t>> levels;
  for (int f : spec_.layers.back().from) levels.push_back(hw[size_t(f)]);
  return total + detect_->flops(levels, count_bn);
}

DetectionModel buildModel(const std::string& yaml_or_name, int nc) {
  return DetectionModel(loadModelSpec(yaml_or_name, nc));
}

DetectionModel cloneModel(const DetectionModel& src) {
  DetectionModel copy(src->spec());
  if (src->fused()) copy->fuse();
  torch::NoGradGuard no_grad;
  const auto sp = src->named_parameters(), sb = src->named_buffers();
  auto dp = copy->named_parameters(), db = copy->named_buffers();
  for (const auto& kv : sp) {
    at::Tensor& d = dp[kv.key()];
    d.set_data(kv.value().detach().clone());
    d.set_requires_grad(kv.value().requires_grad());
  }
  for (const auto& kv : sb) db[kv.key()].set_data(kv.value().detach().clone());
  copy->train(src->is_training());
  return copy;
}

}  // namespace ywb::model
