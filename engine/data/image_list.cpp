#include "data/image_list.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include <glob.h>

#include "core/error.h"
#include "core/text.h"
#include "data/video_io.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// The image extensions datasets and sources may use, in the order messages list them.
constexpr std::initializer_list<const char*> kImageExtensions = {"jpg", "jpeg", "png", "bmp",
                                                                 "tif", "tiff", "webp"};

void sortUnique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Which files a listing takes: images (a dataset split) or images and videos (predict's source=).
using FileFilter = bool (*)(const std::string&);
bool isImageOrVideo(const std::string& path) {
  return isImageFile(path) || isVideoFile(path);
}

// Lists the files `accept` takes under `dir`, following symbolic links to folders (a dataset folder is often
// a link to another disk) but entering each real folder once, so a link loop cannot recurse forever. A link
// to an image that no longer exists goes to `broken`, so the scan reports it instead of skipping it silently.
void listFolderInto(const fs::path& dir, std::vector<std::string>& out, std::vector<std::string>& broken,
                    FileFilter accept = isImageFile) {
  std::error_code ec;
  std::set<fs::path> entered{fs::canonical(dir, ec)};
  fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec);
  if (ec) fail("cannot list '", dir.string(), "': ", ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) fail("cannot list '", dir.string(), "': ", ec.message());
    const std::string path = it->path().lexically_normal().string();
    if (it->is_directory(ec)) {
      if (!entered.insert(fs::canonical(it->path(), ec)).second || ec) it.disable_recursion_pending();
      ec.clear();
    } else if (it->is_regular_file(ec)) {
      if (accept(path)) out.push_back(path);
    } else if (it->is_symlink(ec) && accept(path) && !fs::exists(it->path(), ec)) {
      broken.push_back(path);
    }
    ec.clear();
  }
}

// The paths a pattern matches (glob(3): * ? [...] within one path component, no `**`), sorted.
std::vector<std::string> globPaths(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  if (rc != 0 && rc != GLOB_NOMATCH) fail("cannot expand the pattern '", pattern, "'");
  return out;
}

// Adds one source's images (the files `accept` takes) to `r`: a folder (recursively; its mirrored labels
// folder to `label_dirs`), a .txt list (entries relative to its folder), an image, or a pattern of any of
// these. `what` names the source in errors ("split source 'x'", "source=x").
void addSource(const std::string& src, const std::string& what, SplitFiles& r,
               std::vector<fs::path>& label_dirs, FileFilter accept = isImageFile) {
  std::error_code ec;
  const fs::path p(src);
  if (isSourcePattern(src)) {
    const std::vector<std::string> matches = globPaths(src);
    if (matches.empty()) fail(what, ": the pattern matches no file");
    for (const auto& m : matches)
      if (fs::is_directory(m, ec) || hasExtension(m, {"txt"}) || accept(m))
        addSource(m, what, r, label_dirs, accept);
  } else if (fs::is_directory(p, ec)) {
    listFolderInto(p, r.images, r.missing, accept);
    const std::string mirrored = labelPathFor((p / "x.jpg").string());
    label_dirs.push_back(fs::path(mirrored).parent_path());
  } else if (hasExtension(src, {"txt"})) {
    std::ifstream in(src);
    if (!in) fail(what, ": cannot read the image list '", src, "'");
    std::string line;
    while (std::getline(in, line)) {
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      size_t b = 0;
      while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
      line = line.substr(b);
      if (line.empty() || line[0] == '#') continue;
      fs::path img(line);
      if (!img.is_absolute()) img = p.parent_path() / img;
      img = img.lexically_normal();
      if (fs::is_regular_file(img, ec)) {
        r.images.push_back(img.string());
      } else {
        r.missing.push_back(img.string());
      }
    }
  } else if (fs::is_regular_file(p, ec) && accept(src)) {
    r.images.push_back(p.lexically_normal().string());
  } else if (accept == isImageOrVideo) {
    fail(what, " is neither a folder, a .txt list, an image (", imageExtensionsText(), "), a video (",
         videoExtensionsText(), ") nor a pattern such as images/*.jpg");
  } else {
    fail(what, " is neither a folder, a .txt image list, an image (", imageExtensionsText(), ") nor a ",
         "pattern such as images/*.jpg");
  }
}

}  // namespace

std::vector<std::string> listImageFolder(const std::string& dir, std::vector<std::string>* broken) {
  std::vector<std::string> out, links;
  listFolderInto(dir, out, links);
  std::sort(out.begin(), out.end());
  if (broken) *broken = std::move(links);
  return out;
}

bool isSourcePattern(const std::string& src) {
  std::error_code ec;
  return src.find_first_of("*?[") != std::string::npos && !fs::exists(src, ec);
}

bool isImageFile(const std::string& path) {
  return hasExtension(path, kImageExtensions);
}

std::string imageExtensionsText() {
  return commaList(kImageExtensions);
}

std::string labelPathFor(const std::string& image_path) {
  std::string p = image_path;
  const std::string sa = "/images/", sb = "/labels/";
  const size_t pos = p.rfind(sa);
  if (pos != std::string::npos) p.replace(pos, sa.size(), sb);
  const size_t slash = p.find_last_of('/');
  const size_t dot = p.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) p.erase(dot);
  return p + ".txt";
}

SplitFiles listSplitFiles(const std::vector<std::string>& sources) {
  SplitFiles r;
  std::vector<fs::path> label_dirs;
  for (const auto& src : sources) addSource(src, "split source '" + src + "'", r, label_dirs);
  sortUnique(r.images);

  // Orphans: label files in a folder mirroring a listed image folder, whose image is not in the split.
  std::set<std::string> expected;
  for (const auto& img : r.images) expected.insert(labelPathFor(img));
  for (const auto& dir : label_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    fs::recursive_directory_iterator it(dir, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string f = it->path().lexically_normal().string();
      if (it->is_regular_file(ec) && hasExtension(f, {"txt"}) && !expected.count(f)) {
        r.orphans.push_back(f);
      }
    }
  }
  sortUnique(r.orphans);
  return r;
}

namespace {

std::vector<std::string> listSource(const std::string& source, const std::string& what,
                                    std::vector<std::string>* missing, FileFilter accept) {
  const bool videos = accept == isImageOrVideo;
  std::error_code ec;
  if (!isSourcePattern(source) && !fs::exists(source, ec))
    fail(what, videos ? ": no such image, video, folder, .txt list or pattern"
                      : ": no such image, folder, .txt image list or pattern");
  SplitFiles r;
  std::vector<fs::path> label_dirs;
  addSource(source, what, r, label_dirs, accept);
  sortUnique(r.images);
  if (r.images.empty())
    fail(what, ": no images (", imageExtensionsText(), ")",
         videos ? " or videos (" + videoExtensionsText() + ")" : "", " there",
         r.missing.empty() ? ""
                           : "; " + std::to_string(r.missing.size()) + " listed or linked " +
                                 (videos ? "file(s)" : "image(s)") + " do not exist");
  if (missing) *missing = std::move(r.missing);
  return r.images;
}

}  // namespace

std::vector<std::string> listSourceImages(const std::string& source, const std::string& what,
                                          std::vector<std::string>* missing) {
  return listSource(source, what, missing, isImageFile);
}

std::vector<std::string> listSourceMedia(const std::string& source, const std::string& what,
                                         std::vector<std::string>* missing) {
  return listSource(source, what, missing, isImageOrVideo);
}

}  // namespace ywb
