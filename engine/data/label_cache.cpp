#include "data/label_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"

namespace ywb {
namespace {

using json = nlohmann::json;

struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void add(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void add(const std::string& s) { add(s.data(), s.size() + 1); }
  void add(int64_t v) { add(&v, sizeof v); }
};

void addFile(Fnv& f, const std::string& path) {
  f.add(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    f.add(int64_t(-1));
    return;
  }
  f.add(int64_t(st.st_size));
  f.add(int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
}

json toJson(const ScanEntry& e) {
  json boxes = json::array();
  for (const auto& b : e.labels.boxes) boxes.push_back({b.cls, b.cx, b.cy, b.w, b.h});
  json problems = json::array();
  for (const auto& p : e.labels.problems) problems.push_back({p.line, p.reason});
  return {{"i", e.image},
          {"l", e.label},
          {"le", e.label_exists},
          {"w", e.width},
          {"h", e.height},
          {"ip", e.image_problem},
          {"b", boxes},
          {"p", problems},
          {"inv", e.labels.invalid},
          {"dup", e.labels.duplicates_removed},
          {"drop", e.labels.rows_dropped}};
}

ScanEntry fromJson(const json& j) {
  ScanEntry e;
  e.image = j.at("i").get<std::string>();
  e.label = j.at("l").get<std::string>();
  e.label_exists = j.at("le").get<bool>();
  e.width = j.at("w").get<int>();
  e.height = j.at("h").get<int>();
  e.image_problem = j.at("ip").get<std::string>();
  for (const auto& b : j.at("b")) {
    e.labels.boxes.push_back({b.at(0).get<int>(), b.at(1).get<float>(), b.at(2).get<float>(),
                              b.at(3).get<float>(), b.at(4).get<float>()});
  }
  for (const auto& p : j.at("p"))
    e.labels.problems.push_back({p.at(0).get<int>(), p.at(1).get<std::string>()});
  e.labels.invalid = j.at("inv").get<bool>();
  e.labels.duplicates_removed = j.at("dup").get<int>();
  e.labels.rows_dropped = j.at("drop").get<int>();
  return e;
}

}  // namespace

std::string labelCacheKey(const std::vector<std::string>& images, const std::vector<std::string>& labels,
                          const std::vector<std::string>& orphans, int nc) {
  Fnv f;
  f.add(int64_t(kLabelCacheVersion));
  f.add(int64_t(nc));
  for (const auto& p : images) addFile(f, p);
  for (const auto& p : labels) addFile(f, p);
  f.add(int64_t(orphans.size()));
  for (const auto& p : orphans) addFile(f, p);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(f.h));
  return buf;
}

bool readLabelCache(const std::string& path, const std::string& key, ScanCache* out, std::string* why) {
  std::string bytes;
  try {
    bytes = readFile(path);
  } catch (const Error&) {
    *why = "no cache yet";
    return false;
  }
  try {
    const json j = json::from_msgpack(bytes);
    if (j.at("version").get<int>() != kLabelCacheVersion) {
      *why = "cache of another version; rebuilt";
      return false;
    }
    if (j.at("key").get<std::string>() != key) {
      *why = "cache is stale (files changed); rebuilt";
      return false;
    }
    ScanCache c;
    c.key = key;
    for (const auto& e : j.at("entries")) c.entries.push_back(fromJson(e));
    for (const auto& o : j.at("orphans")) c.orphans.push_back(o.get<std::string>());
    *out = std::move(c);
    return true;
  } catch (const std::exception&) {
    *why = "cache is damaged; rebuilt";
    return false;
  }
}

void writeLabelCache(const std::string& path, const ScanCache& cache) {
  json j;
  j["version"] = kLabelCacheVersion;
  j["key"] = cache.key;
  j["entries"] = json::array();
  for (const auto& e : cache.entries) j["entries"].push_back(toJson(e));
  j["orphans"] = cache.orphans;
  const std::vector<uint8_t> bytes = json::to_msgpack(j);
  writeFileAtomic(path, std::string(bytes.begin(), bytes.end()));
}

std::string labelCachePath(const std::string& first_label) {
  return std::filesystem::path(first_label).parent_path().string() + ".ywb-cache";
}

std::string ultralyticsCachePath(const std::string& first_label) {
  return std::filesystem::path(first_label).parent_path().string() + ".cache";
}

bool removeOwnCacheAt(const std::string& path) {
  std::string bytes;
  try {
    bytes = readFile(path);
  } catch (const Error&) {
    return false;  // absent or unreadable: nothing of ours
  }
  // Ultralytics' cache is np.save() output ("\x93NUMPY" + a pickled dict); a pickle starts with 0x80.
  if (bytes.empty() || bytes.rfind("\x93NUMPY", 0) == 0 || uint8_t(bytes[0]) == 0x80) return false;
  try {
    const json j = json::from_msgpack(bytes);
    if (!j.is_object() || !j.contains("version") || !j.contains("key") || !j.contains("entries"))
      return false;
  } catch (const std::exception&) {
    return false;
  }
  std::error_code ec;
  return std::filesystem::remove(path, ec);
}

bool folderWritable(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  if (::access(dir.c_str(), W_OK) != 0) return false;  // also catches read-only mounts
  // root passes access() regardless of the mode bits; a folder nobody may write to is read-only data.
  if (::geteuid() == 0 && (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) return false;
  return true;
}

}  // namespace ywb
