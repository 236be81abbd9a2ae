#include "cuda/whole_step_graph.h"

#include <exception>

#include "cuda/capture_util.h"

namespace ywb::cuda {

#if YW_WITH_CUDA
namespace {

// One captured step: the graph and the static buffers it reads and writes.
struct Captured {
  at::cuda::CUDAGraph graph;
  at::Tensor x, items;
  GroupedTargets targets;
};

GroupedTargets cloned(const GroupedTargets& t) {
  return {t.labels.clone(), t.xywh.clone(), t.mask.clone()};
}

void copyInto(GroupedTargets& dst, const GroupedTargets& src) {
  dst.labels.copy_(src.labels, /*non_blocking=*/true);
  dst.xywh.copy_(src.xywh, /*non_blocking=*/true);
  dst.mask.copy_(src.mask, /*non_blocking=*/true);
}

// Records the body on a side stream (after the work enqueued so far) without running it.
std::unique_ptr<Captured> capture(const at::Tensor& x, const GroupedTargets& t,
                                  const WholeStepGraph::Body& body) {
  auto c = std::make_unique<Captured>();
  recordOnSideStream(x.device().index(), [&] {
    c->x = x.detach().clone();  // keeps x's memory format
    c->targets = cloned(t);
    beginCapture(c->graph, {0, 0});
    c->items = body(c->x, c->targets);
    c->graph.capture_end();
  });
  return c;
}

}  // namespace
#endif

struct WholeStepGraph::Impl {
  Impl(bool c, GraphPolicyOptions o) : capture(c && YW_WITH_CUDA), policy(o) {}
  bool capture;
  GraphCapturePolicy policy;
#if YW_WITH_CUDA
  std::unique_ptr<Captured> captured;
#endif
};

WholeStepGraph::WholeStepGraph(bool capture, GraphPolicyOptions options)
    : impl_(std::make_unique<Impl>(capture, options)) {}

WholeStepGraph::~WholeStepGraph() = default;

const GraphCapturePolicy& WholeStepGraph::policy() const {
  return impl_->policy;
}

bool WholeStepGraph::capturing() const {
  return impl_->capture && !impl_->policy.disabled();
}

at::Tensor WholeStepGraph::run(const at::Tensor& x, const GroupedTargets& targets, bool autocast,
                               at::ScalarType autocast_dtype, const Body& body) {
  Impl& d = *impl_;
  if (!d.capture || !x.is_cuda()) return body(x, targets);
#if YW_WITH_CUDA
  const GraphAction a = d.policy.decide(graphKeyOf(x, autocast, autocast_dtype));
  if (a == GraphAction::Eager) return body(x, targets);
  if (a == GraphAction::Capture) {
    d.captured.reset();  // the old shape's pool goes back before the new one is captured
    try {
      d.captured = capture(x, targets, body);
      d.policy.captured();
    } catch (const c10::Error& e) {
      d.captured.reset();
      d.policy.captureFailed(e.what_without_backtrace());
      return body(x, targets);
    } catch (const std::exception& e) {
      d.captured.reset();
      d.policy.captureFailed(e.what());
      return body(x, targets);
    }
  }
  // The targets' capacity is the run's, so their shapes match the capture's; anything else runs eagerly.
  if (!d.captured || targets.mask.sizes() != d.captured->targets.mask.sizes()) return body(x, targets);
  d.captured->x.copy_(x, /*non_blocking=*/true);
  copyInto(d.captured->targets, targets);
  d.captured->graph.replay();  // a capture records without running: its first replay is this step
  return d.captured->items;
#else
  (void)autocast, (void)autocast_dtype;
  return body(x, targets);
#endif
}

}  // namespace ywb::cuda
