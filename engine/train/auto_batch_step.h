// AutoBatch's trial step and probe. The step is one training step of a scratch model as the trainer takes it:
// every branch of the head (an end-to-end head's one-to-one branches too, on detached features), the model's
// own loss (loss::ModelLoss: YOLO26's end-to-end loss at the first epoch's weights), backward; on random
// images with synthetic boxes. The probe runs it for chooseBatch and takes the memory readings from its
// caller (NVML and the caching allocator on a GPU: auto_batch_gpu.cpp), so everything but the readings runs
// on any device.
// Thread rules: trainer thread only.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <utility>

#include "loss/model_loss.h"
#include "model/detection_model.h"
#include "train/auto_batch.h"

namespace ywb {

class AutoBatchStep {
 public:
  struct Inputs {
    at::Tensor images;   ///< [batch, 3, imgsz, imgsz] uniform in [0, 1), on the model's device
    at::Tensor targets;  ///< loss::syntheticTargets rows, on the CPU
  };

  /// `model` is the scratch copy the trials change (BatchNorm statistics, gradients), in training mode.
  /// `amp`: forward under autocast (float16 on CUDA, bfloat16 on a CPU), as the trainer's amp=true.
  AutoBatchStep(model::DetectionModel model, int imgsz, bool amp);

  /// A batch of random images and synthetic boxes.
  Inputs inputs(int batch) const;
  /// One step on `in`: forward of every head branch, the model's loss, backward; the gradients stay for the
  /// caller to read or clear. Returns the loss (detached).
  at::Tensor run(const Inputs& in);
  at::Tensor run(int batch) { return run(inputs(batch)); }

  model::DetectionModel& model() { return model_; }
  const loss::ModelLoss& loss() const { return loss_; }

 private:
  model::DetectionModel model_;
  loss::ModelLoss loss_;
  int imgsz_;
  bool amp_;
};

/// chooseBatch's probe over an AutoBatchStep: each trial clears the previous gradients and runs the step;
/// the device's memory comes from `Memory`.
class StepProbe : public AutoBatchProbe {
 public:
  struct Memory {
    std::function<int64_t()> total;      ///< the device's memory
    std::function<int64_t()> used;       ///< in use by the last trial (read after it)
    std::function<void()> before_trial;  ///< e.g. empty the cache and reset the peak; may be empty
  };
  StepProbe(AutoBatchStep& step, Memory memory) : step_(step), memory_(std::move(memory)) {}
  int64_t totalBytes() override { return memory_.total(); }
  int64_t usedBytes() override { return memory_.used(); }
  void trial(int batch) override;

 private:
  AutoBatchStep& step_;
  Memory memory_;
};

}  // namespace ywb
