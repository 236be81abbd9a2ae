// Resolving a split's sources (folders, .txt lists, single images) to image files, and the
// Ultralytics images/ -> labels/ path rule. Thread rules: pure functions over the file system.
#pragma once
#include <string>
#include <vector>

namespace ywb {

/// True for the image extensions datasets may use (jpg, jpeg, png, bmp, tif, tiff, webp; any case).
bool isImageFile(const std::string& path);
/// Those extensions as messages list them: "jpg, jpeg, png, bmp, tif, tiff, webp".
std::string imageExtensionsText();

/// True when a source names no existing path but holds a wildcard (* ? [): a glob pattern, as Ultralytics
/// takes `path/*.jpg` for a split source and for predict's source. An existing path is never a pattern.
bool isSourcePattern(const std::string& src);

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

/// Lists a split's images (recursively for folders) and its orphan label files. A source is a folder, a .txt
/// list (one image per line, relative to the list's folder), an image, or a glob pattern (`images/*.jpg`,
/// within path components; a path that exists is never a pattern). Throws ywb::Error when a source cannot be
/// read or a pattern matches nothing.
SplitFiles listSplitFiles(const std::vector<std::string>& sources);

/// The images of one source given for inference (predict's source=, export's verification images), resolved
/// as a split source is; entries that name no file (links to nothing, .txt lines) go to `missing`. Throws
/// ywb::Error starting with `what` when the source names nothing or holds no image.
std::vector<std::string> listSourceImages(const std::string& source, const std::string& what,
                                          std::vector<std::string>* missing = nullptr);
/// The same for predict's source=, which takes videos (data/video_io.h's isVideoFile) beside images: in a
/// folder, a list, a pattern, or as the source itself.
std::vector<std::string> listSourceMedia(const std::string& source, const std::string& what,
                                         std::vector<std::string>* missing = nullptr);

}  // namespace ywb
