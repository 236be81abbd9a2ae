#include "export/onnx_detector.h"

#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "export/onnx_metadata.h"
#include "export/onnx_runtime_node.h"
#include "export/onnx_serializer.h"
#include "export/onnx_verifier.h"

#ifdef YW_HAVE_OPENCV_DNN
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/core/version.hpp>
#include <opencv2/dnn.hpp>
#endif

namespace fs = std::filesystem;

namespace ywb::onnx_export {

struct OnnxDetector::Impl {
  exported::ExportedModelInfo info;
  std::string input_name, output_name;
#ifdef YW_HAVE_OPENCV_DNN
  cv::dnn::Net net;
#endif
  bool opencv = false;
  OnnxRuntimeNode ort;

  // One run of the graph on x, whose batch is the graph's own (or any, when symbolic).
  std::vector<at::Tensor> runExact(const std::vector<at::Tensor>& xs);
};

namespace {

// The index of the value called `name`, else 0 (Ultralytics' and our graphs name them images / output0).
size_t pick(const std::vector<OnnxValue>& vs, const std::string& name) {
  for (size_t i = 0; i < vs.size(); ++i)
    if (vs[i].name == name) return i;
  return 0;
}

std::string dimsText(const OnnxValue& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.dims.size(); ++i)
    s += (i ? ", " : "") + (v.dims[i] >= 0        ? std::to_string(v.dims[i])
                            : v.params[i].empty() ? "?"
                                                  : v.params[i]);
  return s + "]";
}

}  // namespace

OnnxDetector::OnnxDetector(const std::string& path) : impl_(std::make_unique<Impl>()) {
  exported::ExportedModelInfo& info = impl_->info;
  info.path = path;
  info.format = "ONNX";
  if (!fs::is_regular_file(path)) fail(path, ": no such ONNX file");
  const std::string bytes = readFile(path);
  const OnnxSignature sig = readOnnxSignature(bytes, path);
  const auto meta = [&](const std::string& k) {
    auto it = sig.metadata.find(k);
    return it == sig.metadata.end() ? std::string() : it->second;
  };
  if (!meta("task").empty() && meta("task") != "detect")
    fail(path, " is a '", meta("task"),
         "' model; this program validates and predicts with detection models only");
  if (sig.inputs.empty() || sig.outputs.empty()) fail(path, ": the graph has no input or no output");
  const size_t in = pick(sig.inputs, "images"), out = pick(sig.outputs, "output0");
  const OnnxValue& x = sig.inputs[in];
  const OnnxValue& y = sig.outputs[out];
  impl_->input_name = x.name;
  impl_->output_name = y.name;
  if (x.dims.size() != 4 || x.dims[1] != 3 || sig.input_types[in] != "float32")
    fail(path, ": input '", x.name, "' is ", sig.input_types[in], " ", dimsText(x),
         "; a detection model takes float32 [batch, 3, height, width]");
  if (y.dims.size() != 3 || sig.output_types[out] != "float32")
    fail(path, ": output '", y.name, "' is ", sig.output_types[out], " ", dimsText(y),
         "; a detection model gives float32 [batch, 4 + classes, anchors] or [batch, detections, 6]");
  info.batch = x.dims[0] > 0 ? x.dims[0] : -1;
  info.height = x.dims[2] > 0 ? x.dims[2] : -1;
  info.width = x.dims[3] > 0 ? x.dims[3] : -1;
  const std::string where = path + ": metadata";
  if (!meta("imgsz").empty()) info.imgsz = parsePythonImgsz(meta("imgsz"), where + " 'imgsz'")[0];
  if (!meta("stride").empty()) info.stride = int(parsePythonImgsz(meta("stride"), where + " 'stride'")[0]);
  // Ultralytics writes end2end only when True; a [N, k, 6] output without it is read as rows too. An nms=True
  // export holds its NMS (its export arguments, a Python dict in 'args', say 'nms': True): its rows are read
  // as an end-to-end model's, as the TorchScript reader does.
  const bool holds_nms = meta("args").find("'nms': True") != std::string::npos;
  info.end2end = meta("end2end") == "True" || holds_nms ||
                 (meta("end2end").empty() && y.dims[2] == 6 && meta("names").empty());
  if (!meta("names").empty()) {
    info.names = parsePythonNames(meta("names"), where + " 'names'");
  } else if (!info.end2end && y.dims[1] > 4) {
    for (int64_t c = 0; c < y.dims[1] - 4; ++c) info.names.push_back("class" + std::to_string(c));
  } else {
    fail(path, ": the class count cannot be told: no 'names' in the metadata and output ", dimsText(y));
  }
  if (info.end2end && y.dims[2] != 6)
    fail(path, ": the metadata says ", holds_nms ? "nms" : "end2end", " but the output is ", dimsText(y),
         ", not [batch, detections, 6]");
  if (!info.end2end && y.dims[1] >= 0 && y.dims[1] != int64_t(4 + info.names.size()))
    fail(path, ": the metadata names ", info.names.size(), " classes but the output ", dimsText(y), " holds ",
         y.dims[1] - 4);

  std::string opencv_error;
#ifdef YW_HAVE_OPENCV_DNN
  if (!info.end2end) {  // OpenCV 4.6 has no TopK, which every end-to-end graph holds
    const auto level = cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    try {
      std::string load = bytes;
      try {
        load = widenFloat16Initializers(bytes);  // OpenCV 4.6 reads no FLOAT16 tensors
      } catch (const Error&) {
        load = bytes;  // fp16 used otherwise: OpenCV's own error follows
      }
      impl_->net = cv::dnn::readNetFromONNX(load.data(), load.size());
      impl_->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
      impl_->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
      impl_->opencv = info.in_process = true;
      info.runtime = "OpenCV DNN " + std::string(CV_VERSION);
    } catch (const cv::Exception& e) {
      opencv_error = "OpenCV DNN cannot load it (" + oneLineOpenCvError(e.what()) + ")";
    }
    cv::utils::logging::setLogLevel(level);
  } else {
    opencv_error = "OpenCV DNN " + std::string(CV_VERSION) + " cannot run an end-to-end graph (no TopK)";
  }
#else
  opencv_error = "this build has no OpenCV DNN";
#endif
  if (!impl_->opencv) {
    impl_->ort = findOnnxRuntimeNode();
    if (!impl_->ort.missing.empty()) fail(path, ": ", opencv_error, ", and ", impl_->ort.missing);
    info.runtime = "ONNX Runtime (onnxruntime-node)";  // the versions are known after the first run
  }
}

