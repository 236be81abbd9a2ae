// The options of a training run's validations (validateEpoch, and the end-of-run plots' validation of best):
// the run's thresholds, its precision and its forward batch.
// Thread rules: free function.
#pragma once
#include "train/validator.h"

namespace ywb {

struct TrainSession;

/// The validator options every validation of the run uses (without callbacks).
ValidatorOptions runValidatorOptions(const TrainSession& s);

}  // namespace ywb
