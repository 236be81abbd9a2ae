// `ywb bench train` and `ywb bench epoch`: the real trainer's step and epoch, timed.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/op_profile.h"
#include "core/remove_tree.h"
#include "core/threads.h"
#include "sys/host_info.h"
#include "train/device.h"
#include "train/train_session.h"
#include "ywb/system_monitor.h"
#include "ywb/train_bench.h"
#include "ywb/trainer.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// Samples the training GPU (NVML) every 100 ms on its own thread while the timed part runs.
class GpuSampler {
 public:
  explicit GpuSampler(int gpu_index) : gpu_(gpu_index) {
    if (gpu_ < 0) return;
    thread_ = std::thread([this] {
      SystemMonitor mon;
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        lock.unlock();
        const SystemSample smp = mon.sample();
        lock.lock();
        for (const auto& g : smp.gpus) {
          if (g.index != gpu_) continue;
          if (g.mem_used >= 0) peak_mem_ = std::max(peak_mem_, g.mem_used);
          if (g.util_gpu >= 0) {
            util_sum_ += g.util_gpu;
            ++util_n_;
          }
        }
        cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; });
      }
    });
  }
  ~GpuSampler() { finish(); }
  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  int64_t peakMem() const { return peak_mem_; }
  double meanUtil() const { return util_n_ ? util_sum_ / util_n_ : -1.0; }

 private:
  int gpu_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  int64_t peak_mem_ = -1;
  double util_sum_ = 0;
  int util_n_ = 0;
};

void benchSteps(const TrainBenchOptions& o, TrainBenchResult& r) {
  if (o.steps < 1 || o.warmup < 0) fail("steps must be >= 1 and warmup >= 0");
  // ops= / trace=: further steps with every operator recorded (recording slows them, so they are not among
  // the timed ones).
  const int recorded = recordedSteps(o.ops, o.trace, o.steps);
  TrainSession s;
  s.args = o.args;
  std::atomic<bool> stop{false}, pause{false};
  s.stop = &stop;
  s.pause = &pause;
  setupSession(s, nullptr);  // writes nothing: no run folder
  r.device = s.device.str();
  r.amp = s.amp_note;
  r.batch = s.args.batch;  // as resolved (AutoBatch)
  r.threads = configureTorchThreads(s.args.threads);
  const int64_t timed_end = o.warmup + o.steps;
  auto hooks =
      std::make_shared<BenchTrainHooks>(s.device, timed_end + recorded, recorded > 0 ? timed_end : -1);
  s.hooks = hooks;
  const StepProfiler& prof = hooks->stepProfiler();
  GpuSampler gpu(s.device.is_cuda() ? int(s.device.index() < 0 ? 0 : s.device.index()) : -1);
  double tloss[3], lr[3];
  for (int epoch = 0; !hooks->done(); ++epoch) {
    const int64_t before = hooks->stepsRun();
    trainEpoch(s, epoch, tloss, lr);
    if (hooks->stepsRun() == before) fail("the training split yields no batches");
  }
  gpu.finish();
  if (auto recorder = hooks->takeRecorder()) {
    r.ops = recorder->stop(recorded, o.ops, o.trace);
    double wall = 0;
    for (size_t i = size_t(timed_end); i < prof.steps().size(); ++i)
      for (double seconds : prof.steps()[i]) wall += seconds;
    r.ops.recorded_step_ms = 1000.0 * wall / recorded;
  }
  StepProfiler::Split sum{};
  int64_t images = 0;
  for (size_t i = size_t(o.warmup); i < size_t(timed_end) && i < prof.steps().size(); ++i) {
    for (int k = 0; k < StepProfiler::kSegments; ++k) sum[size_t(k)] += prof.steps()[i][size_t(k)];
    images += prof.images()[i];
  }
  r.steps = int(std::min<size_t>(prof.steps().size(), size_t(timed_end))) - o.warmup;
  double total = 0;
  for (int k = 0; k < StepProfiler::kSegments; ++k) {
    r.split.push_back({stepSegmentName(StepSegment(k)), 1000.0 * sum[size_t(k)] / r.steps});
    total += sum[size_t(k)];
  }
  const double wait = sum[size_t(StepSegment::DataWait)];
  r.step_ms = 1000.0 * total / r.steps;
  r.images_per_s = double(images) / std::max(1e-9, total);
  r.compute_images_per_s = double(images) / std::max(1e-9, total - wait);
  r.data_wait_share = wait / std::max(1e-9, total);
  r.peak_device_mem = gpu.peakMem();
  r.gpu_util = gpu.meanUtil();
}

