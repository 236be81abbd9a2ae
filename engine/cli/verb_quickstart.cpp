// `ywb quickstart`: the first run a new user sees (installer/quickstart.sh without a display). Generates the
// shapes dataset, trains with the quick-start settings (ywb::quickStart, shared with the GUI and the
// learning proof), prints the per-class table, predicts on a few validation images and says what to do next.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/class_counts.h"
#include "cli/train_progress.h"
#include "cli/verb_registry.h"
#include "ywb/dataset_listing.h"
#include "ywb/error.h"
#include "ywb/inference.h"
#include "ywb/quick_start.h"
#include "ywb/trainer.h"

namespace fs = std::filesystem;

namespace ywb::cli {
namespace {

// The first `n` images of the validation split, in the order the engine lists them.
std::vector<std::string> firstValImages(const std::string& data_yaml, int n) {
  const DatasetListing listing = listDataset(data_yaml);
  std::vector<std::string> out;
  for (const SplitListing& s : listing.splits) {
    if (s.split != "val") continue;
    for (const ListedImage& img : s.images) {
      if (int(out.size()) == n) break;
      if (img.status != ImageStatus::Problem) out.push_back(img.image);
    }
  }
  return out;
}

// How long the training will take on 2 CPU cores: the quick start's measured minutes, in proportion to the
// epochs asked for; nothing when the model, image size, batch or device differ (not measured).
std::string durationHint(const QuickStart& q) {
  const TrainArgs& measured = quickStart().train;
  const TrainArgs& t = q.train;
  if (t.model != measured.model || t.imgsz != measured.imgsz || t.batch != measured.batch ||
      t.device != measured.device)
    return "";
  const double share = double(t.epochs) / double(measured.epochs);
  const double lo = q.cpu_minutes_avx512 * share, hi = q.cpu_minutes_avx2 * share;
  char hint[96];
  if (hi < 2)
    std::snprintf(hint, sizeof hint, " (2 CPU cores: about %.0f-%.0f s)", lo * 60, hi * 60);
  else
    std::snprintf(hint, sizeof hint, " (2 CPU cores: about %.2g-%.2g minutes)", lo, hi);
  return hint;
}

int runQuickstart(const Args& a) {
  QuickStart q = quickStart(a.str("dataset", "datasets/shapes-quick"));
  for (const auto& [key, value] : a.values) {
    if (key == "dataset" || key == "data") continue;
    if (!q.train.set(key, value)) {
      std::vector<std::string> known = {"dataset"};
      for (const auto& s : trainArgSpecs()) known.push_back(s.name);
      a.requireKnown(known);
    }
  }
  q.train.validate();
  if (!fs::exists(q.train.data)) {
    std::printf("== Generating the shapes dataset in %s (%d train, %d val images)\n", q.dataset.out.c_str(),
                q.dataset.train, q.dataset.val);
    std::fflush(stdout);
    synthesizeDataset(q.dataset);
  } else {
    std::printf("== Using the shapes dataset in %s\n", q.dataset.out.c_str());
  }
  std::printf("== Training %s on it: %d epochs at imgsz %d, device %s%s\n", q.train.model.c_str(),
              q.train.epochs, q.train.imgsz, q.train.device.empty() ? "auto" : q.train.device.c_str(),
              durationHint(q).c_str());
  std::fflush(stdout);
  TrainProgress progress(false);
  Trainer trainer(q.train);
  trainer.setObserver(&progress);
  const TrainSummary s = trainer.run();
  std::fflush(stdout);

  const std::string weights = s.best.empty() ? s.last : s.best;
  PredictOptions po;
  po.weights = weights;
  po.device = q.train.device;
  po.out_dir = newRunDir(q.train.project, q.train.name + "-predict");
  const std::vector<std::string> images = firstValImages(q.train.data, q.predict_images);
  std::printf("\n== Predicting on %zu validation images with %s\n", images.size(), weights.c_str());
  for (const std::string& img : images) {
    po.source = img;
    const PredictReport r = predictImages(po);
    for (const auto& d : r.images) {
      // what was found per class, as `ywb predict` says it, then the best few with their scores
      std::printf("  %s: %s", fs::path(d.path).filename().string().c_str(),
                  classCounts(d.boxes, r.names).c_str());
      for (size_t i = 0; i < std::min<size_t>(d.boxes.size(), 4); ++i)
        std::printf("%s%s %.2f", i ? ", " : " (", r.names[size_t(d.boxes[i].cls)].c_str(), d.boxes[i].score);
      std::printf("%s\n", d.boxes.empty() ? "" : d.boxes.size() > 4 ? ", ...)" : ")");
    }
  }
  std::printf("Annotated images in %s\n", po.out_dir.c_str());

  std::printf("\nWhat next:\n");
  if (q.train.plots)
    std::printf(
        "  look at %s/results.png and confusion_matrix.png   # the run's curves, the best epoch's mistakes\n",
        s.run_dir.c_str());
  std::printf("  yolo-workbench %s   # open the run in the GUI: charts, predictions, feature maps\n",
              s.run_dir.c_str());
  std::printf(
      "  ywb train data=path/to/your/data.yaml model=yolov8n.yaml epochs=100   # train on your data\n");
  std::printf("  ywb export weights=%s format=onnx,torchscript   # export for deployment\n", weights.c_str());
  std::printf("  ywb benchmark weights=%s data=%s   # what each exported format scores and costs\n",
              weights.c_str(), q.train.data.c_str());
  return s.stopped ? 130 : 0;
}

const RegisterVerb reg{
    {"quickstart", "first run: train a small detector on the shapes dataset, predict, show what is next",
     "[dataset=datasets/shapes-quick] [any training argument, e.g. epochs=80 device=0 "
     "project=runs/detect]\n\n"
     "Generates the shapes dataset in the dataset= folder when its data.yaml is missing, trains a YOLOv8n\n"
     "from scratch with the quick-start settings (imgsz 160, 80 epochs: COCO-exact mAP50 above 0.5 in\n"
     "about 4 minutes on 2 AVX-512 CPU cores, 10 on AVX2-only ones), prints the per-class table of the\n"
     "best epoch, runs prediction on a few validation images and names the folder of annotated images.\n"
     "The GUI's --quickstart uses the same settings.",
     runQuickstart}};

}  // namespace
}  // namespace ywb::cli
