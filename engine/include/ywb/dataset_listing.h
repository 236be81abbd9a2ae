// Per-image listing of a dataset's splits from the engine's own scan (the same files, path rule and label
// parser the trainer uses): what the GUI's Dataset tab browses. Torch-free.
// Thread rules: listDataset() is reentrant and runs its own worker threads; the result is a plain value.
#pragma once
#include <string>
#include <vector>

#include "ywb/dataset.h"

namespace ywb {

/// How the trainer treats an image.
enum class ImageStatus {
  Ok,          ///< trained on, with at least one box
  Background,  ///< trained on, no boxes (no label file or an empty one)
  Problem,     ///< excluded from training (unreadable image or an invalid label row)
};

/// "ok", "background" or "problem".
const char* imageStatusName(ImageStatus status);

/// One box of a label file as the trainer reads it (polygon rows become their bounding box).
struct ListedBox {
  int cls = 0;
  float cx = 0, cy = 0, w = 0, h = 0;  ///< normalised to the image size, clipped to [0, 1]
};

struct ListedImage {
  std::string image;  ///< path of the image file
  std::string name;   ///< the image path relative to the split's folder (or the dataset root)
  std::string label;  ///< its label file by the images/ -> labels/ rule (may not exist)
  ImageStatus status = ImageStatus::Ok;
  std::vector<ListedBox> boxes;  ///< empty for backgrounds and problems
  std::string problem;           ///< why a Problem image is excluded ("" otherwise)
};

struct SplitListing {
  std::string split;                ///< "train", "val" or "test"
  std::vector<ListedImage> images;  ///< every image found, usable or not, sorted by path
};

struct DatasetListing {
  DatasetReport report;              ///< the same scan as checkDataset()
  std::vector<SplitListing> splits;  ///< in report order
  /// The listed image whose label file is `label`, or nullptr.
  const ListedImage* findByLabel(const std::string& label) const;
  /// The listed image at path `image`, or nullptr.
  const ListedImage* findByImage(const std::string& image) const;
};

/// Scans every split of the data.yaml (using and refreshing the label cache like checkDataset) and lists
/// each image with its label file, boxes and status. workers 0 = all CPUs. Throws ywb::Error for
/// configuration errors (see loadDataConfig); bad data is listed, never thrown.
DatasetListing listDataset(const std::string& yaml, int workers = 0);

}  // namespace ywb
