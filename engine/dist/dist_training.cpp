#include "dist/dist_training.h"

#include <torch/cuda.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/threads.h"
#include "dist/dist_context.h"
#include "dist/grad_reducer.h"
#include "dist/sync_batch_norm.h"
#include "train/train_session.h"
#include "ywb/dist.h"

namespace ywb {
namespace {

std::vector<at::Tensor> tensorsOf(torch::nn::Module& m, bool params, bool buffers) {
  std::vector<at::Tensor> out;
  if (params) {
    for (auto& p : m.parameters()) out.push_back(p);
  }
  if (buffers) {
    for (auto& b : m.buffers()) out.push_back(b);
  }
  return out;
}

std::string stepName(int epoch, int64_t batch) {
  return "training epoch " + std::to_string(epoch + 1) + " batch " + std::to_string(batch + 1);
}

}  // namespace

std::shared_ptr<DistContext> joinDistributedRun(const TrainArgs& a) {
  const DistEnv env = distEnvFromEnvironment();
  if (!env.present) {
    const int ranks = localRanksRequested(a.device, a.world);
    if (ranks > 1)
      fail("device=", a.device, " world=", a.world, " asks for ", ranks,
           " ranks, one process each, but this process was not started by a launcher (no RANK/WORLD_SIZE "
           "variables): run it with `ywb train`, which starts the ranks, or set torchrun's variables");
    return nullptr;
  }
  if (a.batch < 0) {  // each rank would size its own: the global batch must be one number, given
    fail("batch=", a.get("batch"),
         " (AutoBatch) is not supported in distributed runs: give a global batch size (as Ultralytics)");
  }
  if (a.batch < env.world) {
    fail("batch=", a.batch, " is the global batch and must be at least the world size ", env.world,
         " (each rank loads batch / world images)");
  }
  DistOptions o;
  o.env = env;
  o.timeout_s = a.dist_timeout;
  // device="" means "a GPU per rank if there are GPUs": CPU ranks otherwise.
  const int idx = a.device.empty() && !torch::cuda::is_available()
                      ? -1
                      : deviceIndexForLocalRank(a.device, env.local_rank);
  o.device = idx < 0 ? at::Device(at::kCPU) : at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(idx));
  return std::make_shared<DistContext>(o);
}

int distThreads(const TrainSession& s) {
  if (s.args.threads > 0) return s.args.threads;
  return std::max(1, availableCpus() / std::max(1, s.dist->localWorld()));
}

void distAfterSetup(TrainSession& s) {
  DistContext& d = *s.dist;
  // Rank 0's AMP decision for everyone (a rank on different hardware could disagree).
  at::Tensor amp =
      at::tensor({int64_t(s.autocast), int64_t(s.amp_dtype == at::kHalf)}, at::kLong).to(d.device());
  d.broadcast({amp}, "sharing the AMP decision");
  const bool autocast = amp[0].item<int64_t>() != 0;
  if (autocast != s.autocast)
    s.log("AMP: following rank 0's decision (" + std::string(autocast ? "on" : "off") + ")");
  s.autocast = autocast;
  if (autocast) s.amp_dtype = amp[1].item<int64_t>() != 0 ? at::kHalf : at::kBFloat16;
  d.broadcast(tensorsOf(*s.model, true, true), "the broadcast of rank 0's initial weights");
  d.broadcast(tensorsOf(*s.ema_model, true, true), "the broadcast of rank 0's EMA weights");
  s.reducer = std::make_shared<GradReducer>(d, s.model->parameters());
  if (s.args.sync_bn) {
    const int layers = enableSyncBatchNorm(*s.model, d);
    s.log("distributed: SyncBatchNorm in " + std::to_string(layers) +
          " layers (statistics of the global batch, two small all-reduces per layer and step)");
  }
  std::ostringstream os;
  os << "distributed: " << d.describe() << ", " << s.train_loader->batchesPerEpoch() << " batches of "
     << s.args.batch / d.world() << " per rank (global batch " << s.args.batch << "), gradients averaged in "
     << s.reducer->buckets() << " buckets overlapped with backward, collective timeout "
     << s.args.dist_timeout << " s";
  s.log(os.str());
  if (s.args.batch % d.world() != 0) {
    s.log("distributed: batch " + std::to_string(s.args.batch) + " is not a multiple of " +
          std::to_string(d.world()) + " ranks; each rank uses " + std::to_string(s.args.batch / d.world()));
  }
}

