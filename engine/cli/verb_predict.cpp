#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/augment_arg.h"
#include "cli/class_counts.h"
#include "cli/verb_registry.h"
#include "cli/weights_arg.h"
#include "ywb/error.h"
#include "ywb/inference.h"
#include "ywb/track.h"

namespace ywb::cli {
namespace {

// classes=0,2 (or Ultralytics' [0, 2], or one id): the class ids; empty for all.
std::vector<int> classIds(std::string text) {
  std::vector<int> ids;
  for (char& c : text)
    if (c == '[' || c == ']' || c == '(' || c == ')' || c == ',') c = ' ';
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const long v = std::strtol(word.c_str(), &end, 10);
    if (*end != '\0' || v < 0)
      throw Error("invalid value '" + word + "' in classes=: expected class ids such as 0 or 0,2");
    ids.push_back(int(v));
  }
  return ids;
}

// ywb predict, and ywb track (the same with a tracker: Ultralytics' track mode, at conf 0.1 by default).
int runDetect(const Args& a, bool track) {
  std::vector<std::string> known = {
      "weights",    "model",   "source",    "conf",       "iou",         "imgsz",        "max_det", "device",
      "project",    "name",    "save_txt",  "save_conf",  "classes",     "agnostic_nms", "end2end", "save",
      "vid_stride", "augment", "save_crop", "line_width", "show_labels", "show_conf"};
  if (track) known.insert(known.end(), {"tracker", "persist"});
  a.requireKnown(known);
  PredictOptions o;
  o.weights = resolveWeightsArg(weightsValue(a), a.json);
  o.source = a.str("source");
  o.track = track;
  if (track) {
    o.conf = kTrackConf;
    o.tracker = loadTrackerOptions(a.str("tracker", "botsort.yaml"));
    o.persist = a.boolean("persist", false);
  }
  o.conf = a.number("conf", o.conf);
  o.iou = a.number("iou", o.iou);
  o.imgsz = int(a.integer("imgsz", 0));
  o.max_det = int(a.integer("max_det", o.max_det));
  o.device = a.str("device");
  o.agnostic = a.boolean("agnostic_nms", false);
  o.end2end = a.boolean("end2end", o.end2end);
  o.augment = a.boolean("augment", o.augment);
  o.save_txt = a.boolean("save_txt", true);
  o.save_conf = a.boolean("save_conf", false);
  o.save_crop = a.boolean("save_crop", o.save_crop);
  o.line_width = int(a.integer("line_width", o.line_width));
  o.show_labels = a.boolean("show_labels", o.show_labels);
  o.show_conf = a.boolean("show_conf", o.show_conf);
  o.save = a.boolean("save", true);
  o.vid_stride = int(a.integer("vid_stride", 1));
  o.classes = classIds(a.str("classes"));
  if (o.weights.empty() || o.source.empty())
    throw Error(std::string(track ? "track" : "predict") +
                " needs weights=FILE and source=IMAGE|VIDEO|FOLDER|LIST.txt|PATTERN");
  o.out_dir = newRunDir(a.str("project", "runs/detect"), a.str("name", track ? "track" : "predict"));
  if (!a.json) {
    // One line per image or video frame as it is found (a long video reports as it goes).
    o.on_result = [](const PredictReport& so_far) {
      const ImageDetections& img = so_far.images.back();
      std::string where = img.path;
      if (img.frame > 0)
        where += " (frame " + std::to_string(img.frame) +
                 (img.frames > 0 ? "/" + std::to_string(img.frames) : std::string()) + ")";
      std::string ids;
      for (const DetBox& b : img.boxes)
        if (b.track_id > 0) ids += (ids.empty() ? ", ids " : " ") + std::to_string(b.track_id);
      std::printf("%s: %s%s (%.1f ms)\n", where.c_str(), classCounts(img.boxes, so_far.names).c_str(),
                  ids.c_str(), img.ms);
      std::fflush(stdout);
    };
  }
  const PredictReport r = predictImages(o);
  if (o.augment && !r.augmented) std::fprintf(stderr, "%s\n", augmentIgnoredNote().c_str());
  if (a.json) {
    nlohmann::json images = nlohmann::json::array();
    for (const auto& img : r.images) {
      nlohmann::json boxes = nlohmann::json::array();
      for (const auto& b : img.boxes) {
        nlohmann::json box = {{"class", b.cls},
                              {"name", r.names[size_t(b.cls)]},
                              {"confidence", b.score},
                              {"box", {b.x1, b.y1, b.x2, b.y2}}};
        if (b.track_id > 0) box["track_id"] = b.track_id;
        boxes.push_back(std::move(box));
      }
      nlohmann::json entry = {{"image", img.path}, {"ms", img.ms}, {"detections", boxes}};
      if (img.frame > 0) entry["frame"] = img.frame, entry["frames"] = img.frames;
      images.push_back(std::move(entry));
    }
    nlohmann::json doc{{"run_dir", o.out_dir},     {"images", images}, {"videos", r.videos},
                       {"augmented", r.augmented}, {"crops", r.crops}, {"skipped", r.skipped}};
    if (track) doc["tracker"] = trackerDescription(o.tracker);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  for (const auto& s : r.skipped) std::printf("skipped %s\n", s.c_str());
  if (track) std::printf("Tracked with %s\n", trackerDescription(o.tracker).c_str());
  std::printf("Results in %s (annotated %s%s%s)\n", o.out_dir.c_str(),
              r.videos.empty() ? "images" : "images and videos", o.save_txt ? ", labels/*.txt" : "",
              r.crops.empty() ? "" : (", " + std::to_string(r.crops.size()) + " crops in crops/").c_str());
  return 0;
}

const RegisterVerb reg{
    {"predict", "detect objects in images and videos; write annotated copies and YOLO labels",
     "weights=FILE.safetensors source=IMAGE|VIDEO|FOLDER|LIST.txt|PATTERN [conf=0.25] [iou=0.7] [imgsz=from "
     "weights] [max_det=300]\n"
     "        [device=cpu|0] [agnostic_nms=false] [classes=all] [save_txt=true] [save_conf=false]\n"
     "        [project=runs/detect] [name=predict] [end2end=true] [save=true] [vid_stride=1]\n"
     "        [augment=false] [save_crop=false] [line_width=auto] [show_labels=true] [show_conf=true]\n"
     "        [--json]\n\n"
     "Writes each image with its boxes drawn to a new run folder and, with save_txt, a YOLO-format "
     "label\n"
     "file labels/<stem>.txt per image (class cx cy w h, normalised: usable as training labels; save_conf\n"
     "adds the confidence as a sixth column). classes=0,2 keeps only those class ids (Ultralytics'\n"
     "rule: an anchor whose best class is another one is dropped before NMS). weights= (or model=,\n"
     "Ultralytics' name for it) may also be an official name (yolo11n.pt, `ywb weights list`). An\n"
     "end-to-end model (YOLO26) predicts NMS-free from its one-to-one head; end2end=false takes its\n"
     "one-to-many head with NMS.\n"
     "weights= may be an exported ONNX graph (best.onnx, ours or Ultralytics'), run by OpenCV DNN, or by\n"
     "ONNX Runtime where OpenCV cannot (an end-to-end graph: a process per image, so slow on videos); a\n"
     "fixed-size graph gets its own square size, as in Ultralytics. weights= may also be an exported\n"
     "TorchScript model (best.torchscript, ours or Ultralytics'; fixed-size, run by LibTorch's TorchScript\n"
     "interpreter on the CPU; a file of code that runs: use only files you trust).\n"
     "source= is an image, a folder (searched recursively), a .txt file listing images (one per line,\n"
     "relative to its folder) or a glob pattern such as 'images/*.jpg' (quote it for the shell), as a\n"
     "data.yaml split may be; listed images that do not exist are reported and skipped.\n"
     "Videos (Ultralytics' extensions: " +
         videoExtensionsText() +
         ";\n"
         "decoded by FFmpeg) are predicted frame by frame, also inside a folder, list or pattern: the\n"
         "annotated copy is <stem>.avi (Motion JPEG at the video's frame rate) and each frame's labels\n"
         "labels/<stem>_<frame>.txt "
         "(frames counted from 1, as in Ultralytics);\n--json gives each frame's entry its frame number.\n"
         "vid_stride=N predicts frames N, 2N, ... only (the video's own numbers name them). save=false "
         "writes\n"
         "no annotated images or videos (labels still follow save_txt).\n"
         "save_crop=true cuts each detection out of the original image into crops/<class>/<stem>.jpg (the "
         "box\n"
         "grown to 1.02x + 10 px, as Ultralytics; further crops of a class from one image: <stem>2.jpg, "
         "...).\n"
         "line_width=N (pixels), show_labels=false and show_conf=false change how the boxes are drawn.\n" +
         augmentHelp(),
     [](const Args& a) { return runDetect(a, false); }}};

const RegisterVerb reg_track{
    {"track", "follow objects through videos (BoT-SORT, ByteTrack): predictions with a track id per object",
     "weights=FILE source=VIDEO|FOLDER|... [tracker=botsort.yaml] [persist=false] [conf=0.1] and "
     "predict's other arguments\n\n"
     "Ultralytics' track mode: each video's frames are predicted as `ywb predict` does and go through a\n"
     "tracker started afresh for that video; what is drawn, listed and saved are its confirmed\n"
     "tracks, each box labelled id:N (the object's number in that video, from 1). High-score detections\n"
     "(track_high_thresh 0.25) are matched to the objects by overlap with their predicted boxes, then the\n"
     "low-score ones (above track_low_thresh 0.1) keep tracked objects whose score dips; an object that\n"
     "is not seen is kept track_buffer=30 frames before its number is retired. conf defaults to 0.1 so\n"
     "that the low-score detections reach the tracker. BoT-SORT (botsort.yaml, the default, as in\n"
     "Ultralytics) also moves every predicted box with the camera's motion between frames, estimated from\n"
     "the frames (gmc_method: sparseOptFlow; orb, sift, ecc or none); bytetrack.yaml is ByteTrack alone.\n"
     "tracker= also names a YAML file with Ultralytics' keys (tracker_type, track_high_thresh,\n"
     "track_low_thresh, new_track_thresh, track_buffer, match_thresh, fuse_score, gmc_method, and\n"
     "BoT-SORT's ReID: with_reid, proximity_thresh 0.5, appearance_thresh 0.8, model: auto). With\n"
     "with_reid: True each object's appearance, the detector's own features where it was found, is\n"
     "compared too: a pair of boxes that overlap (IoU at least 1 - proximity_thresh) and look alike\n"
     "(halved cosine distance at most appearance_thresh) matches at the lower of the two costs. The\n"
     "weights are needed for it (not an exported model). Label files gain the track id as their last\n"
     "column, --json each detection's \"track_id\". The tracker is named before the results (\"Tracked\n"
     "with BoT-SORT (gmc_method sparseOptFlow, ReID)\"; --json \"tracker\"). The run folder is\n"
     "runs/detect/track.\n"
     "persist=true (Ultralytics' persist) keeps one tracker for the whole source: a folder of a video's\n"
     "frames saved as images (a MOT-style sequence) is tracked as one video, in file-name order, ids\n"
     "continuing from file to file; without it every image is a video of its own.\n",
     [](const Args& a) { return runDetect(a, true); }}};

}  // namespace
}  // namespace ywb::cli
