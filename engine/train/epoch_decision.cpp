#include "train/epoch_decision.h"

namespace ywb {

EpochDecision decideAfterEpoch(bool stop_requested, int epoch, int best_epoch, int patience, double elapsed_s,
                               double budget_s) {
  if (stop_requested) return EpochDecision::StopRequested;
  if (patience > 0 && best_epoch >= 0 && epoch - best_epoch >= patience) return EpochDecision::Patience;
  if (budget_s > 0 && elapsed_s >= budget_s) return EpochDecision::TimeBudget;
  return EpochDecision::Continue;
}

}  // namespace ywb
