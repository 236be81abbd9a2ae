// Synthetic-input benchmark of one training step of a YOLO model: forward, loss, backward, optimizer step.
// Torch-free. Thread rules: benchModel() is reentrant but uses the process-wide LibTorch thread pool.
#pragma once
#include <cstdint>
#include <string>

#include "ywb/op_times.h"

namespace ywb {

struct ModelBenchOptions {
  std::string model = "yolov8n.yaml";
  int nc = 80;
  int imgsz = 320;
  int batch = 8;
  std::string device = "cpu";  ///< "cpu", "cuda", "cuda:1" or a bare GPU index
  int warmup = 2;              ///< untimed steps first
  int iters = 10;              ///< timed steps
  int threads = 0;             ///< LibTorch intra-op threads; 0 = all available CPUs
  std::string loss = "yolo";   ///< "yolo" (the model's training loss: YOLO26's end-to-end one) or "mse" (mean
                               ///< of squared outputs, for comparison with a framework script without it)
  bool amp = false;            ///< float16 autocast on CUDA, bfloat16 on a CPU
  bool channels_last = false;  ///< NHWC weights and input (memory format experiment)
  bool cuda_graphs = false;    ///< forward and backward replayed as CUDA graphs (CUDA only; engine/cuda)
  uint64_t seed = 0;
  std::string optimizer = "SGD";  ///< any of optimizerNames() but auto, with the trainer's parameter groups
  int ops = 0;        ///< > 0: min(iters, 5) further steps with every operator recorded; lists the top `ops`
  std::string trace;  ///< non-empty: those recorded steps also written there as a Chrome trace
  bool peak = false;  ///< also time a large square matrix product in the step's precision (the device's rate)
};

struct ModelBenchResult {
  std::string device;
  int threads = 0;
  int64_t parameters = 0;
  double forward_ms = 0;   ///< model forward, per step (median)
  double loss_ms = 0;      ///< loss incl. assignment (median)
  double backward_ms = 0;  ///< median
  double step_ms = 0;      ///< optimizer step + zero_grad (median)
  double step_min_ms = 0;  ///< optimizer step + zero_grad (fastest; less sensitive to a busy machine)
  double total_ms = 0;     ///< median of whole steps
  double images_per_s = 0;
  double forward_gflop = 0;          ///< the model's forward FLOPs per step / 1e9 (batch x trainingFlops)
  double forward_gflops_per_s = 0;   ///< forward_gflop over the median forward
  double backward_gflops_per_s = 0;  ///< twice forward_gflop (input and weight gradients) over the backward
  double matmul_gflops_per_s = 0;    ///< peak: the square matrix product's rate; 0 when not asked
  int64_t matmul_n = 0;              ///< peak: its side
  std::string matmul_dtype;          ///< peak: its precision, "fp32", "bf16" or "fp16" (the step's)
  double last_loss = 0;
  int64_t gpu_mem_peak = -1;  ///< bytes the CUDA caching allocator reserved at most while timed; -1 off CUDA
  std::string graphs;         ///< "off", "on (N replays)" or why graphs were turned off
  OpProfileResult ops;        ///< the recorded steps (ops= or trace=); steps 0 otherwise
};

/// Runs the benchmark. Throws ywb::Error on bad options or an unavailable device.
ModelBenchResult benchModel(const ModelBenchOptions& options);

std::string modelBenchText(const ModelBenchOptions& options, const ModelBenchResult& result);
std::string modelBenchJson(const ModelBenchOptions& options, const ModelBenchResult& result);

}  // namespace ywb
