// Augmentation hyperparameters with Ultralytics' names and defaults, so existing YAML files keep working.
// Thread rules: plain value type.
#pragma once
#include <string>
#include <vector>

#include "ywb/train_args.h"

namespace ywb {

/// The training-time augmentation settings: the augmentation rows of the training-argument table
/// (YWB_AUGMENT_ARGS in ywb/train_args.h) give the fields, their Ultralytics names, defaults and valid
/// ranges.
struct AugmentParams {
#define YWB_AUGMENT_FIELD(T_, N_, D_, G_, LO_, HI_, H_) T_ N_ = D_;
  YWB_AUGMENT_ARGS(YWB_AUGMENT_FIELD)
#undef YWB_AUGMENT_FIELD

  /// Sets a field by its Ultralytics name; returns false when the name is not an augmentation setting.
  bool set(const std::string& name, double value);
  /// Reads a field by its Ultralytics name; throws ywb::Error for an unknown name.
  double get(const std::string& name) const;
  /// The field names, in declaration order.
  static const std::vector<std::string>& names();
  /// Throws ywb::Error naming the first value outside its valid range (the table's, as TrainArgs::set).
  void validate() const;
  /// All augmentation off (validation): every gain, range and probability 0.
  static AugmentParams none();
};

/// The augmentation settings of a run's arguments (typed: no text round trip).
AugmentParams augmentParamsOf(const TrainArgs& args);
/// Writes `params` into the augmentation fields of `args` (the inverse of augmentParamsOf).
void applyAugmentParams(const AugmentParams& params, TrainArgs& args);

}  // namespace ywb
