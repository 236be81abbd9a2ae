#include "export/onnx_verifier.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <opencv2/imgproc.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/rng.h"
#include "data/image_io.h"
#include "data/image_list.h"
#include "data/letterbox.h"

#ifdef YW_HAVE_OPENCV_DNN
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/core/version.hpp>
#include <opencv2/dnn.hpp>
#endif

namespace fs = std::filesystem;

namespace ywb::onnx_export {
namespace {

// BGR uint8 HxWx3 -> RGB float [1,3,H,W] in [0,1], as Ultralytics' preprocessing does.
at::Tensor toInput(const cv::Mat& bgr) {
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  const at::Tensor hwc = at::from_blob(rgb.data, {rgb.rows, rgb.cols, 3}, at::kByte);
  return hwc.permute({2, 0, 1}).unsqueeze(0).to(at::kFloat).div(255.0).contiguous();
}

cv::Mat syntheticImage(int64_t h, int64_t w) {
  // Smooth gradients plus noise and a few rectangles: activations of every sign and size, reproducible.
  Rng rng(mixSeed(0x6578706f7274ULL, uint64_t(h), uint64_t(w)));
  cv::Mat img(int(h), int(w), CV_8UC3);
  for (int y = 0; y < img.rows; ++y) {
    for (int x = 0; x < img.cols; ++x) {
      auto* px = img.ptr<uint8_t>(y) + 3 * x;
      px[0] = uint8_t((x * 255) / std::max(1, img.cols - 1));
      px[1] = uint8_t((y * 255) / std::max(1, img.rows - 1));
      px[2] = uint8_t(rng.uniformInt(0, 255));
    }
  }
  for (int i = 0; i < 6; ++i) {
    const int x = int(rng.uniformInt(0, img.cols - 1)), y = int(rng.uniformInt(0, img.rows - 1));
    cv::rectangle(img, cv::Rect(x, y, img.cols / 5, img.rows / 6),
                  cv::Scalar(double(rng.uniformInt(0, 255)), double(rng.uniformInt(0, 255)),
                             double(rng.uniformInt(0, 255))),
                  -1);
  }
  return img;
}

#ifdef YW_HAVE_OPENCV_DNN
// OpenCV's exception text without its trailing newlines.
std::string message(const cv::Exception& e) {
  std::string s = e.what();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
#endif

}  // namespace

std::string openCvDnnVersion() {
#ifdef YW_HAVE_OPENCV_DNN
  return CV_VERSION;
#else
  return "";
#endif
}

std::string oneLineOpenCvError(const std::string& what) {
  // OpenCV nests the node's error in lines starting with '>'.
  std::string error;
  for (size_t i = 0; i < what.size(); ++i) {
    if (what[i] == '\n' && i + 1 < what.size() && what[i + 1] == '>') ++i;
    const char c = what[i] == '\n' || what[i] == '>' ? ' ' : what[i];
    if (c != ' ' || (!error.empty() && error.back() != ' ')) error += c;
  }
  while (!error.empty() && error.back() == ' ') error.pop_back();
  return error;
}

std::string openCvLoadError(const std::string& onnx_bytes) {
#ifdef YW_HAVE_OPENCV_DNN
  // Quiet: the importer also logs the failure on stderr, and the caller reports it.
  const auto level = cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  std::string error;
  try {
    cv::dnn::readNetFromONNX(onnx_bytes.data(), onnx_bytes.size());
  } catch (const cv::Exception& e) {
    error = oneLineOpenCvError(e.what());
  }
  cv::utils::logging::setLogLevel(level);
  return error;
#else
  (void)onnx_bytes;
  return "";
#endif
}

std::vector<at::Tensor> verificationInputs(const std::string& source, int count, int64_t h, int64_t w,
                                           std::vector<std::string>* used) {
  std::vector<at::Tensor> out;
  if (source.empty()) {
    out.push_back(toInput(syntheticImage(h, w)));
    if (used) used->push_back("synthetic");
    return out;
  }
  const std::vector<std::string> paths = listSourceImages(source, "verification images source=" + source);
  for (const auto& p : paths) {
    if (int(out.size()) >= count) break;
    try {
      const cv::Mat img = loadImage(p, int(std::max(h, w)), /*fast=*/false);
      const cv::Mat lb = letterbox(img, cv::Size(int(w), int(h)), false, true, 32, nullptr);
      out.push_back(toInput(lb));
      if (used) used->push_back(p);
    } catch (const Error&) {
      // Unreadable images are skipped; the report names the images actually used.
    }
  }
  if (out.empty()) fail("verification images '", source, "': no readable image");
  return out;
}

std::vector<at::Tensor> batchInputs(const std::vector<at::Tensor>& images, int64_t batch) {
  if (images.empty()) fail("verification: no input images");
  if (batch < 1) fail("verification: batch must be >= 1");
  std::vector<at::Tensor> out;
  const size_t batches = (images.size() + size_t(batch) - 1) / size_t(batch);
  for (size_t b = 0; b < batches; ++b) {
    std::vector<at::Tensor> parts;
    for (int64_t i = 0; i < batch; ++i)
      parts.push_back(images[(b * size_t(batch) + size_t(i)) % images.size()]);
    out.push_back(at::cat(parts, 0));
  }
  return out;
}

std::pair<double, double> torchOutputDiff(model::DetectionModel& a, model::DetectionModel& b,
                                          const std::vector<at::Tensor>& inputs) {
  torch::NoGradGuard no_grad;
  const bool ta = a->is_training(), tb = b->is_training();
  a->eval();
  b->eval();
  double boxes = 0, scores = 0;
  for (const at::Tensor& x : inputs) {
    const at::Tensor ya = a->predict(x).to(at::kFloat), yb = b->predict(x).to(at::kFloat);
    const at::Tensor d = (ya - yb).abs();
    boxes = std::max(boxes, d.narrow(1, 0, 4).max().item<double>());
    scores = std::max(scores, d.narrow(1, 4, d.size(1) - 4).max().item<double>());
  }
  a->train(ta);
  b->train(tb);
  return {boxes, scores};
}

ExportVerification compareOnnxWithTorch(const std::string& onnx_path, model::DetectionModel& model,
                                        const std::vector<at::Tensor>& inputs, double tol) {
  return compareOnnxBytesWithTorch(readFile(onnx_path), model, inputs, tol);
}

ExportVerification compareOnnxBytesWithTorch(const std::string& onnx_bytes, model::DetectionModel& model,
                                             const std::vector<at::Tensor>& inputs, double tol) {
  ExportVerification v;
  setDiffCriterion(v, "OpenCV", tol);
#ifndef YW_HAVE_OPENCV_DNN
  (void)onnx_bytes;
  (void)model;
  (void)inputs;
  v.note = "OpenCV DNN is not in this build: only the ONNX checker ran";
  return v;
#else
  v.method = "OpenCV DNN " + std::string(CV_VERSION) + " vs LibTorch";
  cv::dnn::Net net;
  try {
    net = cv::dnn::readNetFromONNX(onnx_bytes.data(), onnx_bytes.size());
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
  } catch (const cv::Exception& e) {
    v.note = "OpenCV DNN could not load the graph: " + message(e);
    return v;
  }
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const at::Device device = model->parameters().front().device();
  for (const at::Tensor& x : inputs) {
    const at::Tensor ref = model->predict(x.to(device)).to(at::kCPU, at::kFloat).contiguous();
    const at::Tensor xc = x.to(at::kCPU, at::kFloat).contiguous();
    v.input_shapes.emplace_back(xc.sizes().begin(), xc.sizes().end());
    const int sizes[4] = {int(xc.size(0)), int(xc.size(1)), int(xc.size(2)), int(xc.size(3))};
    const cv::Mat blob(4, sizes, CV_32F, const_cast<float*>(xc.data_ptr<float>()));
    cv::Mat out;
    try {
      net.setInput(blob, "images");
      out = net.forward("output0");
    } catch (const cv::Exception& e) {
      v.note = "OpenCV DNN failed to run the graph: " + message(e);
      model->train(was_training);
      return v;
    }
    if (out.total() != size_t(ref.numel())) {
      v.note = "OpenCV DNN output has " + std::to_string(out.total()) + " values, LibTorch " +
               std::to_string(ref.numel());
      model->train(was_training);
      return v;
    }
    addOutputDiff(v, at::from_blob(out.ptr<float>(), ref.sizes(), at::kFloat).clone(), ref, "OpenCV DNN");
  }
  model->train(was_training);
  v.ran = true;
  v.runtime = "OpenCV DNN " + std::string(CV_VERSION);
  settleVerdict(v);
  return v;
#endif
}

void addOutputDiff(ExportVerification& v, const at::Tensor& got, const at::Tensor& ref,
                   const std::string& runtime) {
  const at::Tensor diff = (got - ref).abs();
  v.max_abs_diff_boxes = std::max(v.max_abs_diff_boxes, diff.narrow(1, 0, 4).max().item<double>());
  v.max_abs_diff_scores =
      std::max(v.max_abs_diff_scores, diff.narrow(1, 4, ref.size(1) - 4).max().item<double>());
  v.box_scale = std::max(v.box_scale, ref.narrow(1, 0, 4).abs().max().item<double>());
  if (!std::isfinite(got.sum().item<double>())) v.note = runtime + " output has NaN/Inf";
  v.images += int(ref.size(0));
}

void setDiffCriterion(ExportVerification& v, const std::string& runtime, double tol) {
  v.tolerance = tol;
  v.criterion = "max |boxes(" + runtime + ") - boxes(LibTorch)| <= " + std::to_string(tol) +
                " x max(1, max |box|) and max |scores diff| <= " + std::to_string(tol);
}

std::string shapesText(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s;
  for (const auto& sh : shapes) {
    if (!s.empty()) s += ", ";
    s += "[";
    for (size_t i = 0; i < sh.size(); ++i) s += (i ? "," : "") + std::to_string(sh[i]);
    s += "]";
  }
  return s;
}

void settleVerdict(ExportVerification& v) {
  v.passed = v.note.empty() && v.max_abs_diff_boxes <= v.tolerance * std::max(1.0, v.box_scale) &&
             v.max_abs_diff_scores <= v.tolerance;
  if (!v.passed && v.note.empty()) v.note = "outputs differ beyond the tolerance";
}

}  // namespace ywb::onnx_export
