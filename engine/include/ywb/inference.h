// Validation and prediction with trained weights (a training checkpoint's EMA weights or exported
// safetensors weights): what `ywb val` and `ywb predict` run, and what the GUI's Predictions tab uses.
// Thread rules: blocking calls; run them off the GUI thread. Reentrant.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ywb/metrics.h"
#include "ywb/track.h"

namespace ywb {

/// One image's detections (and ground truth, for validation) in original-image pixels.
struct ImageDetections {
  std::string path;  ///< the image, or the video a frame is of
  int width = 0, height = 0;
  std::vector<DetBox> boxes;
  std::vector<GtBox> truth;
  double ms = 0;   ///< model + NMS time (predict)
  int frame = 0;   ///< a video's frame, counted from 1 (0: an image)
  int frames = 0;  ///< the frame count the video declares (0: unknown, or an image)
};

struct ValOptions {
  std::string data;  ///< data.yaml
  /// A checkpoint or exported weights (.safetensors, .pt), or an exported model, ours or Ultralytics': an
  /// ONNX graph (.onnx) run by OpenCV DNN or ONNX Runtime, or a TorchScript model (.torchscript) run by
  /// LibTorch's TorchScript interpreter (ValReport::runtime). A fixed-size one (every TorchScript model) is
  /// validated on square batches of its own size and batch, as Ultralytics does; it has no losses.
  std::string weights;
  std::string split = "val";
  int imgsz = 0;  ///< 0 = the size the weights were trained at
  int batch = 16;
  double conf = 0.001, iou = 0.7;  ///< Ultralytics' validation defaults
  int max_det = 300;
  std::string device;  ///< "", "cpu" or a CUDA index
  int workers = 4;
  bool keep_detections = false;  ///< fill ValReport::detections
  std::string save_json;         ///< write COCO-results JSON here when not empty
  /// When not empty, a folder that gets <stem>.txt of each image's detections in YOLO label format
  /// (Ultralytics' val save_txt: every detection above conf, original-image coordinates normalised; images
  /// of one stem from different folders get stem_2, ...); save_conf adds the confidence column.
  std::string labels_dir;
  bool save_conf = false;
  /// When not empty, an existing folder that gets Ultralytics' validation plots (ValReport::plots): the
  /// confusion matrices and curves (ywb/plots.h), and val_batch<k>_labels.jpg / val_batch<k>_pred.jpg of the
  /// first three batches (predictions above confidence 0.25, as Ultralytics draws them).
  std::string plots_dir;
  /// An end-to-end model (YOLO26) is validated from its one-to-one head without NMS; false takes its
  /// one-to-many head with NMS. Ignored for other models.
  bool end2end = true;
  /// Test-time augmentation, as Ultralytics' augment=True: the detections are those of three passes (the
  /// input, a mirrored 0.83x copy and a 0.67x copy) through NMS together; the losses are the input's. An
  /// end-to-end model on its NMS-free path ignores it, as Ultralytics' does (ValReport::augmented).
  bool augment = false;
  /// Rectangular batches (Ultralytics' validation: each batch letterboxed to its images' aspect, padded by
  /// half a stride); false letterboxes every image to imgsz x imgsz.
  bool rect = true;
  /// The first batch runs through the model once untimed before its timed pass (Ultralytics warms up with a
  /// zero batch), so that ms_inference is not the one-time set-up of the first batch's shapes.
  bool warmup = true;
  /// Asked between batches (may be empty): true stops the validation, and validateWeights throws ywb::Error
  /// ("validation cancelled") instead of reporting a part of the split.
  std::function<bool()> cancel;
};

struct ValReport {
  DetectionResults metrics;  ///< COCO-exact
  std::vector<std::string> names;
  double ms_preprocess = 0, ms_inference = 0, ms_nms = 0, ms_metrics = 0;  ///< per image
  /// Mean losses per batch with the default gains (box 7.5, cls 0.5, dfl 1.5), as Ultralytics reports them
  /// during training (its val/box_loss, val/cls_loss, val/dfl_loss for the same weights and batch size). An
  /// end-to-end model's (YOLO26) are its one-to-one branch's, with the L1 box term in dfl's place (reg_max
  /// 1). Meaningful only when has_losses (false: no batch was validated).
  double box_loss = 0, cls_loss = 0, dfl_loss = 0;
  bool has_losses = false;
  std::vector<ImageDetections> detections;
  /// The path the detections took: the model has one-to-one branches (YOLO26), and they were used without
  /// NMS (ms_nms is then the top-k selection); an end-to-end model with nms_free false ran its one-to-many
  /// branches with NMS (ValOptions::end2end = false).
  bool end2end_model = false, nms_free = false;
  bool augmented = false;  ///< test-time augmentation ran (ValOptions::augment, and not the NMS-free path)
  std::vector<std::string> plots;  ///< the files written into ValOptions::plots_dir
  /// What ran the model: "LibTorch 1.13.1", "OpenCV DNN 4.6.0", "ONNX Runtime 1.30.0 (onnxruntime-node ...)",
  /// "LibTorch 1.13.1 TorchScript interpreter"
  std::string runtime;
  bool rect = true;          ///< the batches were rectangular (false: imgsz x imgsz squares)
  int imgsz = 0, batch = 0;  ///< the size and batch validated at
};

/// Validates weights on a split of a dataset. Throws ywb::Error (missing files, class-count mismatch, ...).
ValReport validateWeights(const ValOptions& options);

struct PredictOptions {
  std::string weights;
  /// An image, a video (every frame; data/video_io.h lists the extensions), a folder of them (searched
  /// recursively), a .txt list or a glob pattern.
  std::string source;
  double conf = 0.25, iou = 0.7;
  int imgsz = 0;  ///< 0 = the size the weights were trained at
  int max_det = 300;
  std::string device;
  bool agnostic = false;
  /// Where annotated images (<stem>.jpg), annotated videos (<stem>.avi, Motion JPEG at the source's frame
  /// rate) and labels/ go; empty = write nothing.
  std::string out_dir;
  /// YOLO-format labels/<stem>.txt (class cx cy w h, normalised), a video's labels/<stem>_<frame>.txt
  bool save_txt = true;
  /// The annotated images and videos in out_dir (Ultralytics' save; labels follow save_txt alone).
  bool save = true;
  /// A video's frames vid_stride, 2 vid_stride, ... (counted from 1) are predicted, the others skipped
  /// undecoded, as Ultralytics' vid_stride; frame numbers stay the video's own.
  int vid_stride = 1;
  bool save_conf = false;  ///< a sixth column with the confidence in those files (Ultralytics' save_conf)
  /// Each detection cut from the original image into out_dir/crops/<class name>/<stem>.jpg (a video frame's
  /// stem is <stem>_<frame>; more crops of a class from one image: <stem>2.jpg, ...), as Ultralytics'
  /// save_crop: the box grown to 1.02 x its size + 10 px, clipped to the image.
  bool save_crop = false;
  /// How the annotated images and videos draw boxes (Ultralytics' line_width, show_labels, show_conf):
  /// line width in pixels (0: from the image's size), the class label, the confidence in it.
  int line_width = 0;
  bool show_labels = true, show_conf = true;
  bool end2end = true;   ///< as ValOptions::end2end (iou and agnostic apply only to the NMS path)
  bool augment = false;  ///< as ValOptions::augment (PredictReport::augmented)
  /// Only these class ids (empty: all), as Ultralytics' `classes`: on the NMS path an anchor whose best
  /// class is not among them is no candidate; NMS-free, the selected rows of other classes are dropped.
  std::vector<int> classes;
  /// Object tracking (`ywb track`, Ultralytics' track mode): each video's frames go through a tracker
  /// (`tracker`: BoT-SORT or ByteTrack) started afresh for the video, and the detections reported, drawn and
  /// saved are its confirmed tracks (DetBox::track_id; the boxes are the tracker's, clipped to the image;
  /// labels gain the id as their last column). An image is a video of one frame. Ultralytics tracks at conf
  /// 0.1 unless told.
  bool track = false;
  TrackerOptions tracker;
  /// Tracking with one tracker for the whole source (Ultralytics' persist=True) instead of one per video:
  /// a folder of video frames saved as images (MOT-style sequences) is tracked as one video, in the
  /// source's order, and ids continue from one file to the next.
  bool persist = false;
  /// Called on the calling thread as soon as an image's or a video frame's detections are found (the
  /// report so far: its last entry of `images` is the new one), so a long video reports as it goes. May be
  /// empty.
  std::function<void(const struct PredictReport&)> on_result;
};

struct PredictReport {
  std::vector<std::string> names;
  std::vector<ImageDetections> images;  ///< every image and every video frame, in source order
  /// "path: why" for unreadable images and videos, and for a video's frames that do not decode
  std::vector<std::string> skipped;
  std::vector<std::string> videos;  ///< the annotated videos written (out_dir/<stem>.avi)
  std::vector<std::string> crops;   ///< the crops written (save_crop)
  bool augmented = false;  ///< test-time augmentation ran (PredictOptions::augment, and not NMS-free)
  bool nms_free = false;   ///< an end-to-end model predicted without NMS (its one-to-one head)
};

/// Creates and returns a fresh run folder `project/name`, `name2`, ... (named as training runs are; without
/// their weights/ folder).
std::string newRunDir(const std::string& project, const std::string& name);

/// The video extensions predict's source= takes (Ultralytics' list), as messages list them: "asf, avi, ...".
std::string videoExtensionsText();

/// A picture in memory: 8-bit RGB, rows of width x 3 bytes.
struct RgbImage {
  int width = 0, height = 0;
  std::vector<unsigned char> pixels;
};

/// Frame `frame` of a video, counted from 1 as predict numbers them (ImageDetections::frame), decoded as
/// predict decodes it (the frames before it are passed over undecoded). Throws ywb::Error naming the path
/// (no such video, a frame past its end, a build without video support).
RgbImage readVideoFrame(const std::string& path, int frame);

/// Runs the detector on every image and video frame of `source`. Throws ywb::Error for missing weights or
/// source, or an annotated video that cannot be written whole.
PredictReport predictImages(const PredictOptions& options);

}  // namespace ywb