bool distBeforeStep(TrainSession& s, int epoch, int64_t batch) {
  DistContext& d = *s.dist;
  const std::string phase = stepName(epoch, batch);
  d.setPhase(phase);
  // One small all-reduce (max) carries every rank's stop and pause requests: a request on any rank (in
  // practice rank 0, which the GUI or `kill -USR1` talks to) stops or pauses all ranks at the same step.
  auto exchange = [&](const std::string& what, bool* pause) {
    at::Tensor flags = at::tensor({int32_t(s.stop && s.stop->load()), int32_t(s.pause && s.pause->load())},
                                  at::TensorOptions().dtype(at::kInt))
                           .to(d.device());
    d.allreduce(flags, true, what);
    const at::Tensor f = flags.to(at::kCPU);
    *pause = f[1].item<int32_t>() != 0;
    return f[0].item<int32_t>() != 0;
  };
  bool paused = false;
  if (exchange(phase + " (stop and pause requests)", &paused)) return false;
  if (paused) {
    // Paused together: the ranks keep exchanging the flags every 0.2 s, so heartbeats and the collective
    // timeout see a live job however long the pause lasts.
    s.log("paused on all " + std::to_string(d.world()) + " ranks before " + phase);
    while (paused) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      d.tick();
      if (exchange("paused before " + phase, &paused)) return false;
    }
    s.log("continuing on all " + std::to_string(d.world()) + " ranks");
    d.setPhase(phase);
  }
  d.broadcast(tensorsOf(*s.model, false, true), phase + " (BatchNorm buffers from rank 0)");
  return true;
}

void distCheckLossWeights(TrainSession& s, int epoch) {
  DistContext& d = *s.dist;
  const std::string what = "epoch " + std::to_string(epoch + 1) + "'s end-to-end loss weights";
  const at::Tensor mine = at::tensor({s.o2m.o2m()}, at::kDouble);
  const double diff = d.maxDifferenceFromMain({mine.to(d.device())}, "comparing " + what);
  if (diff != 0) {
    fail("distributed: rank ", d.rank(), " would train with ", what, " one-to-many ", s.o2m.o2m(), ", ", diff,
         " away from rank 0's; the ranks must share the epoch count (rank 0 decides it)");
  }
  std::ostringstream os;
  os << "distributed: " << what << " o2m " << s.o2m.o2m() << " / o2o " << s.o2m.o2o() << " on all "
     << d.world() << " ranks";
  s.log(os.str());
}

at::Tensor distScaleLoss(const TrainSession& s, const at::Tensor& loss) {
  return loss * double(s.dist->world());
}

void distAfterBackward(TrainSession& s, int epoch, int64_t batch) {
  s.reducer->finish("gradient all-reduce, " + stepName(epoch, batch));
}

int distEpochDecision(TrainSession& s, int epoch, int decision) {
  DistContext& d = *s.dist;
  const std::string key = "epoch-" + std::to_string(epoch + 1);
  const std::string phase = "waiting for rank 0 to validate and save epoch " + std::to_string(epoch + 1);
  if (d.isMain()) d.mainDone(key);
  d.waitForMain(key, phase);
  at::Tensor t = at::tensor({int64_t(decision), int64_t(s.epochs)}, at::kLong).to(d.device());
  d.broadcast({t}, "sharing rank 0's decision after epoch " + std::to_string(epoch + 1));
  int out = int(t[0].item<int64_t>());
  s.epochs = int(t[1].item<int64_t>());
  if (d.anyTrue(s.stop && s.stop->load(), "sharing stop requests after epoch " + std::to_string(epoch + 1)) &&
      out == 0) {
    out = 1;
  }
  return out;
}

void distFinish(TrainSession& s) {
  DistContext& d = *s.dist;
  std::vector<at::Tensor> params = tensorsOf(*s.model, true, false);
  for (auto& p : s.ema_model->parameters()) params.push_back(p);
  const double diff = d.maxDifferenceFromMain(params, "the final weight check");
  std::ostringstream os;
  os << "distributed: model and EMA parameters " << (diff == 0 ? "identical" : "DIFFER") << " on all "
     << d.world() << " ranks (max |difference| " << diff << ")";
  s.log(os.str());
  d.finish();
}

}  // namespace ywb
