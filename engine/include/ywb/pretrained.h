// Pretrained weights by name: the official Ultralytics detection checkpoints (YOLOv8, YOLO11, YOLO26
// n/s/m/l/x) under Ultralytics' file names, a per-user cache folder they are downloaded into, and the one
// rule that turns what a user typed (`model=yolo11n.pt`, `weights=runs/.../best.pt`) into a file on disk.
// Thread rules: free functions; the registry is immutable; resolveWeights/fetchOfficialWeights may run on any
// thread (their progress callback is called on that thread).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ywb/error.h"

namespace ywb {

/// One official checkpoint, as Ultralytics publishes it in its GitHub release assets.
struct OfficialWeights {
  std::string file;         ///< Ultralytics' file name, e.g. "yolo11n.pt"
  std::string family;       ///< "yolov8", "yolo11" or "yolo26" (the YAML it was built from: <family>.yaml)
  char scale = 'n';         ///< n, s, m, l or x
  double params_m = 0;      ///< parameters in millions (Ultralytics' docs tables)
  uint64_t size_bytes = 0;  ///< file size: exact when size_exact, else an estimate (about 2.1 bytes a param)
  bool size_exact = false;  ///< size_bytes was measured on the published file
};

/// Address Ultralytics' own downloader (8.4) fetches these files from: `<base>/<file>`.
inline constexpr const char* kDefaultWeightsUrl =
    "https://github.com/ultralytics/assets/releases/download/v8.4.0";
/// Environment variables: a mirror's base address, and the cache folder.
inline constexpr const char* kWeightsUrlEnv = "YWB_WEIGHTS_URL";
inline constexpr const char* kWeightsDirEnv = "YWB_WEIGHTS_DIR";

/// All official detection weights, family by family, n to x.
const std::vector<OfficialWeights>& officialWeights();
/// The entry named `file` (a bare file name such as "yolov8s.pt"), or nullptr.
const OfficialWeights* findOfficialWeights(const std::string& file);
/// "yolov8n.pt, yolov8s.pt, ..." for messages.
std::string officialWeightsList();
/// Whether `arg` is a bare file name shaped like an official name (yolo<version><letters>[-suffix].pt), known
/// or not: such a name that is not on disk is either downloaded (known) or refused with the list (unknown).
bool looksLikeOfficialName(const std::string& arg);

/// The base address: $YWB_WEIGHTS_URL when set, else `setting` when not empty (the GUI's setting), else
/// kDefaultWeightsUrl. A trailing '/' is dropped.
std::string weightsBaseUrl(const std::string& setting = {});
/// The cache folder: $YWB_WEIGHTS_DIR, else $XDG_CACHE_HOME/ywb/weights, else ~/.cache/ywb/weights.
std::string weightsCacheDir();
/// Where `w` lies (or will lie) in the cache folder.
std::string cachedWeightsPath(const OfficialWeights& w);
/// Whether `w` is already in the cache folder (a file under its final name; only verified files get there).
bool isWeightsCached(const OfficialWeights& w);

/// How a download goes. Zero timeouts mean libcurl's defaults (none).
struct WeightsFetchOptions {
  std::string base_url;   ///< empty: weightsBaseUrl()
  std::string cache_dir;  ///< empty: weightsCacheDir()
  long connect_timeout_s = 30;
  /// A transfer slower than 1 byte/s for this long is abandoned (a stalled server); $YWB_WEIGHTS_TIMEOUT
  /// (seconds) overrides it when set.
  long stall_timeout_s = 60;
  /// Called as bytes arrive (done, total; total 0 = unknown) and about once a second meanwhile; return false
  /// to cancel the download (then WeightsFetchCancelled is thrown and nothing is left under the final name).
  std::function<bool(uint64_t done, uint64_t total)> progress;
  /// Called once with a line saying what is fetched from where (for logs), may be empty.
  std::function<void(const std::string&)> note;
};

/// Thrown when the progress callback cancelled a download.
class WeightsFetchCancelled : public Error {
 public:
  using Error::Error;
};

/// Downloads `w` into the cache folder (resuming a partial download left there), verifies it (opens as a
/// checkpoint with the engine's .pt reader, every CRC-32 of its archive correct, the architecture its name
/// promises) and renames it into place; returns the final path. Throws ywb::Error saying what happened
/// (offline: the file, the address tried and where to put the file by hand).
std::string fetchOfficialWeights(const OfficialWeights& w, const WeightsFetchOptions& options = {});

/// Checks that the file at `path` is `w`: a PyTorch checkpoint our reader opens, every archive member's CRC
/// correct, and the model family and scale its name promises (read from the checkpoint's YAML and module
/// classes; no model is built). Throws ywb::Error naming the file and the problem.
void verifyOfficialWeights(const std::string& path, const OfficialWeights& w);

/// The one rule for a weights argument: an existing path is used as it is; a known official name not on disk
/// is the cached file (downloaded first when missing); an official-looking name we do not know is an error
/// listing the names we know; anything else is returned unchanged (the reader then says what is wrong).
std::string resolveWeights(const std::string& arg, const WeightsFetchOptions& options = {});

/// Whether resolveWeights(arg) would need the network (a known official name, not on disk, not cached).
bool weightsNeedDownload(const std::string& arg, const WeightsFetchOptions& options = {});

}  // namespace ywb
