// validateWeights() and predictImages(): the engine side of `ywb val`, `ywb predict` and the GUI's
// Predictions tab.
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <opencv2/imgproc.hpp>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/threads.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/image_list.h"
#include "data/letterbox.h"
#include "eval/coco_ids.h"
#include "eval/end2end.h"
#include "eval/nms.h"
#include "model/box_decode.h"
#include "train/device.h"
#include "train/model_loader.h"
#include "train/run_dir.h"
#include "train/validator.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// The images of source= (an image, a folder, a .txt list or a pattern, resolved as dataset sources are);
// entries that name no file are reported in `skipped`.
std::vector<std::string> sourceImages(const std::string& source, std::vector<std::string>& skipped) {
  std::vector<std::string> missing;
  std::vector<std::string> out = listSourceImages(source, "source=" + source, &missing);
  for (const auto& m : missing) {
    std::error_code ec;
    skipped.push_back(m + (fs::is_symlink(m, ec) ? ": broken link (the image it points to does not exist)"
                                                 : ": listed, but no such file"));
  }
  return out;
}

cv::Scalar classColor(int c) {
  static const cv::Scalar palette[] = {{56, 56, 255},  {151, 157, 255}, {31, 112, 255}, {29, 178, 255},
                                       {49, 210, 207}, {10, 249, 72},   {23, 204, 146}, {134, 219, 61},
                                       {211, 188, 0},  {209, 85, 0},    {255, 149, 50}, {255, 56, 132}};
  return palette[c % 12];
}

void drawDetections(cv::Mat& img, const std::vector<DetBox>& boxes, const std::vector<std::string>& names) {
  for (const auto& b : boxes) {
    const std::string name = b.cls < int(names.size()) ? names[size_t(b.cls)] : std::to_string(b.cls);
    cv::rectangle(img, cv::Point(int(b.x1), int(b.y1)), cv::Point(int(b.x2), int(b.y2)), classColor(b.cls),
                  2);
    char label[128];
    std::snprintf(label, sizeof label, "%s %.2f", name.c_str(), b.score);
    cv::putText(img, label, cv::Point(int(b.x1), std::max(12, int(b.y1) - 4)), cv::FONT_HERSHEY_SIMPLEX, 0.5,
                classColor(b.cls), 1, cv::LINE_AA);
  }
}

// One image's detections [k, 6]: NMS-free from an end-to-end model's one-to-one head, else NMS on the
// one-to-many head.
// With `classes`, Ultralytics' filter: NMS-free, the rows of other classes are dropped from the selection;
// before NMS, an anchor whose best class (over all classes) is another one loses every score, so it is no
// candidate (the same candidates as Ultralytics' filter after its best-class step).
at::Tensor detectImage(model::DetectionModelImpl& m, const at::Tensor& x, const PredictOptions& o,
                       const at::Tensor& allowed) {
  if (o.end2end && m.end2end()) {
    const at::Tensor det =
        eval::end2endDetections(m.detect()->decode(m.forwardInference(x, true)), o.conf, o.max_det)[0];
    if (!allowed.defined()) return det;
    return det.index({allowed.to(det.device()).index({det.select(1, 5).to(at::kLong)})});
  }
  at::Tensor pred = m.predict(x);  // [1, 4 + nc, A]
  if (allowed.defined()) {
    const at::Tensor scores = pred.narrow(1, 4, pred.size(1) - 4);
    const at::Tensor keep = allowed.to(pred.device()).index({scores.argmax(1)});  // [1, A]
    pred = at::cat({pred.narrow(1, 0, 4), scores * keep.unsqueeze(1).to(scores.scalar_type())}, 1);
  }
  return eval::nonMaxSuppression(pred, o.conf, o.iou, o.max_det, o.agnostic)[0];
}

}  // namespace

std::string newRunDir(const std::string& project, const std::string& name) {
  return makeRunDir(project, name, false);
}

ValReport validateWeights(const ValOptions& o) {
  return guarded("val", [&] {
    if (o.data.empty() || o.weights.empty()) fail("val needs data=DATA.yaml and weights=FILE.safetensors");
    configureTorchThreads(0);
    const at::Device device = pickDevice(o.device);
    LoadedModel lm = loadModelWeights(o.weights, device);
    const DataConfig cfg = loadDataConfig(o.data);
    if (cfg.names.size() != lm.names.size()) {
      fail("the weights have ", lm.names.size(), " classes but ", cfg.yaml, " has ", cfg.names.size());
    }
    auto split = std::make_shared<ScannedSplit>(scanSplit(cfg, o.split));
    DataLoader loader(split, validationLoaderOptions(o.imgsz > 0 ? o.imgsz : lm.imgsz, o.batch, o.workers));
    ValidatorOptions vo;
    vo.conf = o.conf;
    vo.iou = o.iou;
    vo.max_det = o.max_det;
    vo.end2end = o.end2end;
    vo.keep_detections = o.keep_detections || !o.save_json.empty();
    // The model's loss with the default gains, under the rules of the Ultralytics release its modules follow
    // (an 8.3 checkpoint's losses as 8.3's validator computes them).
    const loss::ModelLoss criterion(*lm.model, {}, loss::smallBoxRuleOf(*lm.model));
    ValidationResult r =
        runValidation(*lm.model, loader, &criterion, int(lm.names.size()), vo, device, o.cancel);
    if (o.cancel && o.cancel()) fail("validation cancelled");
    if (!o.save_json.empty()) {
      const std::vector<std::string>& sources = o.split == "train"  ? cfg.train
                                                : o.split == "test" ? cfg.test
                                                                    : cfg.val;
      const auto ids = eval::cocoCategoryIds(eval::isCocoSplit(sources), lm.names.size());
      writeFileAtomic(o.save_json, eval::ultralyticsResultsJson(r.detections, ids));
    }
    ValReport rep;
    rep.metrics = std::move(r.metrics);
    rep.names = lm.names;
    rep.ms_preprocess = r.ms_preprocess;
    rep.ms_inference = r.ms_inference;
    rep.ms_nms = r.ms_nms;
    rep.ms_metrics = r.ms_metrics;
    rep.has_losses = r.has_losses;
    if (r.has_losses) rep.box_loss = r.box, rep.cls_loss = r.cls, rep.dfl_loss = r.dfl;
    if (o.keep_detections) rep.detections = std::move(r.detections);
    rep.end2end_model = lm.model->end2end();
    rep.nms_free = r.nms_free;
    return rep;
  });
}

