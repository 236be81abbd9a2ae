// Not a test: the training-mode loss (BatchNorm on batch statistics, no optimizer step) of fixed weights over
// one epoch of the trainer's augmented batches, averaged over seeds. It compares what two models make of the
// same training samples, or a model with the training loss its trainer logged (docs/PARITY.md, session 10).
//   train_loss_probe WEIGHTS DATA.yaml EPOCH(0-based) MOSAIC(0|1) [SEEDS=10] [IMGSZ=128] [BATCH=16]
//   [key=value...]
// key=value: augmentation arguments under their `ywb train` names (hsv_v=0, scale=0.9, ...).
// MOSAIC=0 builds the samples as after close_mosaic (letterbox, perspective, HSV, flips). WEIGHTS may be a
// model YAML (yolov8n.yaml): the model is then built as a one-process `ywb train seed=S` starts it
// (at::manual_seed(S), Ultralytics' initialisation; `seed=` picks S, default 0), with the data's class count.
// SEEDS counts the sample streams (loader seeds 0..SEEDS-1), not initialisations. `ultralytics_stream=N`
// replays Ultralytics' draws as `ywb train` does. `dump=DIR` also writes the epoch's samples of the first
// stream as DIR/eE_PPPP.png (BGR) and .txt (the image index, then `class cx cy w h`, normalised, as the loss
// gets them), the format of ultralytics_replay_samples.py (docs/PARITY.md, session 13).
#include <ATen/ATen.h>
#include <torch/types.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/dataset_scanner.h"
#include "data/loader.h"
#include "loss/model_loss.h"
#include "model/detection_model.h"
#include "train/model_loader.h"
#include "ywb/augment.h"
#include "ywb/dataset.h"
#include "ywb/train_args.h"

namespace {

// One sample of a batch as PNG (BGR) plus its image index and boxes in pixels.
void writeSample(const std::string& dir, int epoch, int position, const ywb::Batch& b, int64_t i) {
  char name[64];
  std::snprintf(name, sizeof name, "/e%d_%04d", epoch, position);
  const at::Tensor img = b.images[i].permute({1, 2, 0}).contiguous();
  const int h = int(img.size(0)), w = int(img.size(1));
  cv::Mat rgb(h, w, CV_8UC3, img.data_ptr<uint8_t>()), bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  if (!cv::imwrite(dir + name + ".png", bgr)) throw std::runtime_error("cannot write " + dir + name + ".png");
  FILE* f = std::fopen((dir + name + ".txt").c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + dir + name + ".txt");
  std::fprintf(f, "%d\n", b.meta[size_t(i)].index);
  const at::Tensor t = b.targets.to(at::kFloat).contiguous();  // the loss's targets, as collated
  const float* row = t.data_ptr<float>();
  for (int64_t k = 0; k < t.size(0); ++k, row += 6) {
    if (int64_t(row[0]) == i)
      std::fprintf(f, "%d %.9g %.9g %.9g %.9g\n", int(row[1]), row[2], row[3], row[4], row[5]);
  }
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> pos;
    std::string dump;
    ywb::TrainArgs args;
    args.imgsz = 128;  // the shapes/ runs of docs/PARITY.md
    args.batch = 16;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const size_t eq = a.find('=');
      if (eq == std::string::npos) {
        pos.push_back(a);
      } else if (a.substr(0, eq) == "dump") {
        dump = a.substr(eq + 1);
      } else if (!args.set(a.substr(0, eq), a.substr(eq + 1))) {
        std::fprintf(stderr, "train_loss_probe: unknown argument %s\n", a.c_str());
        return 2;
      }
    }
    if (pos.size() < 4) {
      std::fprintf(stderr,
                   "usage: train_loss_probe WEIGHTS DATA.yaml EPOCH MOSAIC(0|1) [SEEDS] [key=value...]\n");
      return 2;
    }
    using namespace ywb;
    const int epoch = std::stoi(pos[2]), seeds = pos.size() > 4 ? std::stoi(pos[4]) : 10;
    const bool mosaic = std::stoi(pos[3]) != 0;
    const std::string weights = pos[0];
    const bool from_yaml = weights.size() > 5 && weights.substr(weights.size() - 5) == ".yaml";
    const DataConfig cfg = loadDataConfig(pos[1]);
    auto split = std::make_shared<ScannedSplit>(scanSplit(cfg, "train"));
    LoadedModel lm;
    if (from_yaml) {
      at::manual_seed(uint64_t(args.seed));
      lm.model = model::buildModel(weights, int(cfg.names.size()));
    } else {
      lm = loadModelWeights(weights, at::kCPU);
    }
    lm.model->train();
    // The model's loss (YOLO26: its end-to-end loss, logging the one-to-one branch's items) under the rules
    // of the release its modules follow (8.3 weights: no small-box rule, as 8.3's trainer logged).
    const loss::ModelLoss criterion(*lm.model, {}, loss::smallBoxRuleOf(*lm.model));
    LoaderOptions lo;
    lo.imgsz = args.imgsz, lo.batch = args.batch, lo.hyp = augmentParamsOf(args);
    lo.workers = 2, lo.augment = true, lo.shuffle = true;
    lo.ultralytics_workers = args.ultralytics_stream;
    double sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0};
    for (int seed = 0; seed < seeds; ++seed) {
      lo.seed = uint64_t(seed);
      DataLoader loader(split, lo);
      if (!mosaic) loader.setMultiImageAugment(false), loader.setOrderResetEpoch(epoch);
      loader.startEpoch(epoch);
      torch::NoGradGuard no_grad;
      Batch b;
      double epoch_sum[3] = {0, 0, 0};
      int n = 0;
      int written = 0;
      while (loader.next(b)) {
        for (int64_t i = 0; seed == 0 && !dump.empty() && i < b.images.size(0); ++i, ++written) {
          writeSample(dump, epoch, written, b, i);
        }
        const at::Tensor x = b.images.to(at::kFloat).div_(255.0);
        // the logged items do not depend on the branch weights: first epoch's
        const loss::LossResult r = criterion(lm.model->forwardHeads(x), b.grouped, 0.8);
        for (int k = 0; k < 3; ++k) epoch_sum[k] += r.items[k].item<double>();
        ++n;
      }
      for (int k = 0; k < 3; ++k) {
        const double m = epoch_sum[k] / n;  // the epoch's mean, as trainers log it
        sum[k] += m, sq[k] += m * m;
      }
      std::printf("seed %d: box %.4f cls %.4f dfl %.4f\n", seed, epoch_sum[0] / n, epoch_sum[1] / n,
                  epoch_sum[2] / n);
    }
    const char* const kNames[3] = {"box", "cls", "dfl"};
    std::printf("mean of %d epochs (standard error):", seeds);
    for (int k = 0; k < 3; ++k) {
      const double m = sum[k] / seeds, var = seeds > 1 ? (sq[k] - seeds * m * m) / (seeds - 1) : 0;
      std::printf(" %s %.4f (%.4f)", kNames[k], m, std::sqrt(std::max(var, 0.0) / seeds));
    }
    std::printf("\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_loss_probe: %s\n", e.what());
    return 1;
  }
}
