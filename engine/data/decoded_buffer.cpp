#include "data/decoded_buffer.h"

#include <algorithm>

namespace ywb {

DecodedBuffer::DecodedBuffer(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

cv::Mat DecodedBuffer::find(size_t index) const {
  const std::lock_guard<std::mutex> lock(m_);
  const auto it = images_.find(index);
  if (it == images_.end()) {
    ++misses_;
    return {};
  }
  ++hits_;
  return it->second;  // shares the pixels (reference counted); readers never modify them
}

void DecodedBuffer::insert(size_t index, const cv::Mat& img) {
  cv::Mat evicted;  // released outside the lock
  const std::lock_guard<std::mutex> lock(m_);
  if (!images_.emplace(index, img).second) return;
  order_.push_back(index);
  if (order_.size() > capacity_) {
    const auto it = images_.find(order_.front());
    evicted = std::move(it->second);
    images_.erase(it);
    order_.pop_front();
  }
}

void DecodedBuffer::stats(int64_t* hits, int64_t* misses) const {
  const std::lock_guard<std::mutex> lock(m_);
  *hits = hits_;
  *misses = misses_;
}

}  // namespace ywb
