// Ultralytics' Mosaic does not draw its three partner images from the whole dataset: it draws them (with
// replacement) from a buffer of the images loaded most recently, the sample's own image included. The buffer
// holds up to min(images, 8 x batch, 1000) - 1 images; an image already in it is not added again, and the
// oldest one leaves when it is full. This class replays that buffer deterministically from the epoch's sample
// order (the previous epoch's order first, so an epoch starts with a full buffer as it does there), so the
// partners depend on (seed, epoch, position), never on which worker thread builds the sample. It models one
// buffer, as Ultralytics has with workers=0 (what it uses on CPU).
// Thread rules: plan() while no reader runs (DataLoader::startEpoch waits for idle workers); window() is
// const and safe from many threads.
#pragma once
#include <cstddef>
#include <vector>

namespace ywb {

/// The candidates Mosaic draws a partner from: `size` image indices starting at `data`. Empty = the whole
/// split.
struct PartnerPool {
  const size_t* data = nullptr;
  size_t size = 0;
  bool empty() const { return size == 0; }
};

class RecentImages {
 public:
  /// Ultralytics' buffer capacity for `images` images and a per-process batch of `batch`:
  /// min(images, 8 * batch, 1000).
  static size_t capacityFor(size_t images, int batch);

  /// `capacity` as capacityFor(); the buffer keeps at most max(capacity - 1, 1) images.
  explicit RecentImages(size_t capacity);

  /// Replays loading `previous` (the previous epoch's order, empty for the first epoch) then `order`.
  void plan(const std::vector<size_t>& previous, const std::vector<size_t>& order);

  /// The buffer right after the image at position `pos` of `order` was loaded (it is always in it).
  PartnerPool window(size_t pos) const;

 private:
  size_t keep_;
  std::vector<size_t> appended_;  // images in the order they entered the buffer
  std::vector<size_t> end_;       // per position of `order`: appended_.size() after loading it
};

}  // namespace ywb
