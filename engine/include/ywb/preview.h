// Rendering of augmented training samples (a grid of them) with boxes and class names, for the GUI's
// Augmentation tab and `ywb preview`. Torch- and OpenCV-free API.
// Thread rules: a PreviewRenderer is used from one thread at a time; renderPreview() is reentrant.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ywb/augment.h"

namespace ywb {

struct PreviewOptions {
  std::string data;             ///< data.yaml path
  AugmentParams hyp;            ///< augmentation to show
  int imgsz = 640;              ///< training image size (each tile is imgsz x imgsz)
  uint64_t seed = 0;            ///< same seed and settings, same picture
  int count = 4;                ///< samples in the grid (laid out in a near-square grid)
  bool boxes = true;            ///< draw boxes and class names
  std::string split = "train";  ///< which split to sample from
  /// rect=true training: each sample is one image (no Mosaic, MixUp or CutMix) at the rectangular shape of
  /// a batch of that image alone, centred in its imgsz x imgsz tile on a dark surround.
  bool rect = false;
  int stride = 32;  ///< the model's largest stride, for the rectangular shapes (32 in every family here)
};

/// An 8-bit RGB image, rows top to bottom, 3 bytes per pixel, no padding.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;
};

/// Keeps the dataset scan between calls so re-rendering on every slider change is fast.
class PreviewRenderer {
 public:
  /// Loads and scans the dataset (reusing its label cache). Throws ywb::Error.
  explicit PreviewRenderer(const std::string& data_yaml, const std::string& split = "train");
  ~PreviewRenderer();
  PreviewRenderer(const PreviewRenderer&) = delete;
  PreviewRenderer& operator=(const PreviewRenderer&) = delete;

  /// Renders the grid for `options` (options.data and options.split are ignored here). Throws ywb::Error.
  RgbImage render(const PreviewOptions& options);
  /// Number of usable images in the scanned split.
  size_t images() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One-shot convenience: scans options.data and renders. Throws ywb::Error.
RgbImage renderPreview(const PreviewOptions& options);

/// Writes an RgbImage as JPEG (or PNG when the name ends in .png and this build can). Throws ywb::Error.
void saveRgbImage(const RgbImage& image, const std::string& path);

}  // namespace ywb
