// The checkpoint files of a run folder and how they are written and checked:
//   weights/last.safetensors      the newest checkpoint (written to a temporary file, renamed over);
//   weights/previous.safetensors  the checkpoint before it: what to resume from when last is damaged;
//   weights/best.safetensors      the checkpoint of the best epoch;
//   weights/epochN.safetensors    every save_period epochs.
// previous, best and epochN are hard links to a last (no copy, no extra space; a copy where the filesystem
// has no hard links), each replaced atomically, so at no moment is one of them torn or missing. A failed
// write (disk full, quota, I/O error) removes its temporary files and leaves the files above as they were.
// Thread rules: one thread at a time (rank 0's trainer, or the background save it waits for:
// train/background_save.h); the static functions from any thread.
#pragma once
#include <string>

#include "core/error.h"
#include "train/checkpoint.h"
#include "train/checkpoint_state.h"

namespace ywb {

/// A checkpoint could not be written. The message says which file, why, the space a checkpoint needs and
/// the space free when the disk is full, and which checkpoint is still intact.
class CheckpointSaveError : public Error {
 public:
  CheckpointSaveError(const std::string& message, bool disk_full) : Error(message), disk_full_(disk_full) {}
  bool diskFull() const { return disk_full_; }

 private:
  bool disk_full_;
};

class CheckpointFiles {
 public:
  static std::string lastPath(const std::string& run_dir);
  static std::string previousPath(const std::string& run_dir);
  static std::string bestPath(const std::string& run_dir);
  static std::string epochPath(const std::string& run_dir, int epoch);

  /// Reads the whole checkpoint at `path` without keeping its tensors: the format marker, the header and
  /// data checksums (when it has them) and the state. Throws ywb::Error naming the file and what is wrong.
  static CheckpointState verify(const std::string& path);

  /// What to tell a user whose checkpoint `damaged` cannot be read (`what`: the reader's message): the file,
  /// what is wrong, and the first intact checkpoint beside it (previous, best, last) with the command that
  /// resumes from it.
  static std::string damagedMessage(const std::string& damaged, const std::string& what);

  /// `last_is_good`: weights/last.safetensors, if there, is a good checkpoint of this run that may become
  /// previous (false for a run resumed from another file, whose last may be the damaged one).
  CheckpointFiles(std::string run_dir, bool last_is_good);

  /// Writes `content` as the new last checkpoint (checksummed; the current last becomes previous first), then
  /// links best (`is_best`) and the periodic copy (`period_epoch` > 0). Removes temporary files a killed
  /// process left in weights/. Throws CheckpointSaveError when something cannot be written.
  void save(const CheckpointContent& content, int epoch, bool is_best, int period_epoch);

 private:
  std::string run_dir_;
  bool last_is_good_;
};

}  // namespace ywb
