#include "train/auto_batch_gpu.h"

#include <torch/autograd.h>

#include <memory>

#include "core/error.h"
#include "core/torch_compat.h"
#include "cuda/cuda_runtime.h"
#include "model/detection_model.h"
#include "sys/nvml.h"
#include "train/auto_batch.h"

namespace ywb {
namespace {

class GpuProbe : public AutoBatchProbe {
 public:
  GpuProbe(std::unique_ptr<Nvml> nvml, model::DetectionModel m, int imgsz, c10::Device device, bool amp)
      : nvml_(std::move(nvml)), model_(std::move(m)), imgsz_(imgsz), device_(device), amp_(amp) {
    // What the caching allocator does not manage (CUDA context, other processes) stays fixed; the trials'
    // own need is the allocator's peak reservation, read per trial (the cache never shrinks by itself, so
    // the whole-device reading would carry earlier trials' blocks).
    if (const auto s = cuda::allocatorStats(gpu())) outside_ = nvml_->read(gpu()).mem_used - s->reserved;
  }
  int64_t totalBytes() override { return nvml_->read(gpu()).mem_total; }
  int64_t usedBytes() override {
    if (outside_ >= 0) {
      if (const auto s = cuda::allocatorStats(gpu())) return outside_ + s->peak_reserved;
    }
    return nvml_->read(gpu()).mem_used;
  }
  void trial(int batch) override {
    if (outside_ >= 0) {
      cuda::emptyCache();
      cuda::resetPeakStats(gpu());
    }
    const at::Tensor x = at::rand({batch, 3, imgsz_, imgsz_}, at::TensorOptions(device_));
    at::Tensor loss = at::zeros({}, x.options());
    {
      const compat::AutocastScope autocast(device_.type(), amp_, at::kHalf);
      for (const auto& f : model_->forward(x)) loss = loss + f.to(at::kFloat).pow(2).mean();
    }
    loss.backward();
    model_->zero_grad();
  }

 private:
  int gpu() const { return device_.index() < 0 ? 0 : device_.index(); }
  std::unique_ptr<Nvml> nvml_;
  model::DetectionModel model_;
  int imgsz_;
  c10::Device device_;
  bool amp_;
  int64_t outside_ = -1;  ///< device memory outside the caching allocator; -1 = read everything via NVML
};

}  // namespace

AutoBatchResult autoBatchFor(const std::string& model_yaml, int nc, int imgsz, c10::Device device, bool amp,
                             bool cuda_graphs) {
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
  scratch->train();
  GpuProbe probe(std::move(nvml), scratch, imgsz, device, amp);
  r = chooseBatch(probe, autoBatchFraction(cuda_graphs));
  if (cuda_graphs && !r.fallback) r.note += "; CUDA graphs: the eager step's memory counted twice";
  return r;
}

}  // namespace ywb