OnnxDetector::~OnnxDetector() = default;

const exported::ExportedModelInfo& OnnxDetector::info() const {
  return impl_->info;
}

std::vector<at::Tensor> OnnxDetector::Impl::runExact(const std::vector<at::Tensor>& xs) {
  if (!opencv) {
    const OnnxRuntimeRun r = runWithOnnxRuntime(ort, info.path, xs, input_name, output_name);
    info.runtime = runtimeName(r);
    return r.outputs;
  }
  std::vector<at::Tensor> outs;
#ifdef YW_HAVE_OPENCV_DNN
  for (const at::Tensor& x : xs) {
    const int sizes[4] = {int(x.size(0)), int(x.size(1)), int(x.size(2)), int(x.size(3))};
    const cv::Mat blob(4, sizes, CV_32F, const_cast<float*>(x.data_ptr<float>()));
    cv::Mat y;
    try {
      net.setInput(blob, input_name);
      y = net.forward(output_name);
    } catch (const cv::Exception& e) {
      fail(info.path, ": OpenCV DNN failed to run the graph on ", x.sizes(), ": ",
           oneLineOpenCvError(e.what()));
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < y.dims; ++d) dims.push_back(y.size[d]);
    if (dims.size() != 3 || dims[0] != x.size(0))
      fail(info.path, ": OpenCV DNN gave an output of shape ", at::IntArrayRef(dims), " for input ",
           x.sizes());
    outs.push_back(at::from_blob(y.ptr<float>(), dims, at::kFloat).clone());
  }
#else
  (void)xs;
#endif
  return outs;
}

std::vector<at::Tensor> OnnxDetector::run(const std::vector<at::Tensor>& inputs) {
  return exported::runInModelBatches(
      impl_->info, inputs, [this](const std::vector<at::Tensor>& xs) { return impl_->runExact(xs); });
}

}  // namespace ywb::onnx_export
