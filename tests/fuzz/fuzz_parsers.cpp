#include "fuzz_parsers.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "data/image_io.h"
#include "data/image_list.h"
#include "data/label_parser.h"
#include "ywb/coco_eval.h"
#include "ywb/dataset.h"
#include "ywb/error.h"
#include "ywb/train_args.h"

namespace fs = std::filesystem;

namespace ywb::fuzz {
namespace {

void promise(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("broken promise: ") + what);
}

}  // namespace

bool labelRows(const uint8_t* data, size_t size) {
  if (size == 0) return true;
  const int nc = 1 + data[0] % 100;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const LabelParseResult r = parseLabels(text, nc);
  promise(!r.invalid || r.boxes.empty(), "an invalid label file keeps no boxes");
  promise(!r.invalid || !r.problems.empty(), "an invalid label file says why");
  for (const LabelBox& b : r.boxes) {
    promise(b.cls >= 0 && b.cls < nc, "class inside [0, nc)");
    promise(b.w > 0 && b.h > 0, "boxes have area");
    promise(b.cx - b.w / 2 >= -1e-6f && b.cx + b.w / 2 <= 1 + 1e-6f, "x inside the image");
    promise(b.cy - b.h / 2 >= -1e-6f && b.cy + b.h / 2 <= 1 + 1e-6f, "y inside the image");
  }
  for (const LabelProblem& p : r.problems) promise(p.line >= 1 && !p.reason.empty(), "problems name a line");
  return !r.invalid;
}

void prepareDataYamlDir(const std::string& dir) {
  for (const char* sub : {"images/train", "images/val", "images/test", "labels/train"})
    fs::create_directories(fs::path(dir) / sub);
  std::ofstream(fs::path(dir) / "train.txt") << "images/train/a.jpg\n";
  std::ofstream(fs::path(dir) / "val.txt") << "images/val/b.jpg\n";
}

void dataYaml(const uint8_t* data, size_t size, const std::string& dir) {
  const std::string path = (fs::path(dir) / "data.yaml").string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  const DataConfig c = loadDataConfig(path);
  promise(!c.names.empty(), "a loaded data.yaml has class names");
  promise(!c.train.empty() && !c.val.empty(), "a loaded data.yaml has train and val");
  for (const auto* split : {&c.train, &c.val, &c.test})
    for (const std::string& p : *split) {
      std::error_code ec;  // a pattern may be longer than a file name may be: no exception for that
      promise(fs::exists(p, ec) || isSourcePattern(p), "split paths exist or are patterns");
    }
}

void argsYaml(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  TrainArgs args;
  loadTrainArgsYamlText(text, "fuzz.yaml", args);
  try {
    args.validate();
  } catch (const Error&) {
    // Loaded but refused as a whole (e.g. imgsz not a multiple of 32): the round trip still must hold.
  }
  const std::string written = trainArgsToYaml(args);
  TrainArgs again;
  std::vector<std::string> unknown;
  try {
    unknown = loadTrainArgsYamlText(written, "args.yaml", again);
  } catch (const Error& e) {
    throw std::logic_error(std::string("args.yaml written from loaded arguments does not load: ") + e.what());
  }
  promise(unknown.empty(), "args.yaml names only known arguments");
  for (const ArgSpec& s : trainArgSpecs())
    promise(again.get(s.name) == args.get(s.name), "args.yaml round trip keeps every value");
}

void cocoJson(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string sep = "\n#####\n";
  const size_t cut = text.find(sep);
  const std::string gt_text = cut == std::string::npos ? text : text.substr(0, cut);
  const std::string dt_text = cut == std::string::npos ? text : text.substr(cut + sep.size());
  try {
    parseCocoDetections(dt_text, "dt.json");  // as read without ground truth
  } catch (const Error&) {
  }
  const CocoGroundTruth gt = parseCocoGroundTruth(gt_text, "gt.json");
  const std::vector<CocoDetection> dt = parseCocoDetections(dt_text, "dt.json", &gt);
  const CocoStats s = evaluateCoco(gt, dt);
  for (double v : s.stats) promise(v == -1 || (v >= 0 && v <= 1), "COCO numbers in [0, 1] or -1");
  for (const CocoCategoryStats& c : s.per_category)
    for (double v : {c.ap, c.ap50, c.ap75, c.ar100})
      promise(v == -1 || (v >= 0 && v <= 1), "per-class in range");
  promise(!cocoStatsText(s).empty() && !cocoStatsJson(s).empty(), "stats print");
}

void imageFile(const uint8_t* data, size_t size, const std::string& dir) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const int o = jpegExifOrientation(bytes);
  promise(o >= 1 && o <= 8, "EXIF orientation in 1..8");
  const std::string path = (fs::path(dir) / "image").string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  const ImageProbe probe = probeImage(path);
  promise(probe.ok == probe.reason.empty(), "a probe says why it refuses, and only then");
  int w = 0, h = 0;
  const cv::Mat img = loadImage(path, 64, true, &w, &h);
  promise(img.type() == CV_8UC3 && std::max(img.cols, img.rows) == 64, "8-bit BGR, longest side 64");
  promise(!probe.ok || (probe.width == w && probe.height == h), "the scan's size is the loader's size");
}

}  // namespace ywb::fuzz
