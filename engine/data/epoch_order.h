// Which images one epoch of a DataLoader visits, in which order, and (when Ultralytics' augmentation draws
// are replayed) what each position draws; plus the previous epoch's order that Mosaic's partner buffer starts
// from. Pure function of the loader's options and the epoch: the loader's threads never change it.
#pragma once
#include <cstddef>
#include <vector>

#include "data/loader.h"
#include "data/ultralytics_draws.h"

namespace ywb {

struct EpochOrder {
  std::vector<size_t> order;       ///< this rank's images, in visiting order
  std::vector<size_t> previous;    ///< the previous epoch's order (filled only when `partner_buffer`)
  std::vector<SampleDraws> draws;  ///< per position: Ultralytics' draws; empty: the engine's own stream
};

/// `n` images in the split; `reset_epoch`: the epoch whose start rebuilt the iterator (-1 none);
/// `partner_buffer`: augmented training with Mosaic's buffer of recent images; `multi_image`: Mosaic on;
/// `rect_order`: the aspect-sorted base order (rect mode).
EpochOrder epochOrder(const LoaderOptions& opt, size_t n, int epoch, int reset_epoch, bool partner_buffer,
                      bool multi_image, const std::vector<size_t>& rect_order);

}  // namespace ywb