// Splits an epoch run's wall time by the phase the trainer reported.
// With a GPU index it also starts the GPU sampler when training starts: by then LibTorch has initialised
// CUDA (a sampler started before the trainer would query the caching allocator during that lazy
// initialisation), and the figures cover the run's work rather than its dataset scan.
class PhaseClock : public TrainObserver {
 public:
  explicit PhaseClock(int gpu_index) : gpu_index_(gpu_index) {}
  void onPhase(TrainPhase p, const std::string&) override {
    const auto now = std::chrono::steady_clock::now();
    charge(std::chrono::duration<double>(now - since_).count());
    since_ = now;
    current_ = p;
    if (gpu_index_ >= 0 && !gpu && (p == TrainPhase::Warmup || p == TrainPhase::Training))
      gpu = std::make_unique<GpuSampler>(gpu_index_);
  }
  void onEpoch(const EpochMetrics& m) override { last_ = m; }
  void charge(double seconds) {
    switch (current_) {
      case TrainPhase::Warmup:
      case TrainPhase::Training:
      case TrainPhase::CloseMosaic:
        train += seconds;
        break;
      case TrainPhase::Validating:
        val += seconds;
        break;
      case TrainPhase::Saving:
        save += seconds;
        break;
      default:
        setup += seconds;
    }
  }
  double setup = 0, train = 0, val = 0, save = 0;
  EpochMetrics last_;
  std::unique_ptr<GpuSampler> gpu;  ///< from the first training step on

 private:
  int gpu_index_;
  TrainPhase current_ = TrainPhase::Scanning;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
};

void benchEpochs(const TrainBenchOptions& o, TrainBenchResult& r) {
  TrainArgs a = o.args;
  if (a.epochs < 1) fail("epochs must be >= 1");
  const fs::path tmp = fs::temp_directory_path() / ("ywb-bench-epoch-" + std::to_string(::getpid()));
  a.project = tmp.string();
  a.name = "bench";
  a.exist_ok = true;
  a.resume.clear();
  const auto t0 = std::chrono::steady_clock::now();
  r.process_start_s = processAgeSeconds();
  TrainSummary sum;
  const at::Device dev = pickDevice(a.device);
  PhaseClock clock(dev.is_cuda() ? std::max<int>(0, dev.index()) : -1);
  {
    Trainer trainer(a);
    trainer.setObserver(&clock);
    try {
      sum = trainer.run();
      clock.onPhase(TrainPhase::Finished, "");
    } catch (...) {
      removeTree(tmp.string());  // best effort: the run's own error is what the user needs
      throw;
    }
  }
  const double after_run = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (clock.gpu) {
    clock.gpu->finish();
    r.peak_device_mem = clock.gpu->peakMem();
    r.gpu_util = clock.gpu->meanUtil();
  }
  r.leftover = removeTree(tmp.string());
  r.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.epochs = sum.epochs_completed;
  r.time_split = sum.time_split;
  double run_wall = 0;
  for (const auto& t : sum.time_split) run_wall += t.seconds;
  r.teardown_s = std::max(0.0, after_run - run_wall);
  r.setup_s = clock.setup;
  r.train_s = clock.train;
  r.val_s = clock.val;
  r.save_s = clock.save;
  r.train_images_per_s = sum.images_per_s;
  r.first_step_s = sum.first_step_s;
  r.map50 = clock.last_.map50;
  r.map = clock.last_.map;
  r.amp = sum.amp;
  r.threads = configureTorchThreads(a.threads);
  r.device = dev.str();
}

// The wall time of the process, split: start, the run's own segments, teardown.
std::string epochSplitText(const TrainBenchResult& r) {
  std::ostringstream os;
  char line[256];
  double total = std::max(0.0, r.process_start_s) + r.teardown_s;
  for (const auto& t : r.time_split) total += t.seconds;
  os << "where the wall time went (seconds, share of " << std::fixed << std::setprecision(1) << total
     << " s):\n";
  auto row = [&](const std::string& name, double sec) {
    std::snprintf(line, sizeof(line), "  %-16s %8.2f s %5.1f%%\n", name.c_str(), sec,
                  100.0 * sec / std::max(1e-9, total));
    os << line;
  };
  if (r.process_start_s >= 0) row("process_start", r.process_start_s);
  for (const auto& t : r.time_split) row(t.name, t.seconds);
  row("teardown", r.teardown_s);
  if (r.first_step_s >= 0) {
    std::snprintf(line, sizeof(line), "time to first step: %.2f s from the process's start\n",
                  r.first_step_s);
    os << line;
  }
  return os.str();
}

std::string mib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f MiB", double(bytes) / (1 << 20));
  return buf;
}

}  // namespace

