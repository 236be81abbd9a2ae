// Where a step's host time goes, by LibTorch operator (`ywb bench model|train ops=N`): what the benchmarks
// report after recording every operator of a few extra steps. Torch-free.
// Thread rules: plain values.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

/// One LibTorch operator (or autograd function), averaged over the recorded steps. Times are host wall time
/// on the threads that ran LibTorch work: on a CPU the kernels themselves, on a GPU the launch and
/// bookkeeping cost (kernels run asynchronously and are not in these times).
struct OpTime {
  std::string name;     ///< "aten::convolution_backward", "autograd::engine::evaluate_function: ..."
  double calls = 0;     ///< per step
  double self_ms = 0;   ///< per step, inside the operator but not inside an operator it called
  double total_ms = 0;  ///< per step, inside the operator (a recursive call counted once)
};

/// The recorded steps: operators most self time first, and what the steps cost while recorded.
struct OpProfileResult {
  std::vector<OpTime> ops;
  int steps = 0;                ///< recorded steps (after the timed ones: recording slows a step)
  double recorded_step_ms = 0;  ///< mean wall time of a recorded step
  std::string trace;            ///< the Chrome trace written, or empty
  int listed = 20;              ///< how many operators the text and the JSON list (0: all)
};

/// The first `listed` operators as a table, with each one's share of the recorded step and the share all
/// operators' self time covers.
std::string opTimesText(const OpProfileResult& r);

}  // namespace ywb
