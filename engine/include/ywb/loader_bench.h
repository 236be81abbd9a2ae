// Throughput benchmark of the training data loader (`ywb bench loader`). Torch-free API.
// Thread rules: runLoaderBench() is reentrant and runs the loader's own worker threads.
#pragma once
#include <cstdint>
#include <string>

#include "ywb/augment.h"

namespace ywb {

struct LoaderBenchOptions {
  std::string data;  ///< data.yaml
  std::string split = "train";
  int imgsz = 640;
  int batch = 16;
  int workers = 2;             ///< loader threads (0 = load in the calling thread)
  int epochs = 2;              ///< epochs to time (the first one warms the page cache)
  bool cache_ram = false;      ///< decode once into RAM
  bool decoded_buffer = true;  ///< reuse recent decodes for Mosaic's partners (data/decoded_buffer.h)
  bool augment = true;
  AugmentParams hyp;
  uint64_t seed = 0;
};

struct LoaderBenchReport {
  int images = 0;  ///< samples timed (excluding the warm-up epoch)
  int batches = 0;
  double seconds = 0;  ///< wall time of the timed epochs
  double images_per_s = 0;
  double decode_ms = 0;         ///< per sample, thread CPU time spent decoding
  double augment_ms = 0;        ///< per sample: mosaic, affine, HSV, flips, letterbox
  double collate_ms = 0;        ///< per sample: HWC BGR to CHW RGB into the batch tensor
  double wait_ms = 0;           ///< per batch, time the consumer waited
  double cpu_ms = 0;            ///< process CPU time per image (all threads) during the timed epochs
  double buffer_hit_rate = -1;  ///< share of image lookups served by the decoded-image buffer (-1: none)
  double projected_images_per_s = 0;  ///< min(workers, CPUs) x 1000 / cpu_ms: throughput on idle cores
  double cache_fill_s = 0;            ///< time to fill the RAM cache (0 without)
  std::string cache_note;             ///< why the RAM cache was refused, when it was
  int workers = 0;
  int torch_threads = 0;
};

/// Builds a loader over the split and times `epochs` epochs after one warm-up epoch. Throws ywb::Error.
LoaderBenchReport runLoaderBench(const LoaderBenchOptions& options);

std::string loaderBenchText(const LoaderBenchOptions& options, const LoaderBenchReport& report);
std::string loaderBenchJson(const LoaderBenchOptions& options, const LoaderBenchReport& report);

}  // namespace ywb
