#include "data/dataset_scanner.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/threads.h"
#include "data/image_io.h"
#include "data/image_list.h"
#include "data/label_cache.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

ScanEntry verifyOne(const std::string& image, int nc) {
  ScanEntry e;
  e.image = image;
  e.label = labelPathFor(image);
  const ImageProbe probe = probeImage(image);
  e.width = probe.width;
  e.height = probe.height;
  if (!probe.ok) e.image_problem = probe.reason;
  std::error_code ec;
  e.label_exists = fs::is_regular_file(e.label, ec);
  if (!e.label_exists && fs::is_symlink(e.label, ec)) {
    // Without a label the image is a background (Ultralytics' rule), but a dangling link is a mistake to
    // show.
    e.labels.problems.push_back({0,
                                 "label file is a broken link (the file it points to does not exist); "
                                 "the image counts as a background"});
  }
  if (e.label_exists) {
    try {
      e.labels = parseLabels(readFile(e.label), nc);
    } catch (const std::exception& ex) {
      e.labels.invalid = true;
      e.labels.problems.push_back({0, std::string("unreadable label file: ") + ex.what()});
    }
  }
  return e;
}

std::vector<ScanEntry> verifyAll(const std::vector<std::string>& images, int nc, int workers) {
  std::vector<ScanEntry> out(images.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < images.size(); i = next++) out[i] = verifyOne(images[i], nc);
  };
  const int n = std::max(1, std::min<int>(workers > 0 ? workers : availableCpus(), int(images.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

void summarise(const ScanCache& scan, ScannedSplit& s) {
  SplitReport& r = s.report;
  r.per_class.assign(s.names.size(), 0);
  r.images = int(scan.entries.size());
  r.orphans = int(scan.orphans.size());
  for (const auto& o : scan.orphans)
    r.problems.push_back({o, 0, "orphan label file: no image for it (skipped)"});
  for (const auto& e : scan.entries) {
    if (!e.image_problem.empty()) r.problems.push_back({e.image, 0, e.image_problem});
    for (const auto& p : e.labels.problems) r.problems.push_back({e.label, p.line, p.reason});
    r.duplicates_removed += e.labels.duplicates_removed;
    r.rows_dropped += e.labels.rows_dropped;
    if (!e.image_problem.empty() || e.labels.invalid) {
      ++r.corrupt;
      std::string reason = e.image_problem;
      if (reason.empty() && !e.labels.problems.empty()) {
        const LabelProblem& p = e.labels.problems.front();
        reason = (p.line > 0 ? "label line " + std::to_string(p.line) + ": " : std::string()) + p.reason;
      }
      s.excluded.push_back({e.image, e.label, reason});
      continue;
    }
    ImageRecord rec;
    rec.image = e.image;
    rec.label = e.label;
    rec.width = e.width;
    rec.height = e.height;
    rec.boxes = e.labels.boxes;
    if (rec.boxes.empty()) {
      ++r.backgrounds;
    } else {
      ++r.with_labels;
    }
    r.boxes += int(rec.boxes.size());
    for (const auto& b : rec.boxes) ++r.per_class[size_t(b.cls)];
    s.images.push_back(std::move(rec));
  }
}

}  // namespace

ScannedSplit scanSplit(const DataConfig& config, const std::string& split, const ScanOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string>* sources = nullptr;
  if (split == "train") sources = &config.train;
  if (split == "val") sources = &config.val;
  if (split == "test") sources = &config.test;
  if (!sources) fail("unknown split '", split, "'; use train, val or test");
  if (sources->empty()) fail(config.yaml, ": has no '", split, ":' split");

  ScannedSplit s;
  s.name = split;
  s.names = config.names;
  s.report.split = split;
  const int nc = int(config.names.size());
  const SplitFiles files = listSplitFiles(*sources);
  for (const auto& m : files.missing)
    s.report.problems.push_back({m, 0, "image does not exist (listed, or a broken link)"});
  if (files.images.empty()) {
    s.report.problems.push_back({(*sources)[0], 0, "no images found (" + imageExtensionsText() + ")"});
  }
  std::vector<std::string> labels;
  labels.reserve(files.images.size());
  for (const auto& img : files.images) labels.push_back(labelPathFor(img));

  // Our cache beside the label folder, under a name Ultralytics never reads; a cache that an earlier version
  // wrote under Ultralytics' name is removed (Ultralytics cannot unpickle it).
  std::string cache_path;
  if (!labels.empty()) {
    cache_path = labelCachePath(labels[0]);
    if (options.use_cache) removeOwnCacheAt(ultralyticsCachePath(labels[0]));
  }
  const std::string cache_dir = fs::path(cache_path).parent_path().string();

  ScanCache scan;
  bool have = false;
  const std::string key = labelCacheKey(files.images, labels, files.orphans, nc);
  if (options.use_cache && !cache_path.empty()) {
    std::string why;
    have = readLabelCache(cache_path, key, &scan, &why);
    // The key matched, but the file may still be damaged inside (a flipped bit): a class outside the data's
    // range would index past the per-class counts, so such a cache is rebuilt like any damaged one.
    for (size_t i = 0; have && i < scan.entries.size(); ++i) {
      for (const LabelBox& b : scan.entries[i].labels.boxes) have = have && b.cls >= 0 && b.cls < nc;
      if (!have) why = "cache is damaged; rebuilt";
    }
    if (have) {
      s.report.from_cache = true;
      s.report.cache_path = cache_path;
    } else if (why != "no cache yet") {
      s.report.cache_note = why;
    }
  }
  if (!have) {
    scan.key = key;
    scan.entries = verifyAll(files.images, nc, options.workers);
    scan.orphans = files.orphans;
    if (options.use_cache && !cache_path.empty()) {
      if (!folderWritable(cache_dir)) {
        s.report.cache_note = "'" + cache_dir +
                              "' is not writable: scanned without a label cache (the next scan " +
                              "verifies every file again)";
      } else {
        try {
          writeLabelCache(cache_path, scan);
          s.report.cache_path = cache_path;
        } catch (const std::exception& e) {
          s.report.cache_note = std::string("label cache not written: ") + e.what();
        }
      }
    }
  }
  summarise(scan, s);
  s.report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace ywb
