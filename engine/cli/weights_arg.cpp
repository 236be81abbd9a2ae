#include "cli/weights_arg.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "ywb/error.h"
#include "ywb/pretrained.h"

namespace ywb::cli {
namespace {

class DownloadBar {
 public:
  explicit DownloadBar(bool quiet) : quiet_(quiet), tty_(::isatty(STDERR_FILENO) != 0) {}
  ~DownloadBar() {
    if (open_) std::fputc('\n', stderr);
  }
  DownloadBar(const DownloadBar&) = delete;
  DownloadBar& operator=(const DownloadBar&) = delete;

  void note(const std::string& line) {
    if (!quiet_) std::fprintf(stderr, "ywb: %s\n", line.c_str());
  }

  bool update(uint64_t done, uint64_t total) {
    if (quiet_ || total == 0) return true;
    const int pct = int(100.0 * double(done) / double(total));
    const auto now = std::chrono::steady_clock::now();
    if (tty_) {
      if (done < total && now - last_ < std::chrono::milliseconds(100)) return true;
      last_ = now;
      const int filled = pct * 30 / 100;
      std::fprintf(stderr, "\r  %3d%% [%s%s] %.1f/%.1f MB", pct, std::string(size_t(filled), '#').c_str(),
                   std::string(size_t(30 - filled), ' ').c_str(), double(done) / 1e6, double(total) / 1e6);
      open_ = true;
    } else if (pct / 10 > last_tenth_) {  // logs and pipes: a line per 10%
      last_tenth_ = pct / 10;
      std::fprintf(stderr, "  %d%% (%.1f/%.1f MB)\n", pct, double(done) / 1e6, double(total) / 1e6);
    }
    return true;
  }

 private:
  bool quiet_, tty_;
  bool open_ = false;
  int last_tenth_ = -1;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

std::string resolveWeightsArg(const std::string& value, bool json) {
  if (!weightsNeedDownload(value)) return resolveWeights(value);
  DownloadBar bar(json);
  WeightsFetchOptions o;
  o.note = [&](const std::string& line) { bar.note(line); };
  o.progress = [&](uint64_t done, uint64_t total) { return bar.update(done, total); };
  return resolveWeights(value, o);
}

std::string weightsValue(const Args& a) {
  const std::string w = a.str("weights"), m = a.str("model");
  if (!w.empty() && !m.empty() && w != m)
    throw Error("weights=" + w + " and model=" + m +
                " name two files; give one (model= is Ultralytics' name for "
                "weights=)");
  return w.empty() ? m : w;
}

}  // namespace ywb::cli
