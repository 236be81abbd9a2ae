// A validation pass with Ultralytics' rules: letterboxed rectangular batches (pad 0.5) through the model,
// validation losses, multi-label NMS (conf 0.001, IoU 0.7, max_det 300), and COCO-exact metrics in
// original-image pixels. Used after every epoch and by `ywb val`; the loader is built by
// validationLoaderOptions() (rect batches, OpenCV-exact JPEG decoding).
// Thread rules: runs on the calling thread (the trainer thread); the model must not be used elsewhere.
#pragma once
#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "data/loader.h"
#include "loss/model_loss.h"
#include "model/detection_model.h"
#include "ywb/inference.h"
#include "ywb/metrics.h"

namespace ywb {

struct ValidatorOptions {
  double conf = 0.001;  ///< Ultralytics' validation defaults
  double iou = 0.7;
  int max_det = 300;
  bool agnostic = false;
  bool multi_label = true;  ///< Ultralytics' validation NMS: every class above conf per box (predict: false)
  /// An end-to-end model (YOLO26) is validated from its one-to-one branches without NMS (top-k, see
  /// eval::end2endDetections); false takes its one-to-many branches with NMS. No effect on other models.
  bool end2end = true;
  /// Test-time augmentation (model/test_time_augment.h) on the NMS path: the detections come from three
  /// passes (the losses from the first, the plain input's). An end-to-end model's NMS-free path ignores it,
  /// as Ultralytics' (ValidationResult::augmented says whether it ran).
  bool augment = false;
  /// Run the model under autocast in `autocast_dtype` (the training's mixed precision; decode, loss, NMS
  /// and metrics stay fp32).
  bool autocast = false;
  at::ScalarType autocast_dtype = at::kBFloat16;
  bool keep_detections = false;  ///< keep per-image detections (save_json, GUI predictions)
  /// Run the first batch's forward once untimed before its timed pass (`ywb val`'s timings; the trainer's
  /// warm model needs none). ONNX Runtime is not warmed: each of its runs is a new process.
  bool warmup = false;
  /// Run the model on at most this many images at a time (0: the whole batch). The batch, its letterbox
  /// shape, the loss and NMS stay whole, so the results are those of the whole batch; the forward pass's
  /// temporary memory (on CPU about 20 MB per 320-px image for YOLOv8n) is that of the smaller slice.
  int max_forward_batch = 0;
  /// Called once the loader has handed out its last batch (the images are all loaded; inference, NMS and
  /// metrics of that batch are still to come): the trainer starts its next epoch's loading there.
  std::function<void()> on_last_batch;
  /// Called after each batch's NMS with the batch, its detections per image ([k, 6]: x1, y1, x2, y2, score,
  /// class in the batch's letterboxed pixels) and the batch's index (validation plots).
  std::function<void(const Batch&, const std::vector<at::Tensor>&, int64_t)> on_batch;
};

struct ValidationResult {
  DetectionResults metrics;
  /// Mean validation losses per batch: the loss's logged items (an end-to-end model's: the one-to-one
  /// branch's box, cls and L1). Only when has_losses (a loss was given and a batch validated).
  double box = 0, cls = 0, dfl = 0;
  bool has_losses = false;
  double ms_preprocess = 0, ms_inference = 0, ms_nms = 0, ms_metrics = 0;  ///< per image
  double data_wait_s = 0;  ///< total seconds spent waiting for the loader
  int64_t images = 0;
  std::vector<ImageDetections> detections;  ///< when keep_detections
  bool augmented = false;  ///< the detections are test-time augmented (options.augment on the NMS path)
  bool nms_free = false;   ///< an end-to-end model's one-to-one branches without NMS gave the detections
};

/// Loader options of a validation pass (Ultralytics' validation loader): rectangular aspect-sorted batches
/// padded by half a stride, plain letterbox (no augmentation), no shuffle, JPEG decoded exactly as OpenCV.
LoaderOptions validationLoaderOptions(int imgsz, int batch, int workers);

/// Validates `model` (switched to eval mode and back) on every batch of `loader` (epoch 0).
/// `loss`: the model's loss (loss::ModelLoss of this model), or null for no validation losses; its items do
/// not depend on options.end2end (an end-to-end model's are the one-to-one branch's on either path).
/// `should_stop` is polled between batches; `before_batch` (may be empty) is called with each batch's image
/// count before its forward pass (the trainer's test hooks).
ValidationResult runValidation(model::DetectionModelImpl& model, DataLoader& loader,
                               const loss::ModelLoss* loss, int num_classes, const ValidatorOptions& options,
                               const at::Device& device, const std::function<bool()>& should_stop = {},
                               const std::function<void(int64_t)>& before_batch = {});

/// Adds one batch to `metrics`: its labels and its detections (per image [k, 6], x1, y1, x2, y2, score,
/// class in the batch's letterboxed pixels, any device), both mapped to original-image pixels; appends each
/// image's to `kept` when not null. Shared by every validation path (LibTorch, ONNX).
void addBatchDetections(const Batch& batch, const std::vector<at::Tensor>& dets, DetectionMetrics& metrics,
                        std::vector<ImageDetections>* kept);

/// Sets res.ms_* (per image, over res.images) from the seconds each stage took in all.
void setPerImageTimes(ValidationResult& res, double pre_s, double inf_s, double nms_s, double met_s);

/// Maps a box from sample (letterboxed) pixels back to original-image pixels, clipped to the image.
void unletterbox(const ImageMeta& meta, float& x1, float& y1, float& x2, float& y2);

}  // namespace ywb
