// The engine-side content of ywb::ModelHandle: other areas (training, weights I/O) wrap their model in one
// to hand it to torch-free code. Thread rules: as ModelHandle.
#pragma once
#include "model/detection_model.h"
#include "ywb/feature_maps.h"

namespace ywb {

struct ModelHandle::Impl {
  explicit Impl(model::DetectionModel m) : model(std::move(m)) {}
  model::DetectionModel model;
};

}  // namespace ywb
