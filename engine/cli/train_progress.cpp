#include "cli/train_progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "ywb/run_record.h"

namespace ywb::cli {
namespace {

std::string clock(double s) {
  if (s < 0 || s > 1e8) s = 0;
  const long t = long(s);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", t / 60, t % 60);
  return buf;
}

void emit(const std::string& event_line) {
  std::cout << event_line << std::endl;
}

}  // namespace

TrainProgress::TrainProgress(bool json) : json_(json), tty_(::isatty(STDOUT_FILENO) != 0) {}

void TrainProgress::endBar() {
  if (bar_open_) std::cout << "\n";
  bar_open_ = false;
}

void TrainProgress::onPhase(TrainPhase phase, const std::string& detail) {
  if (json_) return emit(phaseEventJson(phase, detail));
  if (phase == TrainPhase::Training || phase == TrainPhase::Warmup || phase == TrainPhase::Saving) return;
  endBar();
  std::cout << "[" << trainPhaseName(phase) << "] " << detail << std::endl;
}

void TrainProgress::onLog(const std::string& line) {
  if (json_) return emit(logEventJson(line));
  endBar();
  std::cout << line << std::endl;
}

void TrainProgress::onStep(const StepMetrics& m) {
  if (json_) return emit(stepEventJson(m));
  const bool last = m.batch + 1 == m.batches;
  const auto now = std::chrono::steady_clock::now();
  if (!last && !tty_) return;  // pipes and logs get one line per epoch
  if (!last && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  if (header_epoch_ != m.epoch) {
    endBar();
    std::printf("\n%11s%10s%11s%11s%11s%11s%7s%9s\n", "Epoch", "mem", "box_loss", "cls_loss", "dfl_loss",
                "Instances", "Size", "img/s");
    header_epoch_ = m.epoch;
  }
  const double frac = double(m.batch + 1) / double(std::max<int64_t>(1, m.batches));
  const int width = 20, filled = int(frac * width);
  std::string bar(size_t(filled), '#');
  bar.resize(size_t(width), '.');
  char mem[16];
  std::snprintf(mem, sizeof mem, "%.2gG", double(m.device_mem) / (1 << 30));
  std::printf("%s%11s%10s%11.4g%11.4g%11.4g%11d%7d%9.1f %3d%% [%s] %lld/%lld %s<%s", tty_ ? "\r" : "",
              (std::to_string(m.epoch + 1) + "/" + std::to_string(m.epochs)).c_str(), mem, m.box, m.cls,
              m.dfl, m.instances, m.imgsz, m.images_per_s, int(frac * 100), bar.c_str(),
              (long long)(m.batch + 1), (long long)m.batches, clock(m.elapsed_s).c_str(),
              clock(m.eta_s).c_str());
  std::fflush(stdout);
  bar_open_ = true;
  if (!tty_) endBar();
}

void TrainProgress::onEpoch(const EpochMetrics& m) {
  if (json_) return emit(epochEventJson(m));
  endBar();
  if (!m.validated) return;
  std::printf("%22s%11s%11s%11s%11s  (COCO-exact mAP)%s\n", "Box(P", "R", "mAP50", "mAP50-95", "val loss",
              m.best ? "  new best" : "");
  std::printf("%22.3f%11.3f%11.3f%11.3f%11.3f\n", m.precision, m.recall, m.map50, m.map,
              m.val_box + m.val_cls + m.val_dfl);
}

void TrainProgress::onFinished(const TrainSummary& s) {
  if (json_) return emit(finishedEventJson(s));
  endBar();
  std::printf("\n%d epochs completed in %s (%.1f images/s training, AMP %s)%s%s\n", s.epochs_completed,
              clock(s.seconds).c_str(), s.images_per_s, s.amp.c_str(), s.stop_reason.empty() ? "" : ": ",
              s.stop_reason.c_str());
  if (s.best_epoch >= 0) {
    const EpochMetrics& b = s.best_metrics;
    std::printf("Best epoch %d (COCO-exact metrics of the EMA weights):\n", s.best_epoch + 1);
    std::printf("%22s%11s%11s%11s%11s%11s\n", "Class", "Instances", "P", "R", "mAP50", "mAP50-95");
    std::printf("%22s%11s%11.3f%11.3f%11.3f%11.3f\n", "all", "", b.precision, b.recall, b.map50, b.map);
    for (const auto& c : b.classes) {
      std::printf("%22s%11lld%11.3f%11.3f%11.3f%11.3f\n", c.name.substr(0, 21).c_str(),
                  (long long)c.instances, c.precision, c.recall, c.ap50, c.ap);
    }
  }
  if (s.failed_image_loads > 0) {
    std::printf("%lld training image load(s) failed and were replaced by grey, e.g. %s\n",
                (long long)s.failed_image_loads, s.failed_images.empty() ? "?" : s.failed_images[0].c_str());
  }
  if (s.nonfinite_steps > 0) {
    std::printf(
        "%lld optimizer step(s) skipped for a NaN/Inf loss or gradients; %d rollback(s) to the last "
        "checkpoint\n",
        (long long)s.nonfinite_steps, s.nonfinite_rollbacks);
  }
  std::printf("Results in %s (weights/last.safetensors%s)\n", s.run_dir.c_str(),
              s.best.empty() ? "" : ", weights/best.safetensors");
}

}  // namespace ywb::cli
