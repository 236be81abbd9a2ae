#include "cuda/train_accel.h"

#include "core/torch_compat.h"
#include "cuda/cuda_runtime.h"

namespace ywb::cuda {

TrainAccel::TrainAccel(DataLoader& loader, model::DetectionModel model, at::Device device, bool graphs,
                       bool cudnn_benchmark)
    : loader_(loader), model_(std::move(model)) {
  if (!device.is_cuda()) {
    if (graphs) note_ = "cuda_graphs=true ignored: CUDA graphs need a CUDA device";
    return;
  }
  std::string why;
  auto stream = makeCudaCopyStream(device, &why);
  if (stream) {
    DataLoader* l = &loader_;
    prefetcher_ = std::make_unique<BatchPrefetcher>([l](Batch& b) { return l->next(b); }, std::move(stream));
  }
  // cuDNN's heuristics by default: on an H200 (yolov8n 640, batch 64, AMP) the autotuner took 6 s of the
  // first step and 2 s of the first validation (each new shape is timed) and the later steps were no faster
  // (docs/PERFORMANCE.md, "Third GPU run"); cudnn_benchmark=true keeps it.
  const bool bench = setCudnnBenchmark(cudnn_benchmark) && cudnn_benchmark;
  note_ = std::string("CUDA: cuDNN ") + (bench ? "autotuner (cudnn_benchmark=true)" : "heuristics") +
          ", side-stream prefetch " + (prefetcher_ ? "on" : "off (" + why + ")");
  if (graphs) {
    graphed_ = std::make_unique<GraphedModel>(model_);
    note_ += graphed_->available() ? ", CUDA graphs on" : ", CUDA graphs off (not compiled in)";
  }
}

void TrainAccel::startEpoch(int epoch) {
  loader_.startEpoch(epoch);
  if (prefetcher_) prefetcher_->start();
}

bool TrainAccel::next(Batch& batch) {
  return prefetcher_ ? prefetcher_->next(batch) : loader_.next(batch);
}

std::vector<at::Tensor> TrainAccel::forward(const at::Tensor& x, bool autocast,
                                            at::ScalarType autocast_dtype) {
  if (graphed_) return graphed_->forward(x, autocast, autocast_dtype);
  const compat::AutocastScope amp(x.device().type(), autocast, autocast_dtype);
  return model_->forward(x);
}

model::HeadOutputs TrainAccel::forwardHeads(const at::Tensor& x, bool autocast,
                                            at::ScalarType autocast_dtype) {
  if (graphed_) return graphed_->forwardHeads(x, autocast, autocast_dtype);
  const compat::AutocastScope amp(x.device().type(), autocast, autocast_dtype);
  return model_->forwardHeads(x);
}

std::string TrainAccel::note() const {
  std::string n = note_;
  if (graphed_ && graphed_->policy().disabled()) n += "; " + graphed_->policy().note();
  return n;
}

}  // namespace ywb::cuda
