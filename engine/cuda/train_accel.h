// What the trainer does differently on a CUDA device, in one place: cuDNN's benchmark mode, the side-stream
// batch prefetcher (batch k+1 is copied while step k runs) and, with cuda_graphs=true, the model's forward
// and backward as CUDA graphs. On a CPU device it passes the loader and the model through unchanged.
// Thread rules: the trainer thread owns it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cuda/batch_prefetcher.h"
#include "cuda/graphed_model.h"
#include "data/loader.h"
#include "model/detection_model.h"

namespace ywb::cuda {

class TrainAccel {
 public:
  /// `loader` and `model` must outlive this object. `graphs`: capture CUDA graphs (ignored off CUDA).
  /// `cudnn_benchmark`: cuDNN's autotuner (true) or its heuristics (false) for the training's convolutions.
  TrainAccel(DataLoader& loader, model::DetectionModel model, at::Device device, bool graphs,
             bool cudnn_benchmark = false);
  /// The loader's startEpoch, then the first copy on the side stream.
  void startEpoch(int epoch);
  /// The next batch; on CUDA its images and targets are already on the device (see BatchPrefetcher).
  bool next(Batch& batch);
  /// The model's training forward: graphed when graphs are on, eager under autocast otherwise.
  std::vector<at::Tensor> forward(const at::Tensor& x, bool autocast, at::ScalarType autocast_dtype);
  /// Both branches of an end-to-end head (YOLO26), graphed as one when graphs are on, eager otherwise.
  model::HeadOutputs forwardHeads(const at::Tensor& x, bool autocast, at::ScalarType autocast_dtype);
  /// One line for the run's log ("" on CPU): what is on, and why something is off.
  std::string note() const;

 private:
  DataLoader& loader_;
  model::DetectionModel model_;
  std::unique_ptr<BatchPrefetcher> prefetcher_;
  std::unique_ptr<GraphedModel> graphed_;
  std::string note_;
};

}  // namespace ywb::cuda
