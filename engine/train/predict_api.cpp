// predictImages(): the engine side of `ywb predict` and the quick start's predictions, on images and videos.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <opencv2/imgproc.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/threads.h"
#include "data/box_drawing.h"
#include "data/image_io.h"
#include "data/image_list.h"
#include "data/letterbox.h"
#include "data/video_io.h"
#include "eval/end2end.h"
#include "eval/nms.h"
#include "export/exported_detector.h"
#include "model/test_time_augment.h"
#include "track/byte_tracker.h"
#include "train/detection_crops.h"
#include "train/detection_labels.h"
#include "train/device.h"
#include "train/model_loader.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

void drawDetections(cv::Mat& img, const std::vector<DetBox>& boxes, const std::vector<std::string>& names,
                    const PredictOptions& o) {
  std::vector<DrawnBox> drawn;
  for (const auto& b : boxes) drawn.push_back({b.x1, b.y1, b.x2, b.y2, b.cls, b.score, b.track_id});
  BoxStyle style;
  style.line_width = o.line_width;
  style.labels = o.show_labels;
  style.scores = o.show_conf;
  drawBoxes(img, drawn, names, /*bgr=*/true, style);
}

// Whether the detections come NMS-free from an end-to-end model's one-to-one head.
bool nmsFree(const model::DetectionModelImpl& m, const PredictOptions& o) {
  return o.end2end && m.end2end();
}

// With `classes`, Ultralytics' filter on NMS-free detections [k, 6]: the rows of other classes are dropped
// (and their anchors, when given).
at::Tensor keepClasses(const at::Tensor& det, const at::Tensor& allowed, at::Tensor* anchors = nullptr) {
  if (!allowed.defined()) return det;
  const at::Tensor keep = allowed.to(det.device()).index({det.select(1, 5).to(at::kLong)});
  if (anchors) *anchors = anchors->index({keep.to(anchors->device())});
  return det.index({keep});
}

// NMS of one image's predictions [1, 4 + nc, A]. With `classes`, Ultralytics' filter before NMS: an anchor
// whose best class (over all classes) is another one loses every score, so it is no candidate (the same
// candidates as Ultralytics' filter after its best-class step).
at::Tensor nmsDetections(at::Tensor pred, const PredictOptions& o, const at::Tensor& allowed,
                         std::vector<at::Tensor>* anchors = nullptr) {
  if (allowed.defined()) {
    const at::Tensor scores = pred.narrow(1, 4, pred.size(1) - 4);
    const at::Tensor keep = allowed.to(pred.device()).index({scores.argmax(1)});  // [1, A]
    pred = at::cat({pred.narrow(1, 0, 4), scores * keep.unsqueeze(1).to(scores.scalar_type())}, 1);
  }
  return eval::nonMaxSuppression(pred, o.conf, o.iou, o.max_det, o.agnostic, 30000, false, anchors)[0];
}

// One image's detections [k, 6]: NMS-free from an end-to-end model's one-to-one head, else NMS on the
// one-to-many head. `features`, when given, gets each detection's appearance for BoT-SORT's ReID: the head's
// inputs at the anchor it came from (one pass: not with augment).
at::Tensor detectTensor(model::DetectionModelImpl& m, const at::Tensor& x, const PredictOptions& o,
                        const at::Tensor& allowed, track::Features* features = nullptr) {
  std::vector<at::Tensor> maps, anchors;
  std::vector<at::Tensor>* want_maps = features ? &maps : nullptr;
  std::vector<at::Tensor>* want_anchors = features ? &anchors : nullptr;
  at::Tensor det;
  if (nmsFree(m, o)) {
    det = eval::end2endDetections(m.detect()->decode(m.forwardInference(x, true, want_maps)), o.conf,
                                  o.max_det, want_anchors)[0];
    det = keepClasses(det, allowed, features ? &anchors[0] : nullptr);
  } else {
    const at::Tensor pred =
        o.augment
            ? model::augmentedPrediction(x, m.strides(), [&](const at::Tensor& xi) { return m.predict(xi); })
            : m.predict(x, want_maps);  // [1, 4 + nc, A]
    det = nmsDetections(pred, o, allowed, want_anchors);
  }
  if (features) *features = track::objectFeatures(maps, anchors[0]);
  return det;
}

