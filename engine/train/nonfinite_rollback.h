// The trainer's answer to a burst of NaN/Inf optimizer steps (NonFiniteGuard::burst()): roll back once to the
// last checkpoint with a lower learning rate, stop on the second burst.
// Thread rules: trainer thread only.
#pragma once

namespace ywb {

struct TrainSession;

/// The first burst of a run: restores model, EMA, optimizer state, accumulated gradients, schedule position
/// and loss scale from the run's weights/last.safetensors (the last completed epoch), truncates results.csv
/// to it, scales the learning rate (the whole schedule, warmup included) by
/// NonFiniteGuard::kRollbackLrFactor, says so in the log, and returns the epoch (0-based) to train next.
/// A second burst, a burst before the first checkpoint exists, or one in a distributed run throws ywb::Error
/// saying what happened, which checkpoint holds the last good weights and what to change.
int rollBackAfterNonFiniteBurst(TrainSession& s, int epoch);

}  // namespace ywb
