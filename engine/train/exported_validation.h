// Validation of an exported model (`ywb val weights=best.onnx` or `best.torchscript`): the same loader, NMS
// (or, for an end-to-end model, the rows it gives), metrics and outputs as LibTorch's validation, with the
// model run by its format's reader (export/exported_detector.h). No losses: an exported model holds none.
// Thread rules: runs on the calling thread.
#pragma once
#include <functional>

#include "data/loader.h"
#include "export/exported_detector.h"
#include "train/validator.h"

namespace ywb {

/// Validates `model` on every batch of `loader` (epoch 0) with options' conf, iou, max_det, agnostic,
/// multi_label, keep_detections and on_batch (augment and autocast do not apply). A runtime in a child
/// process (ONNX Runtime) is handed up to 32 images per run (it starts a process per run); one in this
/// process runs batch by batch. `should_stop` is
/// polled between batches.
ValidationResult runExportedValidation(exported::ExportedDetector& model, DataLoader& loader, int num_classes,
                                       const ValidatorOptions& options,
                                       const std::function<bool()>& should_stop = {});

}  // namespace ywb
