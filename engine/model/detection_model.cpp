#include "model/detection_model.h"

#include <torch/nn/modules/batchnorm.h>

#include <algorithm>

#include "core/error.h"
#include "model/box_decode.h"
#include "model/layer_builder.h"

namespace ywb::model {

DetectionModelImpl::DetectionModelImpl(const ModelSpec& spec) : spec_(spec) {
  if (spec_.layers.empty() || spec_.layers.back().module != "Detect")
    fail("model '", spec_.name, "': the last layer must be Detect");
  list_ = register_module("model", torch::nn::ModuleList());
  std::vector<int64_t> ch, stride;
  ModelBuildState state;
  for (const auto& row : spec_.layers) addLayer(row, &ch, &stride, &state);
  // A layer's output is kept when a layer other than the next one reads it (Ultralytics' `save` list).
  saved_.assign(spec_.layers.size(), false);
  for (const auto& row : spec_.layers)
    for (int f : row.from)
      if (f >= 0 && (f != row.index - 1 || row.from.size() > 1)) saved_[size_t(f)] = true;
}

void DetectionModelImpl::addLayer(const LayerSpec& row, std::vector<int64_t>* ch,
                                  std::vector<int64_t>* stride, ModelBuildState* state) {
  const LayerBuilder builder = findLayerBuilder(row.module);
  const std::string where = "layer " + std::to_string(row.index) + " (" + row.module + ")";
  if (!builder) fail(where, ": unknown module; supported: ", layerModuleNames());
  if (row.module == "Detect" && row.index + 1 != int(spec_.layers.size()))
    fail(where, ": Detect must be the last layer");
  std::vector<int64_t> in_ch, in_stride;
  for (int f : row.from) {
    in_ch.push_back(f < 0 ? int64_t(3) : (*ch)[size_t(f)]);
    in_stride.push_back(f < 0 ? int64_t(1) : (*stride)[size_t(f)]);
  }
  // Depth multiple: Python's round(), at least 1, only for rows repeated more than once.
  const int64_t n =
      row.repeats > 1 ? std::max<int64_t>(roundHalfEven(row.repeats * spec_.depth), 1) : row.repeats;
  LayerContext ctx(row, spec_, n, std::move(in_ch), std::move(in_stride), *state);
  BuiltLayer b = builder(ctx);
  if (row.module == "Detect") {
    detect_ = Detect(std::dynamic_pointer_cast<DetectImpl>(b.module));
    if (!detect_) fail(where, ": the builder did not make a Detect head");
  }
  LayerInfo li;
  li.index = row.index;
  li.from = row.from;
  li.from_text = row.from_text;
  li.module = row.module;
  li.repeats = int(n);
  li.channels = b.channels;
  li.stride = b.stride;
  li.args = "[";
  for (size_t i = 0; i < b.args.size(); ++i) li.args += (i ? ", " : "") + b.args[i];
  li.args += "]";
  run_.push_back(std::move(b.run));
  flops_.push_back(std::move(b.flops));
  fuse_.push_back(std::move(b.fuse));
  list_->push_back(b.module);
  layers_.push_back(b.module);
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

std::vector<at::Tensor> DetectionModelImpl::headInputs(const at::Tensor& x) {
  const int64_t smax = strides().back();
  if (x.dim() != 4 || x.size(1) != 3 || x.size(2) % smax || x.size(3) % smax)
    fail("model input must be [N,3,H,W] with H and W multiples of ", smax, ", got ", x.sizes());
  const int last = int(spec_.layers.size()) - 2;
  const auto outs = runBackbone(x, last, saved_);
  std::vector<at::Tensor> head_in;
  for (int f : spec_.layers.back().from) head_in.push_back(outs[size_t(f)]);
  return head_in;
}

std::vector<at::Tensor> DetectionModelImpl::forward(const at::Tensor& x) {
  return detect_->forward(headInputs(x));
}

HeadOutputs DetectionModelImpl::forwardHeads(const at::Tensor& x) {
  return detect_->forwardHeads(headInputs(x));
}

std::vector<at::Tensor> DetectionModelImpl::forwardInference(const at::Tensor& x, bool end2end,
                                                             std::vector<at::Tensor>* head_inputs) {
  const auto in = headInputs(x);
  if (head_inputs) *head_inputs = in;
  return end2end && this->end2end() ? detect_->forwardOne2One(in) : detect_->forward(in);
}

at::Tensor DetectionModelImpl::predict(const at::Tensor& x, std::vector<at::Tensor>* head_inputs) {
  return detect_->decode(forwardInference(x, false, head_inputs));
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

double DetectionModelImpl::trunkFlops(int64_t h, int64_t w, bool count_bn,
                                      std::vector<std::pair<int64_t, int64_t>>* levels) const {
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
  levels->clear();
  for (int f : spec_.layers.back().from) levels->push_back(hw[size_t(f)]);
  return total;
}

double DetectionModelImpl::flops(int64_t h, int64_t w, bool count_bn, bool one2one) const {
  std::vector<std::pair<int64_t, int64_t>> levels;
  const double trunk = trunkFlops(h, w, count_bn, &levels);
  return trunk + detect_->flops(levels, count_bn, one2one);
}

double DetectionModelImpl::trainingFlops(int64_t h, int64_t w) const {
  std::vector<std::pair<int64_t, int64_t>> levels;
  const double trunk = trunkFlops(h, w, false, &levels);
  return trunk + detect_->flops(levels, false, false) +
         (end2end() ? detect_->flops(levels, false, true) : 0.0);
}

void DetectionModelImpl::freezeLayers(const std::vector<int>& layers) {
  std::vector<int> sorted = layers;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (int i : sorted)
    if (i < 0 || i >= this->layers())
      fail("cannot freeze layer ", i, ": model '", spec_.name, "' has layers 0-", this->layers() - 1);
  for (int i : sorted)
    for (auto& p : layers_[size_t(i)]->parameters()) p.set_requires_grad(false);
  frozen_ = std::move(sorted);
  train(is_training());
}

void DetectionModelImpl::train(bool on) {
  torch::nn::Module::train(on);
  if (!on) return;
  for (int i : frozen_)
    for (auto& m : layers_[size_t(i)]->modules())
      if (dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.get())) m->train(false);
}

DetectionModel buildModel(const std::string& yaml_or_name, int nc, const std::string& modules) {
  return DetectionModel(loadModelSpec(yaml_or_name, nc, modules));
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
  if (!src->frozenLayers().empty()) copy->freezeLayers(src->frozenLayers());
  copy->train(src->is_training());
  return copy;
}

}  // namespace ywb::model
