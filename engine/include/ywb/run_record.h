// The run record as JSON event lines: what `ywb train --json` prints and what the GUI reads back from a
// child run. This file is the only place that knows the field names; writer and reader are one codec, so
// every field a struct carries survives the trip (round-trip test: tests/engine/test_run_record.cpp).
// Thread rules: free functions on values; safe from any thread.
#pragma once
#include <string>

#include "ywb/train_events.h"

namespace ywb {

/// One JSON line (no newline) per event. Epochs and batches are counted from 1 in the JSON (as the terminal
/// shows them) and from 0 in the structs.
std::string phaseEventJson(TrainPhase phase, const std::string& detail);
std::string logEventJson(const std::string& line);
std::string stepEventJson(const StepMetrics& m);
std::string epochEventJson(const EpochMetrics& m);
std::string finishedEventJson(const TrainSummary& s);

/// A decoded event line.
struct TrainEvent {
  enum class Kind { None, Phase, Log, Step, Epoch, Finished };
  Kind kind = Kind::None;  ///< None: the line is not a JSON event (show it as text)
  TrainPhase phase = TrainPhase::Scanning;
  std::string text;  ///< the phase's detail or the log line
  StepMetrics step;
  EpochMetrics epoch;
  TrainSummary summary;
};

/// Decodes one line written by the functions above. Never throws: anything else is Kind::None.
TrainEvent parseTrainEvent(const std::string& line);

/// Where a step lies on the charts' epoch axis: epoch + (batch + 1) / batches, so the last step of epoch 0
/// is at 1.0 (the same x as that epoch's validation point).
inline double stepEpochPosition(const StepMetrics& m) {
  return double(m.epoch) + double(m.batch + 1) / double(m.batches > 0 ? m.batches : 1);
}

}  // namespace ywb
