#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "cli/verb_registry.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/threads.h"
#include "data/image_io.h"
#include "data/image_list.h"
#include "data/letterbox.h"
#include "eval/nms.h"
#include "train/model_loader.h"
#include "train/run_dir.h"

namespace fs = std::filesystem;

namespace ywb::cli {
namespace {

std::vector<std::string> sourceImages(const std::string& source) {
  std::vector<std::string> out;
  if (fs::is_directory(source)) {
    for (const auto& e : fs::recursive_directory_iterator(source)) {
      if (e.is_regular_file() && isImageFile(e.path().string())) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    if (out.empty()) throw Error("source=" + source + ": no images (jpg, jpeg, png, bmp, tif, webp) in that folder");
  } else if (fs::is_regular_file(source)) {
    out.push_back(source);
  } else {
    throw Error("source=" + source + ": no such image or folder");
  }
  return out;
}

cv::Scalar classColor(int c) {
  static const cv::Scalar palette[] = {{56, 56, 255}, {151, 157, 255}, {31, 112, 255}, {29, 178, 255},
                                       {49, 210, 207}, {10, 249, 72},   {23, 204, 146}, {134, 219, 61},
                                       {211, 188, 0},  {209, 85, 0},    {255, 149, 50}, {255, 56, 132}};
  return palette[c % 12];
}

int runPredict(const Args& a) {
  a.requireKnown({"weights", "source", "conf", "iou", "imgsz", "max_det", "device", "project", "name", "save_txt",
                  "agnostic_nms"});
  if (!a.has("weights") || !a.has("source")) throw Error("predict needs weights=FILE and source=IMAGE|FOLDER");
  configureTorchThreads(0);
  const std::string dev = a.str("device");
  const at::Device device = (dev == "cpu" || (dev.empty() && !torch::cuda::is_available()))
                                ? at::Device(at::kCPU)
                                : at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(dev.empty() ? 0 : std::stoi(dev)));
  LoadedModel lm = loadModelWeights(a.str("weights"), device);
  lm.model->fuse();
  const int imgsz = int(a.integer("imgsz", lm.imgsz));
  const double conf = a.number("conf", 0.25), iou = a.number("iou", 0.7);
  const int max_det = int(a.integer("max_det", 300));
  const bool save_txt = a.boolean("save_txt", true);
  const std::string dir = makeRunDir(a.str("project", "runs/detect"), a.str("name", "predict"), false);
  if (save_txt) fs::create_directories(fs::path(dir) / "labels");
  nlohmann::json results = nlohmann::json::array();
  torch::NoGradGuard no_grad;
  for (const auto& path : sourceImages(a.str("source"))) {
    int ow = 0, oh = 0;
    cv::Mat img;
    try {
      img = loadImage(path, 0, /*fast=*/false, &ow, &oh);
    } catch (const Error& e) {
      std::cerr << "ywb: skipping " << e.what() << "\n";
      continue;
    }
    LetterboxInfo info;
    cv::Mat lb = letterbox(img, cv::Size(imgsz, imgsz), /*auto_mode=*/true, /*scaleup=*/false, 32, &info);
    cv::Mat rgb;
    cv::cvtColor(lb, rgb, cv::COLOR_BGR2RGB);
    at::Tensor x = torch::from_blob(rgb.data, {1, rgb.rows, rgb.cols, 3}, at::kByte)
                       .permute({0, 3, 1, 2})
                       .to(device)
                       .to(at::kFloat)
                       .div_(255.0);
    const auto t0 = std::chrono::steady_clock::now();
    at::Tensor det = eval::nonMaxSuppression(lm.model->predict(x), conf, iou, max_det, a.boolean("agnostic_nms", false))[0];
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    det = det.to(at::kCPU).contiguous();
    auto d = det.accessor<float, 2>();
    std::string txt;
    nlohmann::json boxes = nlohmann::json::array();
    for (int64_t k = 0; k < det.size(0); ++k) {
      const float x1 = std::clamp(float((d[k][0] - info.left) / info.ratio), 0.f, float(ow));
      const float y1 = std::clamp(float((d[k][1] - info.top) / info.ratio), 0.f, float(oh));
      const float x2 = std::clamp(float((d[k][2] - info.left) / info.ratio), 0.f, float(ow));
      const float y2 = std::clamp(float((d[k][3] - info.top) / info.ratio), 0.f, float(oh));
      const int c = int(d[k][5]);
      const std::string name = c < int(lm.names.size()) ? lm.names[size_t(c)] : std::to_string(c);
      cv::rectangle(img, cv::Point(int(x1), int(y1)), cv::Point(int(x2), int(y2)), classColor(c), 2);
      char label[128];
      std::snprintf(label, sizeof label, "%s %.2f", name.c_str(), d[k][4]);
      cv::putText(img, label, cv::Point(int(x1), std::max(12, int(y1) - 4)), cv::FONT_HERSHEY_SIMPLEX, 0.5,
                  classColor(c), 1, cv::LINE_AA);
      char line[160];
      std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f %.5f\n", c, (x1 + x2) / 2 / ow, (y1 + y2) / 2 / oh,
                    (x2 - x1) / ow, (y2 - y1) / oh, d[k][4]);
      txt += line;
      boxes.push_back({{"class", c}, {"name", name}, {"confidence", d[k][4]}, {"box", {x1, y1, x2, y2}}});
    }
    const std::string stem = fs::path(path).stem().string();
    writeFileAtomic((fs::path(dir) / (stem + ".jpg")).string(), encodeJpeg(img, 92));
    if (save_txt) writeFileAtomic((fs::path(dir) / "labels" / (stem + ".txt")).string(), txt);
    results.push_back({{"image", path}, {"detections", boxes}, {"ms", ms}});
    if (!a.json) std::printf("%s: %lld detections (%.1f ms)\n", path.c_str(), (long long)det.size(0), ms);
  }
  if (a.json) std::cout << nlohmann::json{{"run_dir", dir}, {"results", results}}.dump(2) << "\n";
  else std::printf("Results in %s (images with boxes%s)\n", dir.c_str(), save_txt ? ", labels/*.txt" : "");
  return 0;
}

const RegisterVerb reg{
    {"predict", "detect objects in an image or a folder; write annotated images and YOLO labels",
     "weights=FILE.safetensors source=IMAGE|FOLDER [conf=0.25] [iou=0.7] [imgsz=from weights] [max_det=300]\n"
     "        [device=cpu|0] [agnostic_nms=false] [save_txt=true] [project=runs/detect] [name=predict] [--json]\n\n"
     "Writes each image with its boxes drawn to the run folder and, with save_txt, a YOLO-format prediction file\n"
     "labels/<stem>.txt per image (class cx cy w h confidence, normalised).",
     runPredict}};

}  // namespace
}  // namespace ywb::cli
