#include "ywb/model_info.h"

#include <algorithm>

#include "core/error.h"
#include "model/detection_model.h"
#include "model/model_handle_impl.h"

namespace ywb {
namespace {

std::vector<ModelLayerRow> layerRows(model::DetectionModelImpl& m) {
  std::vector<ModelLayerRow> rows;
  for (const auto& li : m.layerInfo()) {
    ModelLayerRow row;
    row.index = li.index;
    row.from = li.from;
    row.from_text = li.from_text;
    row.repeats = li.repeats;
    row.module = li.module;
    row.args = li.args;
    row.channels = li.channels;
    row.stride = int(li.stride);
    for (const auto& p : m.layer(li.index)->parameters()) row.params += p.numel();
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

std::string layerOutputShape(const ModelLayerRow& row, int imgsz) {
  const int side = (imgsz + std::max(1, row.stride) - 1) / std::max(1, row.stride);
  return std::to_string(row.channels) + "x" + std::to_string(side) + "x" + std::to_string(side);
}

std::vector<ModelLayerRow> ModelHandle::layerTable() const {
  return layerRows(*impl_->model);
}

ModelInfo modelInfo(const std::string& yaml_or_name, int nc, int imgsz) {
  return guarded("model info", [&] {
    if (imgsz < 32 || imgsz % 32) fail("imgsz=", imgsz, " must be a positive multiple of 32");
    model::DetectionModel m = model::buildModel(yaml_or_name, nc);
    ModelInfo info;
    info.name = m->spec().name;
    info.source = m->spec().source;
    info.scale = m->scale();
    info.family = m->spec().family;
    info.nc = m->nc();
    info.imgsz = imgsz;
    for (int64_t s : m->strides()) info.strides.push_back(int(s));
    info.layers = layerRows(*m);
    for (const auto& p : m->parameters()) {
      info.parameters += p.numel();
      if (p.requires_grad()) info.gradients += p.numel();
    }
    info.modules = int64_t(m->modules(/*include_self=*/true).size());
    info.end2end = m->end2end();
    info.backbone_layers = m->spec().backbone_layers;
    info.reg_max = int(m->regMax());
    info.ultralytics_modules = m->spec().modules;
    for (const auto& p : m->detect()->named_parameters()) {
      const bool o2o = p.key().rfind("one2one_", 0) == 0;
      (o2o ? info.head_one2one_parameters : info.head_one2many_parameters) += p.value().numel();
    }
    info.gflops_unfused = m->flops(imgsz, imgsz, true) / 1e9;
    m->fuse();
    // An end-to-end model infers with its one-to-one branches only (Ultralytics drops the others on fusing).
    info.gflops_fused = m->flops(imgsz, imgsz, false, info.end2end) / 1e9;
    for (const auto& p : m->parameters()) info.fused_parameters += p.numel();
    if (info.end2end) info.fused_parameters -= m->detect()->one2manyParameterCount();
    return info;
  });
}

std::vector<std::string> builtInModelNames() {
  return guarded("model names", [] { return model::knownModelNames(); });
}

}  // namespace ywb
