#include "train/auto_batch_gpu.h"

#include <memory>

#include "core/error.h"
#include "cuda/cuda_runtime.h"
#include "model/detection_model.h"
#include "sys/nvml.h"
#include "train/auto_batch.h"
#include "train/auto_batch_step.h"

namespace ywb {

AutoBatchResult autoBatchFor(const std::string& model_yaml, int nc, int imgsz, c10::Device device, bool amp,
                             bool cuda_graphs, double fraction) {
  AutoBatchResult r;
  r.batch = 16;
  r.fallback = true;
  if (!device.is_cuda()) {
    r.note = "AutoBatch needs a CUDA device; using batch=16 on " + device.str();
    return r;
  }
  std::string why;
  auto nvml = Nvml::open(Nvml::defaultLibrary(), &why);
  if (!nvml) {
    r.note = "AutoBatch cannot read GPU memory (" + why + "); using batch=16";
    return r;
  }
  // A scratch copy: trial steps must not touch the real model's BatchNorm statistics.
  model::DetectionModel scratch = model::buildModel(model_yaml, nc);
  scratch->to(device);
  AutoBatchStep step(scratch, imgsz, amp);
  const int gpu = device.index() < 0 ? 0 : device.index();
  // What the caching allocator does not manage (CUDA context, other processes) stays fixed; the trials' own
  // need is the allocator's peak reservation, read per trial (the cache never shrinks by itself, so the
  // whole-device reading would carry earlier trials' blocks). -1: read everything through NVML.
  int64_t outside = -1;
  if (const auto s = cuda::allocatorStats(gpu)) outside = nvml->read(gpu).mem_used - s->reserved;
  StepProbe::Memory memory;
  memory.total = [&] { return nvml->read(gpu).mem_total; };
  memory.used = [&]() -> int64_t {
    if (outside >= 0) {
      if (const auto s = cuda::allocatorStats(gpu)) return outside + s->peak_reserved;
    }
    return nvml->read(gpu).mem_used;
  };
  memory.before_trial = [&] {
    if (outside < 0) return;
    cuda::emptyCache();
    cuda::resetPeakStats(gpu);
  };
  StepProbe probe(step, memory);
  r = chooseBatch(probe, autoBatchFraction(cuda_graphs, fraction));
  if (cuda_graphs && !r.fallback) r.note += "; CUDA graphs: the eager step's memory counted twice";
  return r;
}

}  // namespace ywb
