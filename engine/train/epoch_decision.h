// What happens after an epoch: continue, or stop and why. Rank 0 decides; in a distributed run the value is
// broadcast to the other ranks (its integer value travels in a tensor).
// Thread rules: free function on values.
#pragma once
#include <string>

namespace ywb {

enum class EpochDecision {
  Continue = 0,
  StopRequested = 1,  ///< the user (Stop, Ctrl-C, SIGTERM) asked to stop
  Patience = 2,       ///< no better fitness for `patience` epochs
  TimeBudget = 3,     ///< the `time` budget is used up
};

/// The rule, in priority order: a stop request, then patience (epoch - best_epoch >= patience, once there is
/// a best epoch; patience 0 = off), then the time budget (budget_s 0 = off). Epochs are 0-based.
EpochDecision decideAfterEpoch(bool stop_requested, int epoch, int best_epoch, int patience, double elapsed_s,
                               double budget_s);

}  // namespace ywb
