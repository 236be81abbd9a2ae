// Safetensors export of a model's (EMA) state dict with Ultralytics key names and the ywb-weights/1
// metadata (ywb/weights.h), fp32 or fp16, and its read-back verification.
// Thread rules: free functions; the model must not be used by another thread meanwhile.
#pragma once
#include <map>
#include <string>

#include "io/safetensors.h"
#include "model/detection_model.h"
#include "ywb/export.h"

namespace ywb::export_detail {

/// The ywb-weights/1 metadata for `model` from the source file's metadata (checkpoint or weights):
/// names, nc, imgsz, yaml, args (as JSON; a checkpoint's YAML arguments are converted), metrics,
/// version, format, source, and the head's end2end and reg_max.
std::map<std::string, std::string> weightsMetadata(const std::map<std::string, std::string>& source_meta,
                                                   model::DetectionModel& model,
                                                   const std::vector<std::string>& names, int imgsz,
                                                   const std::string& source_path);

/// The state dict of the (unfused) model in PyTorch order, floating-point tensors cast to fp16 when `half`.
NamedTensors exportTensors(model::DetectionModel& model, bool half);

/// Re-reads `path`, compares every tensor bit for bit with `expected` and loads the file with the
/// inference loader (strict: the stored YAML must build a model the tensors fit).
ExportVerification verifySafetensors(const std::string& path, const NamedTensors& expected);

/// Training arguments as a JSON object: `text` is returned as is when it is JSON, converted when YAML.
std::string argsAsJson(const std::string& text);

}  // namespace ywb::export_detail
