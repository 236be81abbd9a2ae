// Why an Ultralytics argument is not a training argument here: one table, read by `ywb train` (an error that
// says why instead of "unknown argument") and by args.yaml readers (a note beside the key they ignore).
#include <map>

#include "ywb/train_args.h"

namespace ywb {

std::string ultralyticsArgumentNote(const std::string& key) {
  // Settings of Ultralytics' other tasks: what they are and which task.
  static const std::map<std::string, std::string> other_task = {
      {"overlap_mask", "a segmentation setting (task=segment)"},
      {"mask_ratio", "a segmentation setting (task=segment)"},
      {"retina_masks", "a segmentation setting (task=segment)"},
      {"pose", "a pose-estimation loss gain (task=pose)"},
      {"kobj", "a pose-estimation loss gain (task=pose)"},
      {"rle", "a pose-estimation loss gain (task=pose)"},
      {"angle", "an oriented-box loss gain (task=obb)"},
      {"dropout", "a classification setting (task=classify)"},
      {"auto_augment", "a classification augmentation (task=classify)"},
      {"erasing", "a classification augmentation (task=classify)"},
  };
  static const std::map<std::string, std::string> notes = {
      {"copy_paste",
       "Copy-Paste pastes segmentation masks; this trainer reads polygon labels as boxes "
       "(Ultralytics skips it on box labels too)"},
      {"copy_paste_mode", "Copy-Paste is not implemented here (see copy_paste)"},
      {"task", "the task is detection; the verb (ywb train, val, predict, export) is the mode"},
      {"mode", "the verb (ywb train, val, predict, export) is the mode"},
      {"compile",
       "torch.compile is PyTorch's Python compiler; this step is native C++ already (cuda_graphs=true "
       "captures it on a GPU)"},
      {"profile", "`ywb bench train` times each part of the step, `ywb bench epoch` a whole epoch"},
      {"verbose", "ywb train always reports each epoch; --json prints one event per line"},
      {"save",
       "checkpoints are always written (save_period=N adds one every N epochs; on_save_error=continue "
       "trains on when the disk refuses)"},
  };
  if (const auto it = other_task.find(key); it != other_task.end())
    return it->second + "; this trainer trains detectors";
  const auto it = notes.find(key);
  return it == notes.end() ? std::string() : it->second;
}

}  // namespace ywb
