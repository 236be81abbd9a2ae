// Feature maps of a YOLO model for one image, as plain float buffers (the GUI's Feature maps tab).
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
};

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

}  // namespace ywb
