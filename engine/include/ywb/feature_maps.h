// Feature maps of a YOLO model for one image, and its head's per-level class-score maps, as plain float
// buffers (the GUI's Feature maps tab).
// Torch-free. Thread rules: a ModelHandle is used by one thread at a time; distinct handles are independent.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ywb/model_info.h"

namespace ywb {

/// One layer's output for one image: row-major [channels, height, width].
struct FeatureMap {
  int layer = 0, channels = 0, height = 0, width = 0;
  std::string module;  ///< "Conv", "C2f", ...
  std::vector<float> data;
  int stride =
      0;  ///< a head score map's level stride (8, 16, 32; extractHeadScoreMaps); 0 for a layer's output
};

/// A branch of a detection head: every model's one-to-many branch (the one NMS follows), or an end-to-end
/// head's one-to-one branch (YOLO26: inference without NMS).
enum class HeadBranch { OneToMany, OneToOne };

/// A view of an 8-bit RGB image in memory (not owned), row-major, 3 bytes per pixel.
struct RgbView {
  int width = 0, height = 0;
  const uint8_t* pixels = nullptr;
  int64_t row_bytes = 0;  ///< bytes from one row to the next; 0 = 3 * width
};

/// Owns a detection model behind a pimpl so that torch-free code can hold and use it.
class ModelHandle {
 public:
  struct Impl;  ///< defined in engine/model/model_handle_impl.h (engine-internal)
  /// A freshly initialised model (random weights) from a built-in name, YAML path or YAML text.
  static ModelHandle create(const std::string& yaml_or_name, int nc = 0);
  explicit ModelHandle(std::unique_ptr<Impl> impl);
  ModelHandle(ModelHandle&&) noexcept;
  ModelHandle& operator=(ModelHandle&&) noexcept;
  ~ModelHandle();

  /// Number of layers that can be tapped (all but the Detect head).
  int tappableLayers() const;
  /// Index of the Detect head, the last layer (its maps: extractHeadScoreMaps).
  int headLayer() const { return tappableLayers(); }
  /// Whether the head has one-to-one branches beside its one-to-many ones (YOLO26).
  bool endToEnd() const;
  /// Module name of layer i ("Conv", "C2f", ...).
  std::string layerModule(int layer) const;
  /// The model's layer table (index, module, output channels and stride, ...), as ywb::modelInfo lists it;
  /// layerOutputShape() gives a row's output shape at an image size.
  std::vector<ModelLayerRow> layerTable() const;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Letterboxes `image` to `imgsz` (longest side; grey 114 padding to a multiple of the largest stride), runs
/// the model up to the deepest requested layer without autograd state, and returns each requested layer's
/// output in the order asked. Throws ywb::Error for an empty image or a layer out of range.
std::vector<FeatureMap> extractFeatureMaps(ModelHandle& model, const RgbView& image,
                                           const std::vector<int>& layers, int imgsz = 640);

/// The head's class-score maps for `image`, letterboxed as extractFeatureMaps does: per level (P3, P4, P5:
/// strides 8, 16, 32) one channel [1, H/stride, W/stride] holding each anchor's best class score (the
/// maximum over classes of the sigmoid of the class logits) from `branch`. Throws ywb::Error as
/// extractFeatureMaps does, and for HeadBranch::OneToOne on a model that is not end-to-end.
std::vector<FeatureMap> extractHeadScoreMaps(ModelHandle& model, const RgbView& image, HeadBranch branch,
                                             int imgsz = 640);

}  // namespace ywb
