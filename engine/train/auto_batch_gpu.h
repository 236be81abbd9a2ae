// AutoBatch on the training GPU: the trial step of a scratch copy of the model (AutoBatchStep: the model's
// whole training step) with memory read through NVML and the caching allocator. Thread rules: trainer thread
// only.
#pragma once
#include <c10/core/Device.h>

#include <string>

namespace ywb {

struct AutoBatchResult;

/// Picks the batch for AutoBatch on `device`: the largest whose run fits `fraction` of the GPU's memory
/// (batch=-1: kAutoBatchFraction; batch=0.70: 0.70); on CPU, or without NVML, returns 16 with a note saying
/// why. `amp` profiles under float16 autocast; `cuda_graphs` leaves room for the captured step's own memory
/// (autoBatchFraction).
AutoBatchResult autoBatchFor(const std::string& model_yaml, int nc, int imgsz, c10::Device device, bool amp,
                             bool cuda_graphs, double fraction);

}  // namespace ywb