// The same from an exported model: its rows (end-to-end) or NMS of its output.
at::Tensor detectTensor(exported::ExportedDetector& m, const at::Tensor& x, const PredictOptions& o,
                        const at::Tensor& allowed) {
  const at::Tensor y = m.run({x})[0];
  if (m.info().end2end) return keepClasses(eval::endToEndRows(y, o.conf, o.max_det)[0], allowed);
  return nmsDetections(y, o, allowed);
}

// What one prediction run shares: the fused model, its input size, the class filter, the output folder.
class Predictor {
 public:
  explicit Predictor(const PredictOptions& o) : o_(o), device_(pickDevice(o.device)) {
    // BoT-SORT's ReID (model: auto) reads the model's own features, which only the weights give.
    reid_ = o.track && usesAppearance(o.tracker);
    const bool exported_model = exported::isExportedModelPath(o.weights);
    if (reid_ && exported_model)
      fail(
          "tracker: with_reid takes each object's appearance from the detector's own features (model: "
          "auto), which an exported model ('",
          o.weights,
          "') does not give; track with the weights (.pt or .safetensors), or with with_reid: false");
    if (exported_model) {
      exported_ = exported::openExportedDetector(o.weights);
      exported::checkExportedOptions(exported_->info(), o.end2end, o.augment);
      names_ = exported_->info().names;
      imgsz_ = exported::exportedImageSize(exported_->info(), o.imgsz);
      // Ultralytics letterboxes a fixed-size model's input to its full square, anything else minimally.
      minimal_letterbox_ = !exported_->info().fixedSize();
    } else {
      lm_ = loadModelWeights(o.weights, device_);
      lm_.model->fuse();
      names_ = lm_.names;
      imgsz_ = o.imgsz > 0 ? o.imgsz : lm_.imgsz;
    }
    if (reid_ && o.augment && !nmsFree())
      fail(
          "tracker: with_reid takes each object's appearance from one forward pass; augment=true runs three "
          "(track without augment, or with with_reid: false)");
    if (!o.classes.empty()) {
      allowed_ = at::zeros({int64_t(names_.size())}, at::kBool);
      for (const int c : o.classes) {
        if (c < 0 || size_t(c) >= names_.size())
          fail("classes=", c, ": the weights have classes 0..", names_.size() - 1);
        allowed_[c] = true;
      }
    }
    if (!o.out_dir.empty() && o.save_txt) fs::create_directories(fs::path(o.out_dir) / "labels");
  }

  const std::vector<std::string>& names() const { return names_; }
  bool nmsFree() const { return exported_ ? exported_->info().end2end : ywb::nmsFree(*lm_.model, o_); }

  // A name for the outputs of `path`, unique within the run (UniqueStems).
  std::string outputStem(const std::string& path) { return stems_(path); }

  // Detects on one BGR image (an image file's or a video frame's) in its own pixels; with tracking, the
  // boxes are `tracker`'s confirmed tracks after this frame. `out.path` and `out.frame` are the caller's.
  ImageDetections detect(const cv::Mat& img, track::ByteTracker* tracker) {
    const int ow = img.cols, oh = img.rows;
    LetterboxInfo info;
    cv::Mat lb = letterbox(img, cv::Size(imgsz_, imgsz_), minimal_letterbox_, /*scaleup=*/false, 32, &info);
    cv::Mat rgb;
    cv::cvtColor(lb, rgb, cv::COLOR_BGR2RGB);
    const auto t0 = std::chrono::steady_clock::now();
    at::Tensor x = at::from_blob(rgb.data, {1, rgb.rows, rgb.cols, 3}, at::kByte)
                       .permute({0, 3, 1, 2})
                       .to(device_)
                       .to(at::kFloat)
                       .div_(255.0);
    track::Features features;  // with ReID, each detection's appearance (in det's row order)
    at::Tensor det =
        (exported_ ? detectTensor(*exported_, x, o_, allowed_)
                   : detectTensor(*lm_.model, x, o_, allowed_, reid_ && tracker ? &features : nullptr))
            .to(at::kCPU)
            .contiguous();
    ImageDetections out;
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.width = ow;
    out.height = oh;
    const auto clip = [ow, oh](DetBox& b) {  // to the original image
      b.x1 = std::clamp(b.x1, 0.f, float(ow)), b.x2 = std::clamp(b.x2, 0.f, float(ow));
      b.y1 = std::clamp(b.y1, 0.f, float(oh)), b.y2 = std::clamp(b.y2, 0.f, float(oh));
    };
    auto d = det.accessor<float, 2>();
    for (int64_t k = 0; k < det.size(0); ++k) {
      DetBox b;
      b.x1 = float((d[k][0] - info.left) / info.ratio);
      b.y1 = float((d[k][1] - info.top) / info.ratio);
      b.x2 = float((d[k][2] - info.left) / info.ratio);
      b.y2 = float((d[k][3] - info.top) / info.ratio);
      clip(b);
      b.score = d[k][4];
      b.cls = int(d[k][5]);
      out.boxes.push_back(b);
    }
    if (tracker) {
      out.boxes = tracker->update(out.boxes, img, features);
      for (DetBox& b : out.boxes) clip(b);  // the filter's box may reach past the image
    }
    return out;
  }

