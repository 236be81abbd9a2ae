#include "io/pt_weights.h"

#include <ATen/ATen.h>

#include <cstring>

#include "core/error.h"
#include "io/pt_checkpoint.h"
#include "io/unpickler.h"

namespace ywb {

SafetensorsFile readPtWeights(const std::string& path) {
  const PtFile f = openPtFile(path);
  SafetensorsFile out;
  out.source = path;
  out.metadata = f.checkpoint.metadata;
  std::map<std::string, at::Tensor> storages;  // one tensor per storage key: shared storages stay shared
  for (const auto& [name, d] : f.checkpoint.tensors) {
    at::Tensor& st = storages[d.storage_key];
    if (!st.defined()) {
      const c10::ScalarType type = torchDtypeOf(d.dtype, name);
      const uint64_t bytes = uint64_t(d.storage_numel) * pickle::dtypeSize(d.dtype);
      const uint8_t* src = f.archive->storage(d.storage_key, bytes);
      st = at::empty({d.storage_numel}, at::TensorOptions().dtype(type));
      if (bytes) std::memcpy(st.data_ptr(), src, size_t(bytes));
    }
    // The unpickler checked that the view lies inside the storage.
    out.tensors.emplace_back(name,
                             st.as_strided(d.sizes, d.strides, d.offset).clone(at::MemoryFormat::Contiguous));
  }
  return out;
}

SafetensorsFile readWeightsFile(const std::string& path) {
  return isPtFile(path) ? readPtWeights(path) : readSafetensors(path);
}

}  // namespace ywb
