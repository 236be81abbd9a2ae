// The quick start: the one set of settings (dataset and training) that the first run uses everywhere —
// `ywb quickstart`, the GUI's --quickstart and the learning proof (tests/engine/test_learns.cpp). Measured
// on 2 idle cores: 80 epochs reach COCO-exact mAP50 0.75 in about 3.7 minutes; 0.5 is passed at epoch ~37.
// Torch-free. Thread rules: free functions without shared state.
#pragma once
#include <string>

#include "ywb/synth.h"
#include "ywb/train_args.h"

namespace ywb {

struct QuickStart {
  SynthOptions dataset;    ///< the shapes dataset to generate (dataset.out is its folder)
  TrainArgs train;         ///< training arguments; train.data is dataset.out + "/data.yaml"
  int predict_images = 4;  ///< validation images `ywb quickstart` runs prediction on
  /// Minutes the training takes on 2 idle CPU cores with these settings: AVX-512 cores (the figure above)
  /// and AVX2-only ones (README).
  double cpu_minutes_avx512 = 4, cpu_minutes_avx2 = 10;
};

/// The quick-start settings with the dataset in `dataset_folder` (default "datasets/shapes-quick": a folder
/// of its own, so an older datasets/shapes generated with other settings is never mistaken for it).
QuickStart quickStart(const std::string& dataset_folder = "datasets/shapes-quick");

}  // namespace ywb
