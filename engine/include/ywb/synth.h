// Generator of the embedded default dataset: coloured shapes on textured backgrounds, in Ultralytics
// layout. Thread rules: synthesizeDataset() is reentrant and uses its own worker threads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ywb {

struct SynthOptions {
  std::string out = "datasets/shapes";  ///< output folder; data.yaml is written there last
  int train = 256;                      ///< number of training images
  int val = 64;                         ///< number of validation images
  int imgsz = 320;                      ///< longest image side in pixels (sides vary in [0.75, 1] x imgsz)
  uint64_t seed = 0;                    ///< same seed, same bytes
  int max_objects = 8;                  ///< objects per image in [1, max_objects]
  int workers = 0;                      ///< 0 = all available CPUs
};

struct SynthSplitReport {
  std::string name;
  int images = 0;
  int boxes = 0;
  std::vector<int> per_class;  ///< box count per class
};

struct SynthReport {
  std::string data_yaml;  ///< path of the written data.yaml
  std::vector<std::string> class_names;
  std::vector<SynthSplitReport> splits;  ///< train, val
  double seconds = 0;
};

/// The class names of the shapes dataset, index = class id.
std::vector<std::string> synthClassNames();

/// Generates the dataset. Throws ywb::Error on invalid options or unwritable output.
SynthReport synthesizeDataset(const SynthOptions& options);

}  // namespace ywb
