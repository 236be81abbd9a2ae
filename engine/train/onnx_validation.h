// Validation of an exported ONNX model (`ywb val weights=best.onnx`): the same loader, NMS (or, for an
// end-to-end graph, the rows it gives), metrics and outputs as LibTorch's validation, with the graph run by
// OpenCV DNN or ONNX Runtime (export/onnx_detector.h). No losses: the graph holds no loss.
// Thread rules: runs on the calling thread.
#pragma once
#include <functional>

#include "data/loader.h"
#include "export/onnx_detector.h"
#include "train/validator.h"

namespace ywb {

/// Validates `model` on every batch of `loader` (epoch 0) with options' conf, iou, max_det, agnostic,
/// multi_label, keep_detections and on_batch (augment and autocast do not apply). ONNX Runtime is handed
/// up to 32 images per run (it starts a process per run); OpenCV DNN runs batch by batch. `should_stop` is
/// polled between batches.
ValidationResult runOnnxValidation(onnx_export::OnnxDetector& model, DataLoader& loader, int num_classes,
                                   const ValidatorOptions& options,
                                   const std::function<bool()>& should_stop = {});

}  // namespace ywb
