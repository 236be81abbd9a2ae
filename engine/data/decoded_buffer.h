// A bounded buffer of recently decoded training images, so Mosaic's partners (drawn from the images loaded
// most recently, data/recent_images.h) are served from memory instead of being decoded again. Each image is
// then decoded about once per epoch however many mosaics it appears in; memory stays bounded by `capacity`
// images (the oldest leaves first), so a dataset of any size works. The pixels are those of a fresh decode.
// Thread rules: find()/insert()/stats() are safe from many threads; images handed out are read-only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <opencv2/core.hpp>
#include <unordered_map>

namespace ywb {

class DecodedBuffer {
 public:
  /// Keeps at most `capacity` images (at least 1).
  explicit DecodedBuffer(size_t capacity);

  /// The buffered image of `index`, or an empty Mat.
  cv::Mat find(size_t index) const;
  /// Buffers `img` under `index` (no-op when present); evicts the oldest beyond the capacity.
  void insert(size_t index, const cv::Mat& img);

  size_t capacity() const { return capacity_; }
  /// Lookups served from memory and lookups that had to decode, since construction.
  void stats(int64_t* hits, int64_t* misses) const;

 private:
  size_t capacity_;
  mutable std::mutex m_;  // guards everything below
  std::unordered_map<size_t, cv::Mat> images_;
  std::deque<size_t> order_;  // insertion order, oldest first
  mutable int64_t hits_ = 0, misses_ = 0;
};

}  // namespace ywb
