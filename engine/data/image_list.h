// Resolving a split's sources (folders, .txt lists, single images) to image files, and the
// Ultralytics images/ -> labels/ path rule. Thread rules: pure functions over the file system.
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// True for the image extensions datasets may use (jpg, jpeg, png, bmp, tif, tiff, webp; any case).
bool isImageFile(const std::string& path);

/// The label path of an image: the last "/images/" becomes "/labels/", the extension ".txt".
std::string labelPathFor(const std::string& image_path);

struct SplitFiles {
  std::vector<std::string> images;  ///< sorted, unique
  std::vector<std::string>
      orphans;  ///< label files under a labels/ folder mirroring a source folder, without image
  std::vector<std::string> missing;  ///< entries of .txt lists, or links in folders, to no existing file
};

/// The image files under a folder, sorted, recursively; links to folders are followed (each real folder
/// entered once, so link loops end). Links to images that do not exist go to `broken` when given. Throws
/// ywb::Error when the folder cannot be read.
std::vector<std::string> listImageFolder(const std::string& dir, std::vector<std::string>* broken = nullptr);

/// Lists a split's images (recursively for folders) and its orphan label files. Throws ywb::Error when a
/// source cannot be read.
SplitFiles listSplitFiles(const std::vector<std::string>& sources);

}  // namespace ywb
