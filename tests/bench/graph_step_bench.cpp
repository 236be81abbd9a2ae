// Not a test: the CPU cost of the graph-ready optimizer step (train/graph_ready_step.h, issue 33) against the
// trainer's eager step (unscale, clip, SGD/AdamW, scaler update, EMA), on a real model with random gradients
// (docs/PERFORMANCE.md, "Graph-ready optimizer step").
//   graph_step_bench [model=yolov8n.yaml] [nc=80] [optimizer=SGD|AdamW] [scaling=1] [iters=20] [threads=2]
// Prints the median and minimum of each, interleaved. On a GPU the graph-ready step is meant to be replayed
// inside a CUDA graph, where its extra small kernels cost no launches; on a CPU it shows what the
// device-held scalars and the arithmetic skip cost in plain compute.
#include <torch/torch.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "bench_util.h"
#include "model/detection_model.h"
#include "train/grad_clip.h"
#include "train/grad_scaler.h"
#include "train/graph_ready_step.h"
#include "train/model_ema.h"
#include "train/optimizer_factory.h"

namespace {

struct Side {
  ywb::model::DetectionModel model{nullptr};
  std::unique_ptr<ywb::ModelEma> ema;
  std::unique_ptr<torch::optim::Optimizer> opt;
  std::unique_ptr<ywb::GradScaler> scaler;
};

Side makeSide(const std::string& yaml, int nc, const std::string& optimizer, bool scaling) {
  Side s;
  s.model = ywb::model::buildModel(yaml, nc);
  s.model->train();
  s.ema = std::make_unique<ywb::ModelEma>(ywb::model::buildModel(yaml, nc).ptr(), *s.model);
  ywb::OptimizerChoice c;
  c.name = optimizer;
  c.lr = 0.01;
  c.momentum = optimizer == "SGD" ? 0.937 : 0.9;
  s.opt = ywb::makeOptimizer(ywb::splitParamGroups(*s.model), c, 5e-4);
  s.scaler = std::make_unique<ywb::GradScaler>(scaling);
  return s;
}

void randomGrads(Side& s) {
  torch::NoGradGuard ng;
  for (auto& p : s.model->parameters()) {
    if (!p.grad().defined()) p.mutable_grad() = at::zeros_like(p);
    p.grad().normal_(0, 1e-3);
  }
}

void eagerStep(Side& s) {  // train_epoch.cpp's optimizerStep, single process
  s.scaler->unscale(*s.opt);
  const at::Tensor norm = ywb::clipGradNorm(s.model->parameters(), 10.0);
  const ywb::StepOutcome out = s.scaler->step(*s.opt, norm);
  s.scaler->update();
  s.opt->zero_grad();
  if (out != ywb::StepOutcome::NonFinite) s.ema->update(*s.model);
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{{"model", "yolov8n.yaml"}, {"nc", "80"},    {"optimizer", "SGD"},
                                       {"scaling", "1"},          {"iters", "20"}, {"threads", "2"}};
  if (!bench::parseArgs(argc, argv, a)) return 2;
  at::set_num_threads(std::stoi(a["threads"]));
  const int nc = std::stoi(a["nc"]);
  const bool scaling = a["scaling"] == "1";
  Side eager = makeSide(a["model"], nc, a["optimizer"], scaling);
  Side graph = makeSide(a["model"], nc, a["optimizer"], scaling);
  // one eager step each: the optimizer state exists, as before a capture
  randomGrads(eager), eagerStep(eager);
  randomGrads(graph), eagerStep(graph);
  randomGrads(graph);
  ywb::GraphReadyStep step(*graph.opt, *graph.model, *graph.ema, *graph.scaler);
  const at::Tensor loss = at::ones({});
  int64_t params = 0;
  for (const auto& p : eager.model->parameters()) params += p.numel();
  const auto t = bench::timeInterleaved({[&] {
                                           randomGrads(eager);
                                           eagerStep(eager);
                                         },
                                         [&] {
                                           randomGrads(graph);
                                           step.prepare();
                                           step.scaleLoss(loss);
                                           step.step();
                                         },
                                         [&] { randomGrads(eager); }},
                                        std::stoi(a["iters"]));
  const double fill = t[2].first;
  std::printf(
      "%s nc %d, %lld parameters, %s, loss scaling %s, %s threads; median (min) ms, gradient fill "
      "(%.1f ms) subtracted:\n",
      a["model"].c_str(), nc, (long long)params, a["optimizer"].c_str(), scaling ? "on" : "off",
      a["threads"].c_str(), fill);
  std::printf("  eager step        %7.1f (%.1f)\n", t[0].first - fill, t[0].second - t[2].second);
  std::printf("  graph-ready step  %7.1f (%.1f)\n", t[1].first - fill, t[1].second - t[2].second);
  const ywb::GraphStepCounts c = step.counts();
  std::printf("  graph-ready outcomes: %lld stepped, %lld overflow, %lld NaN/Inf\n", (long long)c.stepped,
              (long long)c.overflow, (long long)c.nonfinite);
  return 0;
}
