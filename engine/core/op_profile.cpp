#include "core/op_profile.h"

#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"

namespace ywb {
namespace prof = torch::autograd::profiler;

namespace {

// One closed range, for the trace: microseconds from the recording's first event.
struct Range {
  const char* name;
  uint64_t thread;
  double start_us;
  double dur_us;
};

struct Sums {
  double calls = 0, self_us = 0, total_us = 0;
};

// Pairs each thread's push and pop events (by their RecordFunction handle; a pop is recorded in the list of
// the thread that pushed) and charges every range's time to its operator: all of it to `total` (once for a
// recursive call), what no range nested in it took to `self`.
void sumRanges(const prof::thread_event_lists& lists, std::map<std::string, Sums>& sums,
               std::vector<Range>* ranges) {
  double origin = std::numeric_limits<double>::infinity();
  for (const auto& list : lists)
    for (const auto& e : list) origin = std::min(origin, e.cpuUs());
  struct Open {
    const prof::LegacyEvent* push;
    double child_us;
  };
  for (const auto& list : lists) {
    std::vector<Open> open;
    for (const auto& e : list) {
      if (e.kind() == prof::EventKind::PushRange) {
        open.push_back({&e, 0.0});
        continue;
      }
      if (e.kind() != prof::EventKind::PopRange) continue;  // marks, memory events
      auto it = std::find_if(open.rbegin(), open.rend(),
                             [&](const Open& o) { return o.push->handle() == e.handle(); });
      if (it == open.rend()) continue;    // pushed before the recording started
      open.erase(it.base(), open.end());  // ranges left open inside it (none in practice)
      const Open o = open.back();
      open.pop_back();
      const double dur = o.push->cpuElapsedUs(e);
      const std::string name = o.push->name();
      Sums& s = sums[name];
      s.calls += 1;
      s.self_us += dur - o.child_us;
      if (std::none_of(open.begin(), open.end(), [&](const Open& p) { return name == p.push->name(); }))
        s.total_us += dur;
      if (!open.empty()) open.back().child_us += dur;
      if (ranges) ranges->push_back({o.push->name(), o.push->threadId(), o.push->cpuUs() - origin, dur});
    }
  }
}

void writeTrace(const std::string& path, const std::vector<Range>& ranges) {
  std::unordered_map<const char*, std::string> quoted;  // names escaped once
  writeFileAtomic(path, [&](std::ostream& os) {
    os << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
    char num[96];
    for (size_t i = 0; i < ranges.size(); ++i) {
      const Range& r = ranges[i];
      auto q = quoted.find(r.name);
      if (q == quoted.end()) q = quoted.emplace(r.name, nlohmann::json(std::string(r.name)).dump()).first;
      std::snprintf(num, sizeof num, ",\"ph\":\"X\",\"pid\":0,\"tid\":%llu,\"ts\":%.3f,\"dur\":%.3f}",
                    static_cast<unsigned long long>(r.thread), r.start_us, r.dur_us);
      os << (i ? ",\n" : "\n") << "{\"name\":" << q->second << num;
    }
    os << "\n]}\n";
  });
}

}  // namespace

OpRecorder::OpRecorder() {
  try {
    prof::enableProfilerLegacy(
        torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  } catch (const c10::Error& e) {
    fail("cannot record LibTorch's operators: ", e.what_without_backtrace());
  }
  running_ = true;
}

OpRecorder::~OpRecorder() {
  if (!running_) return;
  try {
    prof::disableProfilerLegacy();
  } catch (...) {  // a destructor: the recording is dropped either way
  }
}

int recordedSteps(int ops, const std::string& trace, int timed) {
  if (ops < 0) fail("ops=", ops, " must be >= 0 (the number of operators to list)");
  return ops > 0 || !trace.empty() ? std::min(timed, kMaxRecordedSteps) : 0;
}

std::string opsHelp() {
  return "  ops=N        then up to " + std::to_string(kMaxRecordedSteps) +
         " further steps with every LibTorch operator recorded: the N with\n"
         "               the most self time, per step (host time: on a GPU, launch cost, not kernels)\n"
         "  trace=FILE   those steps as a Chrome trace (chrome://tracing, ui.perfetto.dev)";
}

OpProfileResult OpRecorder::stop(int steps, int ops, const std::string& trace_path) {
  if (!running_) fail("the operator recording was already stopped");
  running_ = false;
  const prof::thread_event_lists lists = prof::disableProfilerLegacy();
  std::map<std::string, Sums> sums;
  std::vector<Range> ranges;
  sumRanges(lists, sums, trace_path.empty() ? nullptr : &ranges);
  OpProfileResult r;
  r.steps = steps;
  if (ops > 0) r.listed = ops;
  const double per = 1.0 / (1000.0 * std::max(1, steps));  // microseconds in all -> ms per step
  for (const auto& [name, s] : sums)
    r.ops.push_back({name, s.calls / std::max(1, steps), s.self_us * per, s.total_us * per});
  std::stable_sort(r.ops.begin(), r.ops.end(),
                   [](const OpTime& a, const OpTime& b) { return a.self_ms > b.self_ms; });
  if (!trace_path.empty()) {
    writeTrace(trace_path, ranges);
    r.trace = trace_path;
  }
  return r;
}

std::string opTimesText(const OpProfileResult& r) {
  double self = 0;
  for (const auto& op : r.ops) self += op.self_ms;
  const double step = std::max(1e-9, r.recorded_step_ms);
  std::ostringstream os;
  char line[320];
  std::snprintf(
      line, sizeof line,
      "operators of %d further step(s), recorded (%.1f ms per step while recorded; the operators' self "
      "time is %.1f%% of it):\n  %9s %6s %9s %7s  %s\n",
      r.steps, r.recorded_step_ms, 100.0 * self / step, "self ms", "share", "total ms", "calls", "operator");
  os << line;
  const size_t n = r.listed > 0 ? std::min(r.ops.size(), size_t(r.listed)) : r.ops.size();
  for (size_t i = 0; i < n; ++i) {
    const OpTime& op = r.ops[i];
    std::snprintf(line, sizeof line, "  %9.2f %5.1f%% %9.2f %7.0f  %s\n", op.self_ms,
                  100.0 * op.self_ms / step, op.total_ms, op.calls, op.name.c_str());
    os << line;
  }
  if (n < r.ops.size()) os << "  (" << r.ops.size() - n << " more operators)\n";
  if (!r.trace.empty()) os << "Chrome trace: " << r.trace << "\n";
  return os.str();
}

nlohmann::json opTimesJson(const OpProfileResult& r) {
  nlohmann::json ops = nlohmann::json::array();
  const size_t n = r.listed > 0 ? std::min(r.ops.size(), size_t(r.listed)) : r.ops.size();
  for (size_t i = 0; i < n; ++i)
    ops.push_back({{"name", r.ops[i].name},
                   {"calls", r.ops[i].calls},
                   {"self_ms", r.ops[i].self_ms},
                   {"total_ms", r.ops[i].total_ms}});
  nlohmann::json j = {{"steps", r.steps}, {"recorded_step_ms", r.recorded_step_ms}, {"ops", ops}};
  if (!r.trace.empty()) j["trace"] = r.trace;
  return j;
}

}  // namespace ywb
