// The metadata a TorchScript export carries for its readers: a JSON object in the archive's extra file
// "config.txt", in Ultralytics' spelling so that either program reads the other's files (its
// `format=torchscript` export writes json.dumps of its metadata there): names as an object keyed by the
// class index ({"0": "person"}), imgsz as [h, w], stride, batch, task, and end2end for an NMS-free model.
// One owner for writing and reading it.
// Thread rules: free functions without shared state.
#pragma once
#include <string>
#include <vector>

namespace ywb::torchscript {

/// The extra file of the archive that holds the metadata.
inline constexpr const char* kConfigFile = "config.txt";

struct TorchScriptMetadata {
  std::vector<std::string> names;
  int height = 0, width = 0;  ///< the traced input size
  int stride = 32;
  int batch = 1;  ///< the traced batch
  std::string task = "detect";
  bool end2end = false;  ///< output [N, max_det, 6] rows, not [N, 4+nc, anchors]
  int max_det = 0;       ///< end2end: rows per image (0 when not said)
  // Ultralytics' export arguments ("args"), read only:
  bool nms = false;   ///< args.nms: NMS inside the model, output [N, max_det, 6] rows as end2end's
  bool half = false;  ///< args.half: an fp16 model (traced on a CUDA device)
  // Informational, written by us: what Ultralytics writes too.
  std::string description, author, version, date, source;
};

/// The JSON text of `m` for config.txt.
std::string configJson(const TorchScriptMetadata& m);

/// Reads config.txt's text. Throws ywb::Error naming `where` when it is not a JSON object, or when names,
/// imgsz, stride or batch are missing or malformed (names: indices 0..n-1 in any order, as strings or
/// numbers; imgsz: [h, w] or one number). Reads "args" (nms, half) where Ultralytics wrote them.
TorchScriptMetadata parseConfigJson(const std::string& text, const std::string& where);

}  // namespace ywb::torchscript
