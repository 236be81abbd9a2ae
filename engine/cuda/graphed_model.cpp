#include "cuda/graphed_model.h"

#include <torch/autograd.h>

#include "core/error.h"
#include "core/torch_compat.h"
#include "cuda/capture_util.h"

#if YW_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace ywb::cuda {
namespace {

// What one training forward hands out, as one list: the one-to-many maps (level order), then for an
// end-to-end head (YOLO26) the one-to-one maps (from detached features). A graph captures and replays this
// list; split() turns it back into the branches. The layout is known only here.
std::vector<at::Tensor> trainingMaps(model::DetectionModel& m, const at::Tensor& x) {
  if (!m->end2end()) return m->forward(x);
  model::HeadOutputs h = m->forwardHeads(x);
  std::vector<at::Tensor> all = std::move(h.one2many);
  all.insert(all.end(), h.one2one.begin(), h.one2one.end());
  return all;
}

model::HeadOutputs split(std::vector<at::Tensor> all, bool end2end) {
  model::HeadOutputs h;
  const size_t levels = end2end ? all.size() / 2 : all.size();
  h.one2one.assign(all.begin() + std::ptrdiff_t(levels), all.end());
  all.resize(levels);
  h.one2many = std::move(all);
  return h;
}

std::vector<at::Tensor> eagerForward(model::DetectionModel& m, const at::Tensor& x, bool autocast,
                                     at::ScalarType dt) {
  const compat::AutocastScope amp(x.device().type(), autocast, dt);
  return trainingMaps(m, x);
}

}  // namespace

#if YW_WITH_CUDA
namespace {

// Static buffers and the two graphs of one input shape.
struct Graphs {
  at::cuda::CUDAGraph fwd, bwd;
  at::Tensor static_x;
  std::vector<at::Tensor> static_out;         // the forward's outputs, with the captured autograd graph
  std::vector<at::Tensor> static_grad_out;    // filled from the real gradients before the backward replay
  std::vector<at::Tensor> static_grad_param;  // written by the backward replay (undefined: unused parameter)
};

// Autograd sees the parameters as inputs only when they come as a TensorList (a std::vector would be taken
// for a non-tensor argument, and the outputs would need no gradient).
// forward: copy the input in, replay the forward graph, hand out the outputs. backward: copy the incoming
// gradients in, replay the backward graph, return the parameters' gradients (copies: autograd may keep a
// returned tensor as .grad, and the next replay overwrites the static buffers).
struct GraphedStep : public torch::autograd::Function<GraphedStep> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Graphs* g,
                                                const at::Tensor& x, at::TensorList params) {
    (void)params;  // inputs only so that autograd routes their gradients
    ctx->saved_data["graphs"] = reinterpret_cast<int64_t>(g);
    g->static_x.copy_(x);
    g->fwd.replay();
    torch::autograd::variable_list out;
    for (const auto& o : g->static_out) out.push_back(o.detach());
    return out;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    auto* g = reinterpret_cast<Graphs*>(ctx->saved_data["graphs"].toInt());
    for (size_t i = 0; i < g->static_grad_out.size(); ++i) {
      if (i < grad_out.size() && grad_out[i].defined()) {
        g->static_grad_out[i].copy_(grad_out[i]);
      } else {
        g->static_grad_out[i].zero_();
      }
    }
    g->bwd.replay();
    torch::autograd::variable_list r;
    r.emplace_back();  // Graphs* (not a tensor)
    r.emplace_back();  // x: images need no gradient
    for (const auto& gp : g->static_grad_param) r.push_back(gp.defined() ? gp.clone() : at::Tensor());
    return r;
  }
};

std::unique_ptr<Graphs> capture(model::DetectionModel& m, const at::Tensor& x, bool autocast,
                                at::ScalarType dt, const std::vector<at::Tensor>& params) {
  auto g = std::make_unique<Graphs>();
  recordOnSideStream(x.device().index(), [&] {
    g->static_x = x.detach().clone();  // keeps x's memory format
    {
      const compat::AutocastScope amp(c10::DeviceType::CUDA, autocast, dt);
      beginCapture(g->fwd, {0, 0});
      g->static_out = trainingMaps(m, g->static_x);
      g->fwd.capture_end();
    }
    for (const auto& o : g->static_out) g->static_grad_out.push_back(at::zeros_like(o));
    beginCapture(g->bwd, g->fwd.pool());
    g->static_grad_param = torch::autograd::grad(g->static_out, params, g->static_grad_out,
                                                 /*retain_graph=*/true, /*create_graph=*/false,
                                                 /*allow_unused=*/true);
    g->bwd.capture_end();
  });
  return g;
}

}  // namespace
#endif

struct GraphedModel::Impl {
  Impl(model::DetectionModel m, GraphPolicyOptions o) : model(std::move(m)), options(o), policy(o) {}
  model::DetectionModel model;
  GraphPolicyOptions options;
  GraphCapturePolicy policy;
#if YW_WITH_CUDA
  std::unique_ptr<Graphs> graphs;
#endif
};

GraphedModel::GraphedModel(model::DetectionModel model, GraphPolicyOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), options)) {}

GraphedModel::~GraphedModel() = default;

const GraphCapturePolicy& GraphedModel::policy() const {
  return impl_->policy;
}

bool GraphedModel::available() const {
  if (!(YW_WITH_CUDA)) return false;
  const auto params = impl_->model->parameters();
  return !params.empty() && params.front().is_cuda();
}

void GraphedModel::reset() {
#if YW_WITH_CUDA
  impl_->graphs.reset();
#endif
  impl_->policy = GraphCapturePolicy(impl_->options);
}

std::vector<at::Tensor> GraphedModel::forward(const at::Tensor& x, bool autocast,
                                              at::ScalarType autocast_dtype) {
  return forwardHeads(x, autocast, autocast_dtype).one2many;
}

model::HeadOutputs GraphedModel::forwardHeads(const at::Tensor& x, bool autocast,
                                              at::ScalarType autocast_dtype) {
  return split(run(x, autocast, autocast_dtype), impl_->model->end2end());
}

std::vector<at::Tensor> GraphedModel::run(const at::Tensor& x, bool autocast, at::ScalarType autocast_dtype) {
  Impl& d = *impl_;
  if (!available() || !x.is_cuda() || !d.model->is_training()) {
    return eagerForward(d.model, x, autocast, autocast_dtype);
  }
#if YW_WITH_CUDA
  const GraphAction a = d.policy.decide(graphKeyOf(x, autocast, autocast_dtype));
  if (a == GraphAction::Eager) return eagerForward(d.model, x, autocast, autocast_dtype);
  std::vector<at::Tensor> params;
  for (const auto& p : d.model->parameters()) {
    if (p.requires_grad()) params.push_back(p);
  }
  if (a == GraphAction::Capture) {
    d.graphs.reset();  // the old shape's pool goes back before the new one is captured
    try {
      d.graphs = capture(d.model, x, autocast, autocast_dtype, params);
      d.policy.captured();
    } catch (const c10::Error& e) {
      d.graphs.reset();
      d.policy.captureFailed(e.what_without_backtrace());
      return eagerForward(d.model, x, autocast, autocast_dtype);
    }
  }
  return GraphedStep::apply(d.graphs.get(), x, at::TensorList(params));
#else
  return eagerForward(d.model, x, autocast, autocast_dtype);
#endif
}

}  // namespace ywb::cuda
