// One training epoch (warmup, autocast, loss scaling, accumulation, clipping, EMA); checkpoints are saved by
// save_checkpoints.cpp.
#include <torch/cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <thread>

#include "core/error.h"
#include "core/torch_compat.h"
#include "cuda/cuda_runtime.h"
#include "data/grouped_targets.h"
#include "dist/dist_context.h"
#include "dist/dist_training.h"
#include "sys/host_info.h"
#include "train/grad_clip.h"
#include "train/lr_schedule.h"
#include "train/run_plots.h"
#include "train/train_session.h"

namespace ywb {
namespace {

// The end of the run's first training step (issue 33's start-up figure): from the process's start (the
// operating system's record of it) and from the run's. On a GPU the step is waited for first, so the figure
// includes the kernels themselves, not only their launch.
void noteFirstStep(TrainSession& s) {
  if (s.device.is_cuda()) torch::cuda::synchronize(s.device.index());
  s.first_step_s = processAgeSeconds();
  s.first_step_run_s = s.timing.wall();
  char line[160];
  std::snprintf(line, sizeof(line),
                "first training step done %.2f s into the run, %.2f s after the process started",
                s.first_step_run_s, s.first_step_s);
  s.log(line);
}

using Clock = std::chrono::steady_clock;

// The graph-ready step (graph_step=true) from the eager objects, once their optimizer state exists
// and right after an optimizer step (so no loss is pending in the eager scaler). A parameter whose gradient
// LibTorch has not allocated yet gets zeros: the same state, held where the graph-ready step can see it.
void startGraphStep(TrainSession& s) {
  torch::NoGradGuard no_grad;
  for (auto& g : s.optimizer->param_groups())
    for (auto& p : g.params())
      if (!p.grad().defined()) p.mutable_grad() = at::zeros_like(p);
  s.graph_step = std::make_unique<GraphReadyStep>(*s.optimizer, *s.model, *s.ema, *s.scaler);
  s.graph_counts = {};
  // With accumulate 1 the whole step is one body, captured as one CUDA graph when cuda_graphs is on there.
  if (s.whole_step)
    s.whole_graph = std::make_unique<cuda::WholeStepGraph>(s.args.cuda_graphs && s.device.is_cuda());
}

// The graph-ready step's outcome: its counts read back (the stand-in reads them every step; a captured
// graph's run would read them when it logs).
StepOutcome graphOutcome(TrainSession& s) {
  const GraphStepCounts c = s.graph_step->counts();
  const StepOutcome out = c.nonfinite > s.graph_counts.nonfinite ? StepOutcome::NonFinite
                          : c.overflow > s.graph_counts.overflow ? StepOutcome::Overflow
                                                                 : StepOutcome::Stepped;
  s.graph_counts = c;
  if (StepProfiler* prof = s.hooks->profiler()) prof->mark(StepSegment::Optimizer);  // EMA included
  return out;
}

StepOutcome graphStep(TrainSession& s) {
  s.graph_step->prepare();
  s.graph_step->step();
  return graphOutcome(s);
}

// The whole step as one body (graph_step=true, accumulate 1): the model's forward (eager, under autocast:
// CUDA graphs of the forward alone would nest in this capture), the graph-ready loss, the scaled backward and
// the graph-ready update, captured and replayed as one CUDA graph where that is on. Returns the loss items.
at::Tensor wholeStep(TrainSession& s, const at::Tensor& x, const GroupedTargets& targets) {
  s.graph_step->prepare();  // on the host, before the replay
  const double o2m = s.o2m.o2m();
  return s.whole_graph->run(x, targets, s.autocast, s.amp_dtype,
                            [&s, o2m](const at::Tensor& xi, const GroupedTargets& ti) {
                              model::HeadOutputs heads;
                              {
                                const compat::AutocastScope amp(xi.device().type(), s.autocast, s.amp_dtype);
                                if (s.loss->endToEnd())
                                  heads = s.model->forwardHeads(xi);
                                else
                                  heads.one2many = s.model->forward(xi);
                              }
                              const loss::LossResult r = (*s.graph_loss)(heads, ti, o2m);
                              s.graph_step->scaleLoss(r.total).backward();
                              s.graph_step->step();
                              return r.items;
                            });
}

// The forward, the loss and the scaled backward of the step as separate parts (every run but a whole-step
// one). Returns the loss items.
at::Tensor forwardBackward(TrainSession& s, const at::Tensor& x, const GroupedTargets& targets, int epoch,
                           int64_t i) {
  StepProfiler* prof = s.hooks->profiler();
  // graphed when cuda_graphs; autocast inside; the loss casts the head outputs to fp32 once
  model::HeadOutputs heads;
  if (s.loss->endToEnd()) {
    // An end-to-end head (YOLO26) trains both branches (graphed together when cuda_graphs).
    heads = s.accel->forwardHeads(x, s.autocast, s.amp_dtype);
  } else {
    heads.one2many = s.accel->forward(x, s.autocast, s.amp_dtype);
  }
  if (prof) prof->mark(StepSegment::Forward);
  // An end-to-end model's branches weighted by this epoch's o2m (items: the one-to-one branch's, as
  // Ultralytics logs them).
  const loss::LossResult lr = (s.graph_loss ? *s.graph_loss : *s.loss)(heads, targets, s.o2m.o2m());
  if (prof) prof->mark(StepSegment::Loss);
  if (s.graph_step)
    s.graph_step->scaleLoss(lr.total).backward();
  else
    s.scaler->scale(s.dist ? distScaleLoss(s, lr.total) : lr.total).backward();
  if (s.dist) distAfterBackward(s, epoch, i);
  if (prof) prof->mark(StepSegment::Backward);
  return lr.items;
}

StepOutcome optimizerStep(TrainSession& s) {
  if (s.graph_step) return graphStep(s);
  s.scaler->unscale(*s.optimizer);
  // no host sync here (LibTorch's version returns a double); the scaler reads its finiteness once
  const at::Tensor grad_norm = clipGradNorm(s.model->parameters(), 10.0);
  std::function<bool(bool)> agree;  // every rank must skip the same steps
  if (s.dist) agree = [&s](bool bad) { return s.dist->anyTrue(bad, "sharing NaN/Inf loss flags"); };
  const StepOutcome out = s.scaler->step(*s.optimizer, grad_norm, agree);
  s.scaler->update();
  s.optimizer->zero_grad();  // a skipped step's gradients are dropped here
  StepProfiler* prof = s.hooks->profiler();
  if (prof) prof->mark(StepSegment::Optimizer);
  if (out !=
      StepOutcome::NonFinite) {  // an fp16 overflow still updates the EMA (as Ultralytics); NaN/Inf not
    const RunTiming::Scope timed(&s.timing, RunSegment::Ema);
    s.ema->update(*s.model);
  }
  if (prof) prof->mark(StepSegment::Ema);
  return out;
}

void applyWarmup(TrainSession& s, int64_t ni, int epoch) {
  if (s.warmup_iters <= 0 || ni > s.warmup_iters) return;
  const TrainArgs& a = s.args;
  s.accumulate = accumulateSteps(a.nbs, a.batch, ni, s.warmup_iters);
  const double target = s.initial_lr * lrFactor(epoch, s.epochs, a.lrf, a.cos_lr);
  for (size_t j = 0; j < s.optimizer->param_groups().size(); ++j) {
    // Biases fall from warmup_bias_lr, the others rise from 0, to the group's own target (MuSGD's class
    // branches: 3x the schedule's).
    const double group_target = target * groupLrScale(*s.optimizer, j);
    setGroupLr(
        *s.optimizer, j,
        warmupLr(isBiasGroup(*s.optimizer, j) ? 0 : 1, ni, s.warmup_iters, s.warmup_bias_lr, group_target));
    // Towards the `momentum` argument, also when `auto` chose SGD with 0.9: Ultralytics warms up to
    // args.momentum, so such a run trains with 0.937 after warmup (docs/PARITY.md).
    setGroupMomentum(*s.optimizer, j,
                     interp(double(ni), 0, double(s.warmup_iters), a.warmup_momentum, a.momentum));
  }
}

bool waitWhilePaused(const TrainSession& s) {
  while (s.pause && s.pause->load()) {
    if (s.stop && s.stop->load()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !(s.stop && s.stop->load());
}

bool trainEpochSteps(TrainSession& s, int epoch, double tloss[3], double lr_out[3]) {
  const int64_t nb = int64_t(s.train_loader->batchesPerEpoch());
  s.model->train();
  s.accel->startEpoch(epoch);  // the loader's epoch; on CUDA also the side-stream prefetch
  at::Tensor mean_loss = at::zeros({3}, at::TensorOptions().device(s.device));
  at::Tensor finite_batches = at::zeros({}, at::TensorOptions().device(s.device));  // in mean_loss
  const int log_every = s.device.is_cuda() ? 10 : 1;  // every .item() is a device sync
  Batch batch;
  int64_t i = 0;
  bool in_warmup = false;
  for (; s.accel->next(batch); ++i) {
    // The epoch's last batch is in hand: the validation images load while its step runs (on a GPU the
    // cores are free then; 0.14 s per validation of 128 images at 640 on an H200 went to waiting for
    // them). runValidation's startEpoch keeps that epoch: identical batches either way.
    if (i + 1 == nb && s.validatesAfter(epoch) && s.val_loader) s.val_loader->prefetchEpoch(0);
    if (s.dist) {
      if (!distBeforeStep(s, epoch, i)) return false;  // stop and pause agreed by all ranks
    } else if (!waitWhilePaused(s)) {
      return false;
    }
    const auto t0 = Clock::now();
    const double ema_before = s.timing.seconds(RunSegment::Ema);
    s.timing.add(RunSegment::DataWait, batch.wait_seconds);
    StepProfiler* prof = s.hooks->profiler();
    if (prof) prof->beginStep(batch.wait_seconds);
    const int64_t ni = i + nb * epoch;
    const bool warm = s.warmup_iters > 0 && ni <= s.warmup_iters;
    if (warm != in_warmup || i == 0) {
      in_warmup = warm;
      s.phase(warm ? TrainPhase::Warmup : TrainPhase::Training,
              "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(s.epochs));
    }
    applyWarmup(s, ni, epoch);
    if (s.args.graph_step && s.graph_loss && !s.graph_step && ni - 1 == s.last_opt_step &&
        !s.optimizer->state().empty())
      startGraphStep(s);
    s.hooks->beforeStep(batch.images.size(0));
    if (!s.nonfinite.windowOpen()) s.nonfinite.beginWindow(*s.model, epoch, i);
    at::Tensor x = batch.images.to(s.device, /*non_blocking=*/true).to(at::kFloat).div_(255.0);
    if (s.hooks->poisonBatch()) x.fill_(std::numeric_limits<float>::quiet_NaN());  // test hook
    if (s.multi_scale) x = s.multi_scale->apply(x, ni);  // the size drawn for this step (multi_scale)
    if (s.args.channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    // grouped by the loader on the host: the loss needs no device-to-host read of the targets
    // (the graph-ready loss: padded to the run's capacity, so that every batch has the same shapes)
    const GroupedTargets targets =
        (s.graph_loss ? padGroupedTargets(batch.grouped, s.target_capacity) : batch.grouped)
            .to(s.device, /*non_blocking=*/true);
    if (prof) prof->mark(StepSegment::Transfer);
    const bool whole = s.whole_graph != nullptr;
    const at::Tensor step_items = whole ? wholeStep(s, x, targets) : forwardBackward(s, x, targets, epoch, i);
    if (ni - s.last_opt_step >= s.accumulate) {
      const StepOutcome out = whole ? graphOutcome(s) : optimizerStep(s);
      s.last_opt_step = ni;
      if (out == StepOutcome::NonFinite)
        s.nonfinite.skipped(*s.model, epoch, i);
      else
        s.nonfinite.closeWindow(out == StepOutcome::Stepped);
    }
    {  // running mean over the batches with a finite loss (no host sync; the same arithmetic as Ultralytics')
      const at::Tensor items = step_items.to(s.device);
      const at::Tensor ok = items.isfinite().all();
      mean_loss = at::where(ok, (mean_loss * finite_batches + items) / (finite_batches + 1), mean_loss);
      finite_batches = finite_batches + ok;
    }
    const auto t_step = Clock::now();
    const double step_s = std::chrono::duration<double>(t_step - t0).count();
    s.timing.add(RunSegment::Step, step_s - (s.timing.seconds(RunSegment::Ema) - ema_before));
    s.train_seconds += step_s + batch.wait_seconds;
    if (s.first_step_s < 0) noteFirstStep(s);
    if (s.args.plots && s.isMain() && plotsTrainBatch(s, ni, nb)) plotTrainBatch(s, batch, ni);
    s.images_trained += batch.images.size(0) * s.distWorld();
    if (s.observer && (i % log_every == 0 || i + 1 == nb)) {
      StepMetrics m;
      m.epoch = epoch;
      m.epochs = s.epochs;
      m.batch = i;
      m.batches = nb;
      m.iteration = ni;
      at::Tensor l = mean_loss.to(at::kCPU);
      m.box = l[0].item<double>();
      m.cls = l[1].item<double>();
      m.dfl = l[2].item<double>();
      const auto reported = reportedGroups(*s.optimizer);
      for (size_t j = 0; j < 3; ++j) m.lr[j] = groupLr(*s.optimizer, reported[j]);
      m.images_per_s =
          double(batch.images.size(0) * s.distWorld()) / std::max(1e-9, step_s + batch.wait_seconds);
      m.data_wait_s = batch.wait_seconds;
      m.compute_s = step_s;
      m.instances = int(batch.targets.size(0));
      // The tensor allocator (the GUI's Memory chart, train.log's mem column); nothing to read on a CPU. Its
      // pool and the tensors' peak, both the largest since the last report: between steps the tensors in use
      // are only the weights and optimizer state (0.3 GiB on an H200 while the step peaks at gigabytes; third
      // GPU run), and the pool can shrink within a step (cuDNN's autotuner empties the cache after timing a
      // new shape: at the first step the pool then read 158 MiB under a 173 MiB peak; fourth GPU run).
      if (s.device.is_cuda()) {
        const int gpu = std::max<int>(0, s.device.index());
        if (const auto a = cuda::allocatorStats(gpu)) {
          m.device_mem = a->peak_reserved;
          m.device_mem_peak = a->peak_allocated;
          cuda::resetPeakStats(gpu);
        }
      }
      m.imgsz = int(x.size(3));  // the batch's size, as Ultralytics shows it (multi_scale draws it)
      m.elapsed_s = s.elapsed();
      const double per_batch = s.train_seconds / double(std::max<int64_t>(1, ni + 1 - nb * s.start_epoch));
      m.eta_s = per_batch * double(nb * s.epochs - ni - 1);
      m.end2end = s.loss->endToEnd();
      m.o2m = s.o2m.o2m();
      m.reg_max = int(s.model->regMax());
      s.observer->onStep(m);
    }
    if (prof) {
      prof->mark(StepSegment::Log);
      prof->endStep(batch.images.size(0));
    }
    s.timing.add(RunSegment::Logging, std::chrono::duration<double>(Clock::now() - t_step).count());
    if (s.after_step) s.after_step();
    if (s.nonfinite.burst()) return false;                  // the trainer rolls back or stops
    if (!s.dist && s.stop && s.stop->load()) return false;  // distributed: agreed at the next step
    if (s.hooks->afterStep()) break;                        // e.g. a benchmark has run its steps
  }
  at::Tensor l = mean_loss.to(at::kCPU);
  const bool none_finite = i > 0 && finite_batches.item<float>() == 0;  // every batch NaN/Inf: say so
  for (int k = 0; k < 3; ++k) {
    tloss[k] = none_finite ? std::numeric_limits<double>::quiet_NaN() : l[k].item<double>();
    lr_out[k] = groupLr(*s.optimizer, reportedGroups(*s.optimizer)[size_t(k)]);
  }
  return true;
}

}  // namespace

bool trainEpoch(TrainSession& s, int epoch, double tloss[3], double lr_out[3]) {
  bool complete = false;
  try {
    complete = trainEpochSteps(s, epoch, tloss, lr_out);
  } catch (...) {
    s.whole_graph.reset();
    s.graph_step.reset();
    throw;
  }
  // The graph-ready step lives within an epoch: its device-held counters go back into the eager objects here,
  // before a checkpoint, a rollback or validation reads them; the next epoch makes a new one.
  if (s.graph_step) s.graph_step->syncBack(*s.optimizer, *s.ema, *s.scaler);
  if (s.whole_graph && s.whole_graph->capturing()) {
    const cuda::GraphCapturePolicy& p = s.whole_graph->policy();
    s.log("whole-step CUDA graph, epoch " + std::to_string(epoch + 1) + ": " + std::to_string(p.captures()) +
          " capture(s), " + std::to_string(p.replays()) + " replays, " + std::to_string(p.eagerSteps()) +
          " eager steps");
  } else if (s.whole_graph && s.whole_graph->policy().disabled()) {
    s.log("whole-step CUDA graph off: " + s.whole_graph->policy().note() + "; training runs eagerly");
  }
  s.whole_graph.reset();  // it holds the graph-ready step's tensors: dropped first
  s.graph_step.reset();
  return complete;
}

void prefetchNextEpoch(TrainSession& s, int epoch) {
  // Ultralytics' loader workers run on into the next epoch the same way. Mosaic closes and the shuffle
  // order resets at closeMosaicEpoch(), as the trainer's loop sets them when the epoch comes; should they
  // differ by then (an epoch count changed by time=), DataLoader::startEpoch plans the epoch again.
  if (epoch + 1 >= s.epochs || (s.stop && s.stop->load())) return;
  s.train_loader->prefetchEpoch(epoch + 1, !s.mosaicClosedIn(epoch + 1), s.closeMosaicEpoch());
}

}  // namespace ywb
