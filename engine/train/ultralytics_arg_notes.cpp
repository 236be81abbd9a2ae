// Why an Ultralytics argument is not a training argument here: one table, read by `ywb train` (an error that
// says why instead of "unknown argument") and by args.yaml readers (a note beside the key they ignore).
#include <map>

#include "ywb/train_args.h"

namespace ywb {

std::string ultralyticsArgumentNote(const std::string& key) {
  static const std::map<std::string, std::string> notes = {
      {"copy_paste",
       "Copy-Paste pastes segmentation masks; this trainer reads polygon labels as boxes (Ultralytics skips "
       "it "
       "on box labels too)"},
      {"copy_paste_mode", "Copy-Paste is not implemented here (see copy_paste)"},
      {"overlap_mask", "a segmentation setting (task=segment); this trainer trains detectors"},
      {"mask_ratio", "a segmentation setting (task=segment); this trainer trains detectors"},
      {"retina_masks", "a segmentation setting (task=segment); this trainer trains detectors"},
      {"pose", "a pose-estimation loss gain (task=pose); this trainer trains detectors"},
      {"kobj", "a pose-estimation loss gain (task=pose); this trainer trains detectors"},
      {"rle", "a pose-estimation loss gain (task=pose); this trainer trains detectors"},
      {"angle", "an oriented-box loss gain (task=obb); this trainer trains detectors"},
      {"dropout", "a classification setting (task=classify); this trainer trains detectors"},
      {"auto_augment", "a classification augmentation (task=classify); this trainer trains detectors"},
      {"erasing", "a classification augmentation (task=classify); this trainer trains detectors"},
      {"task", "the task is detection; the verb (ywb train, val, predict, export) is the mode"},
      {"mode", "the verb (ywb train, val, predict, export) is the mode"},
      {"compile",
       "torch.compile is PyTorch's Python compiler; this step is native C++ already (cuda_graphs=true "
       "captures it on a GPU)"},
      {"profile", "`ywb bench train` times each part of the step, `ywb bench epoch` a whole epoch"},
      {"verbose", "ywb train always reports each epoch; --json prints one event per line"},
      {"save",
       "checkpoints are always written (save_period=N adds one every N epochs; on_save_error=continue trains "
       "on when the disk refuses)"},
  };
  const auto it = notes.find(key);
  return it == notes.end() ? std::string() : it->second;
}

}  // namespace ywb