  // An image's or a frame's label file `labels/<stem>.txt`, when the run saves labels.
  void saveLabels(const ImageDetections& det, const std::string& stem) const {
    if (!o_.out_dir.empty() && o_.save_txt)
      writeFileAtomic((fs::path(o_.out_dir) / "labels" / (stem + ".txt")).string(),
                      yoloLabelText(det.boxes, det.width, det.height, o_.save_conf));
  }

  // A tracker for one video (or image), when the run tracks.
  std::unique_ptr<track::ByteTracker> newTracker() const {
    return o_.track ? std::make_unique<track::ByteTracker>(o_.tracker) : nullptr;
  }

  void draw(cv::Mat& img, const ImageDetections& det) const { drawDetections(img, det.boxes, names_, o_); }

  // save_crop: the detections cut from the image before anything is drawn on it.
  void crop(const cv::Mat& img, const ImageDetections& det, const std::string& stem,
            PredictReport& rep) const {
    if (o_.out_dir.empty() || !o_.save_crop) return;
    for (auto& f : saveCrops(img, det.boxes, names_, (fs::path(o_.out_dir) / "crops").string(), stem))
      rep.crops.push_back(std::move(f));
  }

 private:
  const PredictOptions& o_;
  at::Device device_;
  LoadedModel lm_;                                        // the weights' model, or
  std::unique_ptr<exported::ExportedDetector> exported_;  // an exported model
  std::vector<std::string> names_;
  bool minimal_letterbox_ = true;  // the letterbox pads to the stride only (else to imgsz_ x imgsz_)
  bool reid_ = false;              // the tracker compares appearance: detections come with features
  int imgsz_ = 0;
  at::Tensor allowed_;  // [nc] bool, defined when classes= chose some
  UniqueStems stems_;
};

}  // namespace

RgbImage readVideoFrame(const std::string& path, int frame) {
  if (frame < 1) fail("frame ", frame, " of '", path, "': frames are counted from 1");
  VideoReader in(path);
  while (in.framesRead() < frame - 1)
    if (!in.skip()) fail("'", path, "' has ", in.framesRead(), " frames: no frame ", frame);
  cv::Mat bgr;
  if (!in.read(bgr)) fail("'", path, "': frame ", frame, " does not decode");
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  RgbImage out;  // cvtColor's output is a new, continuous matrix: its rows follow one another
  out.width = rgb.cols;
  out.height = rgb.rows;
  out.pixels.assign(rgb.data, rgb.data + rgb.total() * 3);
  return out;
}

