// resolveWeights and fetchOfficialWeights (ywb/pretrained.h): cache first, then a verified download.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "hub/weights_download.h"
#include "ywb/pretrained.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// Largest body accepted: 8x the biggest official file (yolov8x, ~140 MB) would still be far below this.
constexpr uint64_t kMaxDownloadBytes = uint64_t(2) << 30;

std::string cacheDirOf(const WeightsFetchOptions& o) {
  return o.cache_dir.empty() ? weightsCacheDir() : o.cache_dir;
}

std::string mb(uint64_t bytes) {
  if (bytes < 100000) return std::to_string(bytes) + " bytes";
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << double(bytes) / 1e6 << " MB";
  return os.str();
}

long stallTimeout(const WeightsFetchOptions& o) {
  if (const char* v = std::getenv("YWB_WEIGHTS_TIMEOUT"); v && *v) {
    char* end = nullptr;
    const long s = std::strtol(v, &end, 10);
    if (end && *end == '\0' && s > 0) return s;
  }
  return o.stall_timeout_s;
}

// An exclusive lock on <cache>/<file>.lock for the whole fetch: two programs fetching the same file take
// turns (the second then finds it cached) instead of writing into one partial file.
class FetchLock {
 public:
  explicit FetchLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) fail("cannot create ", path, " (is the weights cache folder writable?)");
    if (::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fail("cannot lock ", path);
    }
  }
  ~FetchLock() { ::close(fd_); }
  FetchLock(const FetchLock&) = delete;
  FetchLock& operator=(const FetchLock&) = delete;

 private:
  int fd_;
};

[[noreturn]] void failDownload(const OfficialWeights& w, const std::string& url,
                               const std::string& final_path, const std::string& part,
                               const hub::DownloadResult& r, long stall_s) {
  const std::string by_hand = " To work offline, download " + url + " on a machine that can, and put it at " +
                              final_path + " (or point " + kWeightsUrlEnv +
                              " at a mirror, or give the file's path).";
  const std::string kept = r.bytes > 0 ? " The " + mb(r.bytes) + " received are kept in " + part +
                                             "; running again resumes from there."
                                       : "";
  switch (r.status) {
    case hub::DownloadStatus::Cancelled:
      throw WeightsFetchCancelled("download of " + w.file + " cancelled." + kept);
    case hub::DownloadStatus::HttpError:
      fail("cannot download ", w.file, ": ", url, " answered HTTP ", r.http_code,
           r.http_code == 404 ? " (not found: is the base address right?)" : "", ".", by_hand);
    case hub::DownloadStatus::Offline:
      fail("cannot download ", w.file, " from ", url, ": ", r.detail, " (no network?).", by_hand);
    case hub::DownloadStatus::Stalled:
      fail("download of ", w.file, " from ", url, " stalled: no data for ", stall_s, " s (", r.detail, ").",
           kept, by_hand);
    case hub::DownloadStatus::Interrupted:
      fail("download of ", w.file, " from ", url, " was interrupted (", r.detail, ").", kept, by_hand);
    case hub::DownloadStatus::TooLarge:
      fail("refused the download of ", w.file, " from ", url, ": larger than ", mb(kMaxDownloadBytes),
           " (an official file is at most ~150 MB)");
    default:
      fail("cannot download ", w.file, " from ", url, ": ", r.detail, ".", by_hand);
  }
}

}  // namespace

std::string fetchOfficialWeights(const OfficialWeights& w, const WeightsFetchOptions& o) {
  const fs::path dir = cacheDirOf(o);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("cannot create the weights cache folder ", dir.string(), ": ", ec.message());
  const std::string final_path = (dir / w.file).string();
  const std::string part = final_path + ".part";
  const FetchLock lock(final_path + ".lock");
  if (fs::is_regular_file(final_path, ec)) return final_path;  // another program fetched it meanwhile

  const std::string url = (o.base_url.empty() ? weightsBaseUrl() : o.base_url) + "/" + w.file;
  if (o.note)
    o.note("downloading " + w.file + " (" + (w.size_exact ? "" : "about ") + mb(w.size_bytes) + ") from " +
           url + " to " + final_path);
  hub::DownloadRequest req;
  req.url = url;
  req.part_path = part;
  req.connect_timeout_s = o.connect_timeout_s;
  req.stall_timeout_s = stallTimeout(o);
  req.max_bytes = kMaxDownloadBytes;
  req.progress = o.progress;
  hub::DownloadResult r = hub::downloadToFile(req);
  if (r.status == hub::DownloadStatus::HttpError && r.http_code == 416 && r.bytes > 0) {
    // 416: the server has nothing after our partial bytes. They are the whole file (a run that stopped before
    // its rename) or another file: kept when they verify, else fetched again from the start.
    try {
      verifyOfficialWeights(part, w);
      r.status = hub::DownloadStatus::Complete;
    } catch (const Error&) {
      fs::remove(part, ec);
      r = hub::downloadToFile(req);
    }
  }
  if (r.status != hub::DownloadStatus::Complete) {
    if (r.status == hub::DownloadStatus::HttpError || r.status == hub::DownloadStatus::TooLarge)
      fs::remove(part, ec);
    failDownload(w, url, final_path, part, r, req.stall_timeout_s);
  }
  try {
    verifyOfficialWeights(part, w);
  } catch (const Error& e) {
    fs::remove(part, ec);  // a wrong file is never resumed: the next attempt starts afresh
    if (r.resumed_from == 0) fail(e.what(), " (from ", url, "; nothing was saved as ", final_path, ")");
    // The kept bytes and the rest do not make one checkpoint (the file changed on the server, or the bytes
    // kept were another file's): once more from the first byte.
    r = hub::downloadToFile(req);
    if (r.status != hub::DownloadStatus::Complete)
      failDownload(w, url, final_path, part, r, req.stall_timeout_s);
    try {
      verifyOfficialWeights(part, w);
    } catch (const Error& again) {
      fs::remove(part, ec);
      fail(again.what(), " (from ", url, "; nothing was saved as ", final_path, ")");
    }
  }
  fs::rename(part, final_path, ec);
  if (ec) fail("cannot move the verified ", part, " to ", final_path, ": ", ec.message());
  return final_path;
}

std::string resolveWeights(const std::string& arg, const WeightsFetchOptions& o) {
  std::error_code ec;
  if (arg.empty() || fs::exists(arg, ec) || !looksLikeOfficialName(arg)) return arg;
  const OfficialWeights* w = findOfficialWeights(arg);
  if (!w) {
    fail(arg, ": no such file, and not one of the official weights this program can download (",
         officialWeightsList(), "; detection models only)");
  }
  const std::string cached = (fs::path(cacheDirOf(o)) / w->file).string();
  if (fs::is_regular_file(cached, ec)) return cached;
  return fetchOfficialWeights(*w, o);
}

bool weightsNeedDownload(const std::string& arg, const WeightsFetchOptions& o) {
  std::error_code ec;
  if (arg.empty() || fs::exists(arg, ec)) return false;
  const OfficialWeights* w = findOfficialWeights(arg);
  return w && !fs::is_regular_file(fs::path(cacheDirOf(o)) / w->file, ec);
}

}  // namespace ywb
