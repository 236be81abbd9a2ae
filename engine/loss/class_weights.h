// Per-class weights of the classification loss (`cls_pw`, Ultralytics 8.4): computed once from the training
// split's labels, w_c = (1 / count_c)^cls_pw with a count of 0 taken as 1, then divided by their mean so they
// average 1. DetectionLoss multiplies each anchor's per-class BCE by them before summing.
// Thread rules: free functions; call from any thread.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "data/scanned_split.h"

namespace ywb::loss {

/// Label boxes per class over every image of `split` (bincount with minlength nc).
std::vector<int64_t> classCounts(const ScannedSplit& split, int64_t nc);

/// The weights [nc] (float32) for `counts` and `power` > 0, computed in double then rounded once.
at::Tensor classWeights(const std::vector<int64_t>& counts, double power);

/// "Class weights: [w0, w1, ...]", each rounded to 3 decimals, for the run's log.
std::string classWeightsLine(const at::Tensor& weights);

}  // namespace ywb::loss
