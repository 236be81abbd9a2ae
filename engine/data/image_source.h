// Source of resized training images (longest side = imgsz), decoded on demand (optionally reusing a bounded
// buffer of recent decodes) or from a RAM cache.
// Thread rules: get()/shape() are safe from many threads once construction and enableRamCache() are done;
// returned images may share memory with the cache and must not be modified.
#pragma once
#include <memory>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "data/decoded_buffer.h"
#include "data/scanned_split.h"

namespace ywb {

class ImageSource {
 public:
  /// `fast_decode`: loadImage()'s `fast` (DCT scaling of large JPEGs); false decodes exactly as OpenCV's
  /// imread.
  ImageSource(std::shared_ptr<const ScannedSplit> split, int imgsz, bool fast_decode = true);

  /// Decodes every image once into RAM with `threads` threads when it fits (needed bytes x 1.5 below the
  /// available memory, or below `available_bytes` when non-zero). Returns "" when cached, else why not.
  std::string enableRamCache(int threads, size_t available_bytes = 0);

  /// Keeps up to `capacity` recently decoded images (data/decoded_buffer.h) for get() to reuse; call before
  /// any get() from worker threads. Ignored when the RAM cache is on.
  void enableDecodedBuffer(size_t capacity);
  /// The decoded-image buffer, or null.
  const DecodedBuffer* decodedBuffer() const { return buffer_.get(); }

  /// The image resized to the loader size (BGR). Read-only. Throws ywb::Error when it cannot be decoded.
  /// `fresh` skips the decoded-image buffer's copy (the result is still buffered for others).
  cv::Mat get(size_t index, bool fresh = false) const;
  /// The size get(index) returns, known from the scan without decoding.
  cv::Size shape(size_t index) const;
  /// Bytes the RAM cache needs (3 bytes per pixel of every resized image).
  size_t cacheBytes() const;

  size_t size() const { return split_->images.size(); }
  int imgsz() const { return imgsz_; }
  bool cached() const { return !cache_.empty(); }
  const ScannedSplit& split() const { return *split_; }

 private:
  std::shared_ptr<const ScannedSplit> split_;
  int imgsz_;
  bool fast_decode_;
  std::vector<cv::Mat> cache_;
  std::unique_ptr<DecodedBuffer> buffer_;
};

/// MemAvailable from /proc/meminfo in bytes (0 when unknown).
size_t availableMemoryBytes();

}  // namespace ywb
