// Augmentation hyperparameters with Ultralytics' names and defaults, so existing YAML files keep working.
// Thread rules: plain value type.
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// The training-time augmentation settings (Ultralytics names, defaults and meaning).
struct AugmentParams {
  double hsv_h = 0.015;      ///< hue gain, fraction of the hue circle
  double hsv_s = 0.7;        ///< saturation gain
  double hsv_v = 0.4;        ///< value (brightness) gain
  double degrees = 0.0;      ///< rotation range, +/- degrees
  double translate = 0.1;    ///< translation range, +/- fraction of the image size
  double scale = 0.5;        ///< scale range, 1 +/- scale
  double shear = 0.0;        ///< shear range, +/- degrees
  double perspective = 0.0;  ///< perspective range, +/- (0 to 0.001 is sensible)
  double flipud = 0.0;       ///< probability of a vertical flip
  double fliplr = 0.5;       ///< probability of a horizontal flip
  double mosaic = 1.0;       ///< probability of Mosaic-4
  double mixup = 0.0;        ///< probability of MixUp

  /// Sets a field by its Ultralytics name; returns false when the name is not an augmentation setting.
  bool set(const std::string& name, double value);
  /// Reads a field by its Ultralytics name; throws ywb::Error for an unknown name.
  double get(const std::string& name) const;
  /// The field names, in declaration order.
  static const std::vector<std::string>& names();
  /// Throws ywb::Error naming the first value outside its valid range (probabilities in [0,1], etc.).
  void validate() const;
  /// All augmentation off (validation): every gain, range and probability 0.
  static AugmentParams none();
};

}  // namespace ywb
