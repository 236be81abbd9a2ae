// inspectWeights: the public, torch-free view of a safetensors file.
#include "core/error.h"
#include "io/mapped_file.h"
#include "io/safetensors_view.h"
#include "ywb/weights.h"

namespace ywb {

WeightsInfo inspectWeights(const std::string& path) {
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
