// The trainer's distributed steps, kept out of engine/train so the single-process trainer stays readable:
// each function is called from one narrow hook guarded by `if (s.dist)`.
// Ultralytics' DDP conventions: `batch` is global (each rank loads batch / world images; accumulate and
// weight decay use the global batch), each rank's loss is multiplied by the world size before the
// averaging all-reduce (so the step equals one process with the full batch for per-image losses), rank 0
// validates, writes results.csv and checkpoints and reports to the observer while the others wait.
// Thread rules: trainer thread only.
#pragma once
#include <ATen/ATen.h>

#include <memory>

#include "ywb/train_args.h"

namespace ywb {

class DistContext;
struct TrainSession;

/// Joins the job when torchrun's variables are set (RANK, WORLD_SIZE, ...); nullptr for a single-process
/// run. Throws ywb::Error for arguments distributed training cannot honour (batch < world).
std::shared_ptr<DistContext> joinDistributedRun(const TrainArgs& args);
/// LibTorch threads for one rank: `threads`, or the available CPUs shared by the ranks on this machine.
int distThreads(const TrainSession& s);
/// After the AMP check: rank 0's weights, buffers (model and EMA) and AMP decision go to every rank; the
/// gradient reducer is installed.
void distAfterSetup(TrainSession& s);
/// At the start of a training step: marks progress, agrees on stop requests (false: all ranks stop now)
/// and pause requests (all ranks wait here together until no rank asks for the pause), and broadcasts rank
/// 0's buffers (BatchNorm statistics), as DistributedDataParallel does.
bool distBeforeStep(TrainSession& s, int epoch, int64_t batch);
/// At the start of an epoch of an end-to-end model (YOLO26): checks that every rank trains it with rank 0's
/// branch weights (O2mSchedule: a function of the epoch and the epoch count, which rank 0 decides) and logs
/// them; throws ywb::Error on a rank whose weight differs (its gradients would not be the ones averaged).
void distCheckLossWeights(TrainSession& s, int epoch);
/// The loss this rank back-propagates (Ultralytics multiplies by the world size).
at::Tensor distScaleLoss(const TrainSession& s, const at::Tensor& loss);
/// After backward: waits for the bucketed all-reduce and leaves averaged gradients in `.grad`.
void distAfterBackward(TrainSession& s, int epoch, int64_t batch);
/// End of an epoch: ranks > 0 wait for rank 0 to validate and save, then everyone takes rank 0's
/// decision (0 continue, 1 user stop, 2 patience, 3 time budget) and epoch count. Returns the decision.
int distEpochDecision(TrainSession& s, int epoch, int decision);
/// End of the run: checks that the weights agree on every rank (logged by rank 0), then a final barrier.
void distFinish(TrainSession& s);

}  // namespace ywb
