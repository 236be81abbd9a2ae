// An exported TorchScript detection model opened for inference (export/exported_detector.h): ours
// (`ywb export format=torchscript`) and Ultralytics' `format=torchscript` files alike. LibTorch's TorchScript
// interpreter runs it in this process, on the CPU. Such a file is traced at one input size and batch, so it
// is a fixed-size model: its metadata (export/torchscript_metadata.h, the archive's config.txt) gives that
// size and batch, the class names and the end-to-end flag.
// A TorchScript file holds code the interpreter runs: open only files you trust (as with Ultralytics).
// Thread rules: one thread uses a TorchScriptDetector at a time.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "export/exported_detector.h"

namespace ywb::torchscript {

class TorchScriptDetector : public exported::ExportedDetector {
 public:
  /// Loads and checks the file. Throws ywb::Error naming the file when it is missing, not a TorchScript
  /// archive this LibTorch loads (truncated, another format, a newer file format), without a forward
  /// method, without metadata, or of another task.
  explicit TorchScriptDetector(const std::string& path);
  ~TorchScriptDetector() override;
  TorchScriptDetector(const TorchScriptDetector&) = delete;
  TorchScriptDetector& operator=(const TorchScriptDetector&) = delete;

  const exported::ExportedModelInfo& info() const override;
  /// Also throws when the model's output is not the form its metadata says ([N, 4+nc, anchors], or
  /// [N, k, 6] for end2end).
  std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb::torchscript