PredictReport predictImages(const PredictOptions& o) {
  return guarded("predict", [&] {
    if (o.weights.empty() || o.source.empty())
      fail("predict needs weights=FILE and source=IMAGE|VIDEO|FOLDER|LIST.txt|PATTERN");
    if (o.vid_stride < 1)
      fail("vid_stride=", o.vid_stride, ": expected 1 or more (every n-th frame of a video)");
    if (o.line_width < 0)
      fail("line_width=", o.line_width, ": expected a width in pixels (0: from the image's size)");
    configureTorchThreads(0);
    Predictor p(o);
    PredictReport rep;
    rep.names = p.names();
    rep.nms_free = p.nmsFree();
    rep.augmented = o.augment && !rep.nms_free;
    auto report = [&](ImageDetections&& det) {
      rep.images.push_back(std::move(det));
      if (o.on_result) o.on_result(rep);
    };
    torch::NoGradGuard no_grad;
    std::vector<std::string> missing;
    const std::vector<std::string> files = listSourceMedia(o.source, "source=" + o.source, &missing);
    for (const auto& m : missing) {
      std::error_code ec;
      rep.skipped.push_back(m + (fs::is_symlink(m, ec)
                                     ? ": broken link (the file it points to does not exist)"
                                     : ": listed, but no such file"));
    }
    // persist: one tracker for every file; else one per video (and image), made where it starts.
    const auto persistent = o.persist ? p.newTracker() : nullptr;
    for (const auto& path : files) {
      if (isVideoFile(path)) {
        // Every frame (every vid_stride-th), in order: labels/<stem>_<frame>.txt (the video's frame number,
        // counted from 1 as Ultralytics counts) and the annotated copy <stem>.avi at the video's frame rate.
        std::unique_ptr<VideoReader> in;
        try {
          in = std::make_unique<VideoReader>(path);
        } catch (const Error& e) {
          rep.skipped.push_back(e.what());
          continue;
        }
        const std::string stem = p.outputStem(path);
        const std::string annotated = (fs::path(o.out_dir) / (stem + ".avi")).string();
        std::unique_ptr<VideoWriter> out;
        if (!o.out_dir.empty() && o.save) out = std::make_unique<VideoWriter>(annotated, in->fps());
        cv::Mat frame;
        int predicted = 0;
        const auto own = persistent ? nullptr : p.newTracker();
        track::ByteTracker* tracker = persistent ? persistent.get() : own.get();
        auto next = [&] {  // frames vid_stride, 2 vid_stride, ...: the ones between are skipped undecoded
          for (int k = 1; k < o.vid_stride; ++k)
            if (!in->skip()) return false;
          return in->read(frame);
        };
        while (next()) {
          ++predicted;
          const std::string frame_stem = stem + "_" + std::to_string(in->framesRead());
          ImageDetections det = p.detect(frame, tracker);
          p.saveLabels(det, frame_stem);
          p.crop(frame, det, frame_stem, rep);
          det.path = path;
          det.frame = in->framesRead();
          det.frames = in->declaredFrames();
          if (out) {
            p.draw(frame, det);
            out->write(frame);
          }
          report(std::move(det));
        }
        if (in->framesRead() == 0) {
          rep.skipped.push_back(path + ": no frame of the video decodes");
        } else if (predicted == 0) {
          rep.skipped.push_back(path + ": its " + std::to_string(in->framesRead()) +
                                " frame(s) are fewer than vid_stride=" + std::to_string(o.vid_stride) +
                                ": none predicted");
        } else if (in->framesRead() < in->declaredFrames()) {
          rep.skipped.push_back(path + ": frames " + std::to_string(in->framesRead() + 1) + " to " +
                                std::to_string(in->declaredFrames()) +
                                " do not decode (the video's header declares " +
                                std::to_string(in->declaredFrames()) + ")");
        }
        if (out && predicted > 0) {
          out->finish();
          rep.videos.push_back(annotated);
        }
        continue;
      }
      cv::Mat img;
      try {
        img = loadImage(path, 0, /*fast=*/false);  // upright, full size: detect() reads its size
      } catch (const Error& e) {
        rep.skipped.push_back(e.what());
        continue;
      }
      const std::string stem = o.out_dir.empty() ? std::string() : p.outputStem(path);
      ImageDetections det = p.detect(img, persistent ? persistent.get() : p.newTracker().get());
      p.saveLabels(det, stem);
      p.crop(img, det, stem, rep);
      det.path = path;
      if (!o.out_dir.empty() && o.save) {
        p.draw(img, det);
        writeFileAtomic((fs::path(o.out_dir) / (stem + ".jpg")).string(), encodeJpeg(img, 92));
      }
      report(std::move(det));
    }
    return rep;
  });
}

}  // namespace ywb