TrainBenchResult benchTrain(const TrainBenchOptions& o) {
  return guarded(o.epoch_mode ? "bench epoch" : "bench train", [&] {
    TrainBenchResult r;
    r.mode = o.epoch_mode ? "epoch" : "train";
    TrainArgs a = o.args;
    a.validate();
    TrainBenchOptions opt = o;
    opt.args = a;
    r.batch = a.batch;
    r.imgsz = a.imgsz;
    r.workers = a.workers;
    if (o.epoch_mode) {
      if (o.ops != 0 || !o.trace.empty())
        fail("ops= and trace= record operators in bench train and bench model, not in bench epoch");
      benchEpochs(opt, r);
    } else {
      benchSteps(opt, r);
    }
    r.peak_rss = processPeakRss();
    return r;
  });
}

std::string trainBenchText(const TrainBenchResult& r) {
  std::ostringstream os;
  char line[256];
  os << "bench " << r.mode << ": device=" << r.device << " threads=" << r.threads << " batch=" << r.batch
     << " imgsz=" << r.imgsz << " workers=" << r.workers << " amp=" << r.amp << "\n";
  if (r.mode == "train") {
    os << "mean per step over " << r.steps << " timed steps (device synchronised at each boundary):\n";
    for (const auto& seg : r.split) {
      std::snprintf(line, sizeof(line), "  %-10s %9.1f ms %5.1f%%\n", seg.name.c_str(), seg.ms,
                    100.0 * seg.ms / std::max(1e-9, r.step_ms));
      os << line;
    }
    std::snprintf(line, sizeof(line),
                  "  %-10s %9.1f ms\nimages/s %.1f (compute only %.1f); data wait %.1f%% of the step\n",
                  "step", r.step_ms, r.images_per_s, r.compute_images_per_s, 100.0 * r.data_wait_share);
    os << line;
    if (r.ops.steps > 0) os << opTimesText(r.ops);
  } else {
    std::snprintf(line, sizeof(line),
                  "%d epoch(s) in %.1f s: setup %.1f s, training %.1f s, validation %.1f s, saving %.1f s\n"
                  "training images/s %.1f; COCO-exact mAP50 %.4f, mAP50-95 %.4f (last epoch)\n",
                  r.epochs, r.total_s, r.setup_s, r.train_s, r.val_s, r.save_s, r.train_images_per_s, r.map50,
                  r.map);
    os << line << epochSplitText(r);
    if (!r.leftover.empty()) os << "the temporary run folder stays: " << r.leftover << "\n";
  }
  os << "peak RSS " << mib(r.peak_rss);
  if (r.peak_device_mem >= 0) os << ", peak GPU memory " << mib(r.peak_device_mem) << " (NVML, whole device)";
  if (r.gpu_util >= 0) {
    std::snprintf(line, sizeof(line), ", GPU utilisation %.0f%% (NVML mean)", r.gpu_util);
    os << line;
  }
  os << "\n";
  return os.str();
}

std::string trainBenchJson(const TrainBenchResult& r) {
  nlohmann::json split = nlohmann::json::object();
  for (const auto& seg : r.split) split[seg.name + "_ms"] = seg.ms;
  nlohmann::json j = {
      {"mode", r.mode},        {"device", r.device},     {"threads", r.threads},
      {"batch", r.batch},      {"imgsz", r.imgsz},       {"workers", r.workers},
      {"amp", r.amp},          {"peak_rss", r.peak_rss}, {"peak_device_mem", r.peak_device_mem},
      {"gpu_util", r.gpu_util}};
  if (r.mode == "train") {
    j.update({{"steps", r.steps},
              {"split", split},
              {"step_ms", r.step_ms},
              {"images_per_s", r.images_per_s},
              {"compute_images_per_s", r.compute_images_per_s},
              {"data_wait_share", r.data_wait_share}});
    if (r.ops.steps > 0) j["operators"] = opTimesJson(r.ops);
  } else {
    j.update({{"epochs", r.epochs},
              {"setup_s", r.setup_s},
              {"train_s", r.train_s},
              {"val_s", r.val_s},
              {"save_s", r.save_s},
              {"total_s", r.total_s},
              {"train_images_per_s", r.train_images_per_s},
              {"mAP50", r.map50},
              {"mAP50-95", r.map},
              {"process_start_s", r.process_start_s},
              {"teardown_s", r.teardown_s},
              {"first_step_s", r.first_step_s}});
    nlohmann::json shares = nlohmann::json::object();
    for (const auto& t : r.time_split) shares[t.name + "_s"] = t.seconds;
    j["time_split"] = shares;
    if (!r.leftover.empty()) j["leftover"] = r.leftover;
  }
  return j.dump();
}

}  // namespace ywb
