#include "export/torchscript_detector.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>

#include <filesystem>

#include "core/error.h"
#include "export/torchscript_metadata.h"
#include "io/mapped_file.h"
#include "io/zip_archive.h"
#include "sys/torch_info.h"

namespace fs = std::filesystem;

namespace ywb::torchscript {
namespace {

// The first line of a LibTorch error, without its backtrace.
std::string firstLine(const c10::Error& e) {
  std::string s = e.what_without_backtrace();
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

struct TorchScriptDetector::Impl {
  exported::ExportedModelInfo info;
  torch::jit::Module module;
};

TorchScriptDetector::TorchScriptDetector(const std::string& path) : impl_(std::make_unique<Impl>()) {
  exported::ExportedModelInfo& info = impl_->info;
  info.path = path;
  info.format = "TorchScript";
  if (!fs::is_regular_file(path)) fail(path, ": no such TorchScript file");
  const std::string version = torchBuildInfo().version;
  {
    // LibTorch's reader checks no CRC-32 of the archive's entries: a damaged copy would load and compute
    // wrong numbers (8 random bytes changed loaded and predicted in 56 of 60 tries). Every stored entry is
    // checked here first (about 5 ms for 10 MB).
    const MappedFile file(path);
    if (!looksLikeZip(file.data(), file.size()))
      fail(path, ": not a TorchScript archive (a zip file, as torch.jit.save writes)");
    const ZipArchive zip(file.data(), file.size(), path);
    for (const auto& [name, entry] : zip.entries())
      if (entry.method == 0) zip.bytes(entry);
  }
  torch::jit::ExtraFilesMap extra{{kConfigFile, ""}};
  try {
    impl_->module = torch::jit::load(path, at::Device(at::kCPU), extra);
  } catch (const c10::Error& e) {
    fail(path, ": not a TorchScript archive LibTorch ", version, " can load (", firstLine(e), ")");
  } catch (const std::exception& e) {
    fail(path, ": not a TorchScript archive LibTorch ", version, " can load (", e.what(), ")");
  }
  if (!impl_->module.find_method("forward")) fail(path, ": the TorchScript module has no forward method");
  impl_->module.eval();
  if (extra[kConfigFile].empty())
    fail(path, ": no metadata (the archive's ", kConfigFile,
         " with class names and imgsz, which ywb's and Ultralytics' exports write)");
  const TorchScriptMetadata m = parseConfigJson(extra[kConfigFile], path + ": " + kConfigFile);
  if (m.task != "detect")
    fail(path, " is a '", m.task, "' model; this program validates and predicts with detection models only");
  if (m.half)
    fail(path,
         " was exported with half=true (an fp16 model, traced on a CUDA device); TorchScript runs here on "
         "the CPU in fp32: export it with half=false");
  info.names = m.names;
  info.batch = m.batch;
  info.height = m.height;
  info.width = m.width;
  info.imgsz = std::max(m.height, m.width);
  info.stride = m.stride;
  // Ultralytics' nms=true export holds its NMS: its rows are read as an end-to-end model's.
  info.end2end = m.end2end || m.nms;
  info.runtime = "LibTorch " + version + " TorchScript interpreter";
  info.in_process = true;
}

TorchScriptDetector::~TorchScriptDetector() = default;

const exported::ExportedModelInfo& TorchScriptDetector::info() const {
  return impl_->info;
}

std::vector<at::Tensor> TorchScriptDetector::run(const std::vector<at::Tensor>& inputs) {
  const exported::ExportedModelInfo& info = impl_->info;
  return exported::runInModelBatches(info, inputs, [&](const std::vector<at::Tensor>& xs) {
    torch::NoGradGuard no_grad;
    std::vector<at::Tensor> outs;
    for (const at::Tensor& x : xs) {
      c10::IValue y;
      try {
        y = impl_->module.forward({x});
      } catch (const c10::Error& e) {
        fail(info.path, ": the TorchScript interpreter failed on ", x.sizes(), ": ", firstLine(e));
      }
      // Ultralytics' detection exports return one tensor; a tuple's first element is the detections.
      if (y.isTuple() && !y.toTupleRef().elements().empty()) y = y.toTupleRef().elements()[0];
      if (y.isList() && !y.toListRef().empty()) y = y.toListRef()[0];
      if (!y.isTensor()) fail(info.path, ": the model's output is ", y.tagKind(), ", not a tensor");
      const at::Tensor t = y.toTensor().to(at::kCPU, at::kFloat).contiguous();
      const int64_t nc = int64_t(info.names.size());
      const bool ok =
          t.dim() == 3 && t.size(0) == x.size(0) && (info.end2end ? t.size(2) == 6 : t.size(1) == 4 + nc);
      if (!ok)
        fail(info.path, ": the model's output is ", t.sizes(), " for input ", x.sizes(), "; its metadata (",
             nc, " classes", info.end2end ? ", end2end" : "", ") says [", x.size(0), ", ",
             info.end2end ? "detections, 6]" : std::to_string(4 + nc) + ", anchors]");
      outs.push_back(t);
    }
    return outs;
  });
}

}  // namespace ywb::torchscript
