#include "ywb/train_log.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace ywb {
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

// printf into a string (the terminal's column layout, checked by the compiler).
[[gnu::format(printf, 1, 2)]] std::string format(const char* fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string out(size_t(std::max(n, 0)), '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  va_end(again);
  return out;
}

}  // namespace

std::string phaseLogLine(TrainPhase phase, const std::string& detail) {
  if (phase == TrainPhase::Training || phase == TrainPhase::Warmup || phase == TrainPhase::Saving) return "";
  return std::string("[") + trainPhaseName(phase) + "] " + detail;
}

std::string stepLogHeader() {
  return format("%11s%10s%11s%11s%11s%11s%7s%9s", "Epoch", "mem", "box_loss", "cls_loss", "dfl_loss",
                "Instances", "Size", "img/s");
}

std::string stepLogLine(const StepMetrics& m) {
  const double frac = double(m.batch + 1) / double(std::max<int64_t>(1, m.batches));
  const int width = 20, filled = int(frac * width);
  std::string bar(size_t(filled), '#');
  bar.resize(size_t(width), '.');
  char mem[16];
  std::snprintf(mem, sizeof mem, "%.2gG", double(m.device_mem) / (1 << 30));
  return format("%11s%10s%11.4g%11.4g%11.4g%11d%7d%9.1f %3d%% [%s] %lld/%lld %s<%s",
                (std::to_string(m.epoch + 1) + "/" + std::to_string(m.epochs)).c_str(), mem, m.box, m.cls,
                m.dfl, m.instances, m.imgsz, m.images_per_s, int(frac * 100), bar.c_str(),
                (long long)(m.batch + 1), (long long)m.batches, clock(m.elapsed_s).c_str(),
                clock(m.eta_s).c_str());
}

std::vector<std::string> epochLogLines(const EpochMetrics& m) {
  if (!m.validated) return {};
  return {format("%22s%11s%11s%11s%11s  (COCO-exact mAP)%s", "Box(P", "R", "mAP50", "mAP50-95", "val loss",
                 m.best ? "  new best" : ""),
          format("%22.3f%11.3f%11.3f%11.3f%11.3f", m.precision, m.recall, m.map50, m.map,
                 m.val_box + m.val_cls + m.val_dfl)};
}

std::vector<std::string> finishedLogLines(const TrainSummary& s) {
  std::vector<std::string> out = {""};
  out.push_back(format("%d epochs completed in %s (%.1f images/s training, AMP %s)%s%s", s.epochs_completed,
                       clock(s.seconds).c_str(), s.images_per_s, s.amp.c_str(),
                       s.stop_reason.empty() ? "" : ": ", s.stop_reason.c_str()));
  if (s.best_epoch >= 0) {
    const EpochMetrics& b = s.best_metrics;
    out.push_back(format("Best epoch %d (COCO-exact metrics of the EMA weights):", s.best_epoch + 1));
    out.push_back(format("%22s%11s%11s%11s%11s%11s", "Class", "Instances", "P", "R", "mAP50", "mAP50-95"));
    out.push_back(
        format("%22s%11s%11.3f%11.3f%11.3f%11.3f", "all", "", b.precision, b.recall, b.map50, b.map));
    for (const auto& c : b.classes) {
      out.push_back(format("%22s%11lld%11.3f%11.3f%11.3f%11.3f", c.name.substr(0, 21).c_str(),
                           (long long)c.instances, c.precision, c.recall, c.ap50, c.ap));
    }
  }
  if (s.failed_image_loads > 0) {
    out.push_back(format("%lld training image load(s) failed and were replaced by grey, e.g. %s",
                         (long long)s.failed_image_loads,
                         s.failed_images.empty() ? "?" : s.failed_images[0].c_str()));
  }
  if (s.nonfinite_steps > 0) {
    out.push_back(
        format("%lld optimizer step(s) skipped for a NaN/Inf loss or gradients; %d rollback(s) to "
               "the last checkpoint",
               (long long)s.nonfinite_steps, s.nonfinite_rollbacks));
  }
  out.push_back(format("Results in %s (weights/last.safetensors%s)", s.run_dir.c_str(),
                       s.best.empty() ? "" : ", weights/best.safetensors"));
  return out;
}

std::vector<std::string> readRunLog(const std::string& run_dir, std::size_t max_bytes, bool* found) {
  const std::filesystem::path path = std::filesystem::path(run_dir) / kRunLogFile;
  std::error_code ec;
  *found = std::filesystem::is_regular_file(path, ec);
  if (!*found) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read '", path.string(), "': ", std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > std::streamoff(max_bytes) ? size - std::streamoff(max_bytes) : 0;
  in.seekg(start);
  std::string text(size_t(size - start), '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (!in) fail("cannot read '", path.string(), "': read error");
  std::vector<std::string> lines;
  size_t pos = 0;
  if (start > 0) {  // the first line read is the tail of a longer one: drop it
    const size_t nl = text.find('\n');
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

}  // namespace ywb