PredictReport predictImages(const PredictOptions& o) {
  return guarded("predict", [&] {
    if (o.weights.empty() || o.source.empty())
      fail("predict needs weights=FILE and source=IMAGE|FOLDER|LIST.txt|PATTERN");
    configureTorchThreads(0);
    const at::Device device = pickDevice(o.device);
    LoadedModel lm = loadModelWeights(o.weights, device);
    lm.model->fuse();
    const int imgsz = o.imgsz > 0 ? o.imgsz : lm.imgsz;
    at::Tensor allowed;  // [nc] bool, defined when classes= chose some
    if (!o.classes.empty()) {
      allowed = at::zeros({int64_t(lm.names.size())}, at::kBool);
      for (const int c : o.classes) {
        if (c < 0 || size_t(c) >= lm.names.size())
          fail("classes=", c, ": the weights have classes 0..", lm.names.size() - 1);
        allowed[c] = true;
      }
    }
    PredictReport rep;
    rep.names = lm.names;
    if (!o.out_dir.empty() && o.save_txt) fs::create_directories(fs::path(o.out_dir) / "labels");
    torch::NoGradGuard no_grad;
    std::set<std::string> used_stems;
    for (const auto& path : sourceImages(o.source, rep.skipped)) {
      int ow = 0, oh = 0;
      cv::Mat img;
      try {
        img = loadImage(path, 0, /*fast=*/false, &ow, &oh);
      } catch (const Error& e) {
        rep.skipped.push_back(e.what());
        continue;
      }
      LetterboxInfo info;
      cv::Mat lb = letterbox(img, cv::Size(imgsz, imgsz), /*auto_mode=*/true, /*scaleup=*/false, 32, &info);
      cv::Mat rgb;
      cv::cvtColor(lb, rgb, cv::COLOR_BGR2RGB);
      const auto t0 = std::chrono::steady_clock::now();
      at::Tensor x = at::from_blob(rgb.data, {1, rgb.rows, rgb.cols, 3}, at::kByte)
                         .permute({0, 3, 1, 2})
                         .to(device)
                         .to(at::kFloat)
                         .div_(255.0);
      at::Tensor det = detectImage(*lm.model, x, o, allowed);
      det = det.to(at::kCPU).contiguous();
      ImageDetections out;
      out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      out.path = path;
      out.width = ow;
      out.height = oh;
      auto d = det.accessor<float, 2>();
      std::string txt;
      for (int64_t k = 0; k < det.size(0); ++k) {
        DetBox b;
        b.x1 = std::clamp(float((d[k][0] - info.left) / info.ratio), 0.f, float(ow));
        b.y1 = std::clamp(float((d[k][1] - info.top) / info.ratio), 0.f, float(oh));
        b.x2 = std::clamp(float((d[k][2] - info.left) / info.ratio), 0.f, float(ow));
        b.y2 = std::clamp(float((d[k][3] - info.top) / info.ratio), 0.f, float(oh));
        b.score = d[k][4];
        b.cls = int(d[k][5]);
        out.boxes.push_back(b);
        char line[160];
        std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f", b.cls, (b.x1 + b.x2) / 2 / ow,
                      (b.y1 + b.y2) / 2 / oh, (b.x2 - b.x1) / ow, (b.y2 - b.y1) / oh);
        txt += line;
        if (o.save_conf) {
          std::snprintf(line, sizeof line, " %.5f", b.score);
          txt += line;
        }
        txt += "\n";
      }
      if (!o.out_dir.empty()) {
        // Images of one name from different folders (a recursive folder, a list, a pattern) get stem_2,
        // stem_3, ... instead of overwriting each other's picture and labels.
        std::string stem = fs::path(path).stem().string();
        for (int n = 2; !used_stems.insert(stem).second; ++n)
          stem = fs::path(path).stem().string() + "_" + std::to_string(n);
        drawDetections(img, out.boxes, lm.names);
        writeFileAtomic((fs::path(o.out_dir) / (stem + ".jpg")).string(), encodeJpeg(img, 92));
        if (o.save_txt) writeFileAtomic((fs::path(o.out_dir) / "labels" / (stem + ".txt")).string(), txt);
      }
      rep.images.push_back(std::move(out));
    }
    return rep;
  });
}

}  // namespace ywb
