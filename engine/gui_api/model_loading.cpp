#include "ywb/model_loading.h"

#include "core/error.h"
#include "model/model_handle_impl.h"
#include "train/model_loader.h"

namespace ywb {

ModelHandle loadModelHandle(const std::string& weights_path, LoadedModelInfo* info) {
  return guarded("load weights", [&] {
    LoadedModel loaded = loadModelWeights(weights_path, at::Device(at::kCPU));
    if (info) {
      info->names = loaded.names;
      info->imgsz = loaded.imgsz;
      info->kind = loaded.kind;
    }
    return ModelHandle(std::make_unique<ModelHandle::Impl>(std::move(loaded.model)));
  });
}

}  // namespace ywb
