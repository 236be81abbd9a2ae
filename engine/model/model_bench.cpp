#include "ywb/model_bench.h"

#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/op_profile.h"
#include "core/threads.h"
#include "core/torch_compat.h"
#include "cuda/cuda_runtime.h"
#include "cuda/graphed_model.h"
#include "loss/model_loss.h"
#include "loss/o2m_schedule.h"
#include "loss/synthetic_targets.h"
#include "model/channels_last.h"
#include "model/detection_model.h"
#include "train/optimizer_factory.h"

namespace ywb {
namespace {

c10::Device parseDevice(const std::string& s) {
  std::string d = s;
  if (!d.empty() && std::all_of(d.begin(), d.end(), ::isdigit)) d = "cuda:" + d;
  c10::Device dev(c10::kCPU);
  try {
    dev = c10::Device(d);
  } catch (const c10::Error&) {
    fail("device='", s, "' is not a device (use cpu, cuda, cuda:N or N)");
  }
  if (dev.is_cuda() && !torch::cuda::is_available())
    fail("device='", s, "': this LibTorch sees no CUDA device");
  return dev;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The device's rate, in GFLOP/s, for an n x n matrix product in `dtype` (LibTorch's own GEMM: OpenBLAS or
// oneDNN on a CPU, cuBLAS on CUDA): the most a step's convolutions, GEMMs themselves, come near on this
// device. Median of 5 after one untimed product.
double matmulRate(c10::Device dev, at::ScalarType dtype, int64_t n) {
  const auto opts = at::TensorOptions(dev).dtype(dtype);
  const at::Tensor a = at::rand({n, n}, opts), b = at::rand({n, n}, opts);
  std::vector<double> s;
  for (int i = 0; i < 6; ++i) {
    if (dev.is_cuda()) torch::cuda::synchronize(dev.index());
    const auto t0 = std::chrono::steady_clock::now();
    const at::Tensor c = at::mm(a, b);
    if (dev.is_cuda()) torch::cuda::synchronize(dev.index());
    if (i > 0) s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * double(n) * double(n) * double(n) / median(s) / 1e9;
}

}  // namespace

ModelBenchResult benchModel(const ModelBenchOptions& o) {
  return guarded("bench model", [&] {
    if (o.imgsz < 32 || o.imgsz % 32) fail("imgsz=", o.imgsz, " must be a positive multiple of 32");
    if (o.batch < 1 || o.iters < 1 || o.warmup < 0) fail("batch and iters must be >= 1, warmup >= 0");
    if (o.loss != "yolo" && o.loss != "mse") fail("loss='", o.loss, "' must be yolo or mse");
    // ops= / trace=: further steps with every operator recorded (recording slows them, so they are not
    // among the timed ones).
    const int record_steps = recordedSteps(o.ops, o.trace, o.iters);
    ModelBenchResult r;
    const c10::Device dev = parseDevice(o.device);
    r.device = dev.str();
    r.threads = configureTorchThreads(o.threads);
    torch::manual_seed(o.seed);
    model::DetectionModel m = model::buildModel(o.model, o.nc);
    m->to(dev);
    m->train();
    if (o.channels_last) model::toChannelsLast(*m);
    for (const auto& p : m->parameters()) r.parameters += p.numel();
    if (canonicalOptimizerName(o.optimizer) == "auto")
      fail("optimizer=auto depends on the length of a run; name one: ", namedOptimizerList());
    // The trainer's optimizer and parameter groups (lr 0.01, momentum 0.937, weight decay 5e-4).
    const auto optimizer =
        makeOptimizer(splitParamGroups(*m), chooseOptimizer(o.optimizer, 0.01, 0.937, m->nc(), 0), 5e-4);
    auto& opt = *optimizer;
    // The trainer's loss for this model (loss::ModelLoss; default gains, 8.4's rules); an end-to-end head's
    // branches weighted as in a run's first epoch.
    const loss::ModelLoss criterion(*m);
    const double o2m = loss::O2mSchedule::kStart;
    at::Tensor x = at::rand({o.batch, 3, o.imgsz, o.imgsz}, at::TensorOptions(dev));
    if (o.channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    const at::Tensor targets = loss::syntheticTargets(o.batch, m->nc(), o.seed).to(dev);
    // fp16 autocast on CUDA, bf16 on a CPU (as the trainer's amp_dtype=auto; until round 3 a CPU bench
    // ignored amp=true and timed fp32, which hid how slow bf16 is on CPUs without native bf16).
    const bool amp = o.amp;
    const at::ScalarType amp_dtype = dev.is_cuda() ? at::kHalf : at::kBFloat16;
    // Graphs: eager warm-up steps, the capture in the last warm-up step, replays while timed.
    cuda::GraphedModel graphed(m, cuda::GraphPolicyOptions{std::max(0, o.warmup - 1), 4});
    // Both branches of an end-to-end head (YOLO26) through forwardHeads, graphed together when graphs are on,
    // as the trainer's step.
    const bool use_graphs = o.cuda_graphs && graphed.available();
    auto sync = [&] {
      if (dev.is_cuda()) torch::cuda::synchronize(dev.index());
    };
    using clock = std::chrono::steady_clock;
    auto ms = [](clock::time_point a, clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    std::vector<double> fw, ls, bw, st, tot;
    std::unique_ptr<OpRecorder> recorder;
    std::vector<double> recorded;
    const int timed_end = o.warmup + o.iters;
    auto readTimedPeak = [&] {  // the peak of the timed steps, not of the recorded ones
      if (!dev.is_cuda()) return;
      const auto mem = cuda::allocatorStats(dev.index() < 0 ? 0 : dev.index());
      if (mem) r.gpu_mem_peak = mem->peak_reserved;
    };
    for (int i = 0; i < timed_end + record_steps; ++i) {
      if (i == o.warmup && dev.is_cuda()) cuda::resetPeakStats(dev.index() < 0 ? 0 : dev.index());
      if (i == timed_end) {
        readTimedPeak();
        recorder = std::make_unique<OpRecorder>();
      }
      sync();
      const auto t0 = clock::now();
      clock::time_point t1;
      at::Tensor total;
      {
        model::HeadOutputs out;
        // outside the scope: the graph has its own
        if (use_graphs) out = graphed.forwardHeads(x, amp, at::kHalf);
        const compat::AutocastScope autocast(dev.type(), amp, amp_dtype);
        if (!use_graphs) out = m->forwardHeads(x);  // one2many: forward()'s maps, bit for bit
        sync();
        t1 = clock::now();
        if (o.loss == "yolo") {
          total = criterion(out, targets, o2m).total;
        } else {
          total = at::zeros({}, x.options());
          for (const auto* branch : {&out.one2many, &out.one2one})
            for (const auto& f : *branch) total = total + f.to(at::kFloat).pow(2).mean();
        }
      }
      sync();
      const auto t2 = clock::now();
      total.backward();
      sync();
      const auto t3 = clock::now();
      opt.step();
      opt.zero_grad();
      sync();
      const auto t4 = clock::now();
      r.last_loss = total.item<double>();
      if (recorder) {
        recorded.push_back(ms(t0, t4));
      } else if (i >= o.warmup) {
        fw.push_back(ms(t0, t1));
        ls.push_back(ms(t1, t2));
        bw.push_back(ms(t2, t3));
        st.push_back(ms(t3, t4));
        tot.push_back(ms(t0, t4));
      }
    }
    if (record_steps == 0) readTimedPeak();
    if (recorder) {
      r.ops = recorder->stop(record_steps, o.ops, o.trace);
      r.ops.recorded_step_ms = median(recorded);
    }
    r.graphs = !o.cuda_graphs ? "off"
               : !use_graphs  ? "off (CUDA graphs need a CUDA device and a CUDA build)"
               : graphed.policy().disabled()
                   ? "off (" + graphed.policy().note() + ")"
                   : "on (" + std::to_string(graphed.policy().replays()) + " replays)";
    r.forward_ms = median(fw);
    r.loss_ms = median(ls);
    r.backward_ms = median(bw);
    r.step_ms = median(st);
    r.step_min_ms = st.empty() ? 0 : *std::min_element(st.begin(), st.end());
    r.total_ms = median(tot);
    r.images_per_s = r.total_ms > 0 ? 1000.0 * o.batch / r.total_ms : 0;
    // How near the step's kernels come to the device's rate: the forward's FLOPs are the model's count (what
    // `model info` prints as GFLOPs, Ultralytics' convention); a convolution's backward computes an input and
    // a weight gradient, each a product of the forward's size (the first layer's input gradient is skipped,
    // so the backward figure is a slight overestimate).
    r.forward_gflop = double(o.batch) * m->trainingFlops(o.imgsz, o.imgsz) / 1e9;
    if (r.forward_ms > 0) r.forward_gflops_per_s = r.forward_gflop / (r.forward_ms / 1000.0);
    if (r.backward_ms > 0) r.backward_gflops_per_s = 2.0 * r.forward_gflop / (r.backward_ms / 1000.0);
    if (o.peak) {
      const at::ScalarType dtype = amp ? amp_dtype : at::kFloat;
      r.matmul_n = dev.is_cuda() ? 8192 : 1024;
      r.matmul_dtype = dtype == at::kHalf ? "fp16" : dtype == at::kBFloat16 ? "bf16" : "fp32";
      r.matmul_gflops_per_s = matmulRate(dev, dtype, r.matmul_n);
    }
    return r;
  });
}

std::string modelBenchText(const ModelBenchOptions& o, const ModelBenchResult& r) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "%s  imgsz=%d batch=%d device=%s threads=%d loss=%s optimizer=%s%s%s  (%d steps after %d warm-up, "
      "medians)\n"
      "  forward   %9.1f ms\n  loss      %9.1f ms\n  backward  %9.1f ms\n  step      %9.1f ms (fastest "
      "%.1f)\n"
      "  total     %9.1f ms   %.2f images/s\n  graphs    %s   GPU memory peak %s\n",
      o.model.c_str(), o.imgsz, o.batch, r.device.c_str(), r.threads, o.loss.c_str(), o.optimizer.c_str(),
      o.amp ? " amp" : "", o.channels_last ? " channels_last" : "", o.iters, o.warmup, r.forward_ms,
      r.loss_ms, r.backward_ms, r.step_ms, r.step_min_ms, r.total_ms, r.images_per_s, r.graphs.c_str(),
      r.gpu_mem_peak < 0 ? "-" : (std::to_string(r.gpu_mem_peak >> 20) + " MiB").c_str());
  std::string text = buf;
  std::snprintf(buf, sizeof buf,
                "  rate      forward %.1f GFLOP/s, backward about %.1f GFLOP/s (%.2f GFLOP forward)\n",
                r.forward_gflops_per_s, r.backward_gflops_per_s, r.forward_gflop);
  text += buf;
  if (r.matmul_gflops_per_s > 0) {
    std::snprintf(
        buf, sizeof buf,
        "  peak      %lldx%lld %s matrix product %.1f GFLOP/s: forward at %.0f%%, backward at %.0f%% of it\n",
        static_cast<long long>(r.matmul_n), static_cast<long long>(r.matmul_n), r.matmul_dtype.c_str(),
        r.matmul_gflops_per_s, 100.0 * r.forward_gflops_per_s / r.matmul_gflops_per_s,
        100.0 * r.backward_gflops_per_s / r.matmul_gflops_per_s);
    text += buf;
  }
  if (r.ops.steps > 0) return text + opTimesText(r.ops);
  return text;
}

std::string modelBenchJson(const ModelBenchOptions& o, const ModelBenchResult& r) {
  nlohmann::json j = {{"model", o.model},
                      {"imgsz", o.imgsz},
                      {"batch", o.batch},
                      {"device", r.device},
                      {"threads", r.threads},
                      {"loss", o.loss},
                      {"optimizer", o.optimizer},
                      {"amp", o.amp},
                      {"iters", o.iters},
                      {"warmup", o.warmup},
                      {"parameters", r.parameters},
                      {"forward_ms", r.forward_ms},
                      {"loss_ms", r.loss_ms},
                      {"backward_ms", r.backward_ms},
                      {"step_ms", r.step_ms},
                      {"step_min_ms", r.step_min_ms},
                      {"total_ms", r.total_ms},
                      {"images_per_s", r.images_per_s},
                      {"forward_gflop", r.forward_gflop},
                      {"forward_gflops_per_s", r.forward_gflops_per_s},
                      {"backward_gflops_per_s", r.backward_gflops_per_s},
                      {"last_loss", r.last_loss},
                      {"channels_last", o.channels_last},
                      {"cuda_graphs", o.cuda_graphs},
                      {"graphs", r.graphs},
                      {"gpu_mem_peak", r.gpu_mem_peak}};
  if (r.matmul_gflops_per_s > 0) {
    j["matmul_n"] = r.matmul_n;
    j["matmul_gflops_per_s"] = r.matmul_gflops_per_s;
  }
  if (r.ops.steps > 0) j["operators"] = opTimesJson(r.ops);
  return j.dump();
}

}  // namespace ywb
