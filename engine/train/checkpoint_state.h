// What a checkpoint says about its run besides the tensors: where the run stands (epochs done, best so far,
// schedule position, loss scaler, timers) and what the run is (arguments, classes, model), stored as the
// safetensors file's string metadata. The one place that names these keys: the trainer writes a
// CheckpointState after each epoch and reads it back to resume.
// Thread rules: plain value type.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace ywb {

struct CheckpointState {
  // Where the run stands (all required to resume).
  int epoch = 0;  ///< epochs completed: the 0-based epoch a resume starts with
  int epochs = 0;
  double best_fitness = -1;
  int best_epoch = -1;  ///< 0-based; -1: no validated epoch yet
  int64_t ema_updates = 0;
  int64_t last_opt_step = 0;
  double scaler_scale = 0;
  int64_t scaler_growth = 0;
  double elapsed = 0;  ///< seconds of all sessions so far
  int64_t images_trained = 0;
  double train_seconds = 0;
  double lr_scale = 1;          ///< learning rate relative to the arguments' (0.5 after a NaN rollback)
  int nonfinite_rollbacks = 0;  ///< NaN/Inf rollbacks done (train/nonfinite_rollback.h)
  // What the run is.
  std::string args;  ///< the run's arguments as YAML (trainArgsToYaml)
  std::string run_dir;
  int nc = 0;
  std::string names;  ///< JSON array of class names
  int imgsz = 0;
  std::string model_yaml;
  std::string metrics = "{}";  ///< JSON of the epoch's validation metrics
  std::string amp;
  std::string version;
  // The optimizer the run's first session chose (kept on resume: `auto` depends on the epoch count, which a
  // resume may change). Empty in checkpoints of older versions.
  std::string optimizer;
  double optimizer_lr = 0;
  double optimizer_momentum = 0;
  int optimizer_auto = 0;

  /// The metadata entries (numbers written exactly: doubles with 17 significant digits).
  std::map<std::string, std::string> toMetadata() const;
  /// Reads the entries back. Throws ywb::Error naming `source` and the key when a key needed to resume is
  /// missing or is not a number.
  static CheckpointState fromMetadata(const std::map<std::string, std::string>& meta,
                                      const std::string& source);
};

}  // namespace ywb
