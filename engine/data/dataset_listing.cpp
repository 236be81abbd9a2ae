// listDataset(): every split scanned once (data/dataset_scanner.h), its usable and excluded images merged
// into one sorted listing with display names relative to the split's folder.
#include "ywb/dataset_listing.h"

#include <algorithm>
#include <filesystem>

#include "data/dataset_scanner.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// True when `path` lies inside `folder` (lexically, both made absolute).
bool inside(const fs::path& path, const fs::path& folder, fs::path* rel) {
  const fs::path r = path.lexically_relative(folder);
  if (r.empty() || *r.begin() == "..") return false;
  *rel = r;
  return true;
}

// The image path relative to the first of the split's folders containing it, else to the dataset root
// (splits given as .txt lists), else the file name.
std::string displayName(const std::string& image, const std::vector<fs::path>& folders,
                        const fs::path& root) {
  const fs::path p = fs::absolute(image).lexically_normal();
  fs::path rel;
  for (const fs::path& f : folders)
    if (inside(p, f, &rel)) return rel.generic_string();
  if (!root.empty() && inside(p, root, &rel)) return rel.generic_string();
  return p.filename().string();
}

SplitListing listSplit(const ScannedSplit& s, const std::vector<std::string>& sources, const fs::path& root) {
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const std::string& src : sources)
    if (fs::is_directory(src, ec)) folders.push_back(fs::absolute(src).lexically_normal());
  SplitListing out;
  out.split = s.name;
  out.images.reserve(s.images.size() + s.excluded.size());
  for (const ImageRecord& r : s.images) {
    ListedImage li;
    li.image = r.image;
    li.name = displayName(r.image, folders, root);
    li.label = r.label;
    li.status = r.boxes.empty() ? ImageStatus::Background : ImageStatus::Ok;
    li.boxes.reserve(r.boxes.size());
    for (const LabelBox& b : r.boxes) li.boxes.push_back({b.cls, b.cx, b.cy, b.w, b.h});
    out.images.push_back(std::move(li));
  }
  for (const ExcludedImage& e : s.excluded) {
    ListedImage li;
    li.image = e.image;
    li.name = displayName(e.image, folders, root);
    li.label = e.label;
    li.status = ImageStatus::Problem;
    li.problem = e.reason;
    out.images.push_back(std::move(li));
  }
  std::sort(out.images.begin(), out.images.end(),
            [](const ListedImage& a, const ListedImage& b) { return a.image < b.image; });
  return out;
}

}  // namespace

const char* imageStatusName(ImageStatus status) {
  switch (status) {
    case ImageStatus::Ok:
      return "ok";
    case ImageStatus::Background:
      return "background";
    case ImageStatus::Problem:
      return "problem";
  }
  return "?";
}

const ListedImage* DatasetListing::findByLabel(const std::string& label) const {
  for (const SplitListing& s : splits)
    for (const ListedImage& i : s.images)
      if (i.label == label) return &i;
  return nullptr;
}

const ListedImage* DatasetListing::findByImage(const std::string& image) const {
  for (const SplitListing& s : splits)
    for (const ListedImage& i : s.images)
      if (i.image == image) return &i;
  return nullptr;
}

DatasetListing listDataset(const std::string& yaml, int workers) {
  DatasetListing out;
  out.report.config = loadDataConfig(yaml);
  const DataConfig& c = out.report.config;
  ScanOptions opt;
  opt.workers = workers;
  const fs::path root = c.root.empty() ? fs::path() : fs::absolute(c.root).lexically_normal();
  const std::pair<const char*, const std::vector<std::string>*> splits[] = {
      {"train", &c.train}, {"val", &c.val}, {"test", &c.test}};
  for (const auto& [split, sources] : splits) {
    if (sources->empty()) continue;
    const ScannedSplit s = scanSplit(c, split, opt);
    out.report.splits.push_back(s.report);
    out.splits.push_back(listSplit(s, *sources, root));
  }
  return out;
}

}  // namespace ywb
