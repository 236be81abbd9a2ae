// Resuming a run: which checkpoint `resume=` names (read and verified, with a pointer to the intact one
// beside a damaged file), the arguments the resumed run uses (the run's own, with the few a resume may
// change) and the epoch count it trains to. The public entry points are resolveResumeCheckpoint and
// resolveTrainArgs (ywb/trainer.h). Thread rules: free functions; call from any thread.
#pragma once
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "train/checkpoint_state.h"
#include "ywb/train_args.h"

namespace ywb {

/// The arguments a resume may change; any other that differs from the run's own is refused.
const std::vector<std::string>& resumeChangeableArgs();

struct ResumedArgs {
  TrainArgs args;                     ///< the run's own arguments with the allowed changes; `resume` kept
  std::vector<std::string> changes;   ///< one line per changed argument, e.g. "epochs: 3 -> 5"
  std::vector<std::string> warnings;  ///< e.g. a changed device: the run is no longer bit-reproducible
};

/// Resolves `args` (whose `given` keys are what the caller asks for) against the checkpoint's state `st`
/// read from `ckpt`. Throws ywb::Error listing every argument that differs and may not change, with its old
/// and new value, and when epochs= is fewer than the epochs already completed.
ResumedArgs resumeArgsFrom(const CheckpointState& st, const TrainArgs& args, const std::string& ckpt);

/// The epoch count a resumed run trains to: the caller's epochs= when it differs from the run's own
/// (the schedule then follows it from the resumed epoch on), else the checkpoint's (a time budget may have
/// re-planned it).
int resumeEpochCount(const CheckpointState& st, const TrainArgs& resolved);

/// A run folder whose process died before its first checkpoint was written (args.yaml there, no
/// weights/last.safetensors): the path of its args.yaml, from which a resume starts the run over in the same
/// folder; "" otherwise.
std::string startOverArgsYaml(const std::string& resume);

/// Reads the checkpoint that `resume` (a run folder or a checkpoint file) names, verified. A damaged file
/// throws ywb::Error naming it, what is wrong, and the intact checkpoint beside it with the command to resume
/// from that one (CheckpointFiles::damagedMessage).
SafetensorsFile readResumeCheckpoint(const std::string& resume);

}  // namespace ywb
