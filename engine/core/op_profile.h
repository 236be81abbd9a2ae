// Records every LibTorch operator a stretch of work runs, with LibTorch's legacy profiler (the same API in
// 1.13 and 2.x), and sums it by operator (ywb/op_times.h): `ywb bench model|train ops=N trace=FILE`.
// Thread rules: construct and stop on one thread; LibTorch carries the recording to the threads it hands
// that thread's work to (autograd's device threads, at::launch), not to other threads (data loader workers).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "ywb/op_times.h"

namespace ywb {

/// At most this many steps are recorded: LibTorch 1.13's recorder (Debian 12's) holds on to about 200-350 MB
/// of host memory per recorded training step until it stops, and its steps run 1.2-2x slower on a CPU (fresh
/// pages); LibTorch 2.6's does neither (docs/PERFORMANCE.md, "Operators").
inline constexpr int kMaxRecordedSteps = 5;

/// How many further steps a benchmark records for `ops=` / `trace=` after its `timed` ones: none when neither
/// is given, else min(timed, kMaxRecordedSteps). Throws ywb::Error for ops < 0.
int recordedSteps(int ops, const std::string& trace, int timed);

/// The benchmarks' help for ops= and trace=.
std::string opsHelp();

class OpRecorder {
 public:
  /// Starts recording on the calling thread. Throws ywb::Error when a profiler is already recording there.
  OpRecorder();
  /// Stops recording if stop() was not called (what was recorded is dropped).
  ~OpRecorder();
  OpRecorder(const OpRecorder&) = delete;
  OpRecorder& operator=(const OpRecorder&) = delete;

  /// Stops recording and sums every operator's calls, self and total time, divided by `steps` (the steps the
  /// recording covered); `ops` > 0 is how many the result lists (else its default). `trace_path` non-empty:
  /// also writes every recorded range as a Chrome trace (JSON, opens in chrome://tracing or
  /// ui.perfetto.dev), atomically; throws ywb::Error when it cannot be written.
  OpProfileResult stop(int steps, int ops, const std::string& trace_path);

 private:
  bool running_ = false;
};

/// The first `listed` operators and the recording's figures, for the benchmarks' --json output.
nlohmann::json opTimesJson(const OpProfileResult& r);

}  // namespace ywb
