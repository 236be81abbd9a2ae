// TorchScript export (`ywb export format=torchscript`, Ultralytics' `format=torchscript`): the fused model
// traced by LibTorch's tracer at one input size and batch into a TorchScript module whose forward(images)
// returns what the ONNX export's output0 holds ([N, 4+nc, anchors], or an end-to-end model's [N, k, 6]
// rows), saved with the metadata Ultralytics writes (export/torchscript_metadata.h). LibTorch programs
// (torch::jit::load) and PyTorch (torch.jit.load) load it without this program; `ywb val`/`predict` run it
// (export/torchscript_detector.h).
// Thread rules: free functions; the model must not be used by another thread meanwhile.
#pragma once
#include <string>
#include <vector>

#include "train/model_loader.h"
#include "ywb/export.h"

namespace ywb::torchscript {

/// Writes `path` from `lm` (its weights file is `o.weights`; a fused copy is traced) at imgsz x imgsz and
/// batch o.batch, end-to-end when o.end2end and the model has a one-to-one head, and verifies it when
/// o.verify: the file loaded back (as `ywb val` loads it) and run by the TorchScript interpreter against
/// LibTorch's unfused model on letterboxed images from o.verify_source (boxes within 1e-4 x the box scale,
/// scores within 1e-4; end-to-end rows as the ONNX export's). Throws ywb::Error when the model cannot be
/// traced or the file not written.
ExportedFile exportTorchScript(const ExportOptions& o, LoadedModel& lm, int imgsz, const std::string& path);

}  // namespace ywb::torchscript
