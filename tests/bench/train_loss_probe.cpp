// Not a test: the training-mode loss (BatchNorm on batch statistics, no optimizer step) of fixed weights over
// one epoch of the trainer's augmented batches, averaged over seeds. It compares what two models make of the
// same training samples, or a model with the training loss its trainer logged (docs/PARITY.md, session 10).
//   train_loss_probe WEIGHTS DATA.yaml EPOCH(0-based) MOSAIC(0|1) [SEEDS=10] [IMGSZ=128] [BATCH=16]
//   [key=value...]
// key=value: augmentation arguments under their `ywb train` names (hsv_v=0, scale=0.9, ...).
// MOSAIC=0 builds the samples as after close_mosaic (letterbox, perspective, HSV, flips). WEIGHTS may be a
// model YAML (yolov8n.yaml): the model is then built as a one-process `ywb train seed=S` starts it
// (at::manual_seed(S), Ultralytics' initialisation; `seed=` picks S, default 0), with the data's class count.
// SEEDS counts the sample streams (loader seeds 0..SEEDS-1), not initialisations.
#include <ATen/ATen.h>
#include <torch/types.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "data/dataset_scanner.h"
#include "data/loader.h"
#include "loss/detection_loss.h"
#include "model/detection_model.h"
#include "train/model_loader.h"
#include "ywb/augment.h"
#include "ywb/dataset.h"
#include "ywb/train_args.h"

int main(int argc, char** argv) {
  try {
    std::vector<std::string> pos;
    ywb::TrainArgs args;
    args.imgsz = 128;  // the shapes/ runs of docs/PARITY.md
    args.batch = 16;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const size_t eq = a.find('=');
      if (eq == std::string::npos) {
        pos.push_back(a);
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
    const loss::DetectionLoss criterion(lm.model);
    LoaderOptions lo;
    lo.imgsz = args.imgsz, lo.batch = args.batch, lo.hyp = augmentParamsOf(args);
    lo.workers = 2, lo.augment = true, lo.shuffle = true;
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
      while (loader.next(b)) {
        const at::Tensor x = b.images.to(at::kFloat).div_(255.0);
        const loss::LossResult r = criterion(lm.model->forward(x), b.grouped);
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
