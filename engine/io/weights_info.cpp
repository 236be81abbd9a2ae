// inspectWeights: the public, torch-free view of a weights file (safetensors or PyTorch .pt).
#include "core/error.h"
#include "io/mapped_file.h"
#include "io/pt_checkpoint.h"
#include "io/safetensors_view.h"
#include "io/unpickler.h"
#include "ywb/weights.h"

namespace ywb {
namespace {

WeightsInfo inspectPt(const std::string& path) {
  const PtFile f = openPtFile(path);
  WeightsInfo info;
  info.path = path;
  info.container = "pytorch";
  info.file_size = f.map->size();
  info.metadata = f.checkpoint.metadata;
  if (!f.archive->version().empty()) info.metadata["pt_archive_version"] = f.archive->version();
  for (const auto& [name, t] : f.checkpoint.tensors) {
    const uint64_t n = uint64_t(t.numel());
    info.tensors.push_back({name, t.dtype, t.sizes, n * pickle::dtypeSize(t.dtype)});
    info.elements += n;
  }
  return info;
}

}  // namespace

const std::vector<std::string>& weightsFileSuffixes() {
  static const std::vector<std::string> suffixes = [] {
    std::vector<std::string> s = {".safetensors"};
    s.insert(s.end(), ptFileSuffixes().begin(), ptFileSuffixes().end());
    return s;
  }();
  return suffixes;
}

WeightsInfo inspectWeights(const std::string& path) {
  if (isPtFile(path)) return inspectPt(path);
  const MappedFile map(path);
  const SafetensorsView view = safetensors::parse(map.data(), map.size(), path);
  WeightsInfo info;
  info.path = path;
  info.file_size = map.size();
  info.metadata = view.metadata;
  info.tensors.reserve(view.tensors.size());
  for (const SafetensorsEntry& e : view.tensors) {
    info.tensors.push_back({e.name, e.dtype, e.shape, e.byteSize()});
    info.elements += e.numel();
  }
  return info;
}

}  // namespace ywb
