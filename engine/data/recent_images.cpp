#include "data/recent_images.h"

#include <algorithm>
#include <unordered_map>

#include "core/error.h"

namespace ywb {

size_t RecentImages::capacityFor(size_t images, int batch) {
  return std::min({images, size_t(std::max(batch, 1)) * 8, size_t(1000)});
}

RecentImages::RecentImages(size_t capacity) : keep_(std::max<size_t>(capacity, 2) - 1) {}

void RecentImages::plan(const std::vector<size_t>& previous, const std::vector<size_t>& order) {
  appended_.clear();
  end_.clear();
  appended_.reserve(previous.size() + order.size());
  end_.reserve(order.size());
  // Where each image last entered the buffer; it is still inside while that is among the last keep_ entries.
  std::unordered_map<size_t, size_t> entered;
  auto load = [&](size_t image) {
    const auto it = entered.find(image);
    if (it != entered.end() && it->second + keep_ >= appended_.size()) return;  // still buffered
    entered[image] = appended_.size();
    appended_.push_back(image);
  };
  for (size_t image : previous) load(image);
  for (size_t image : order) {
    load(image);
    end_.push_back(appended_.size());
  }
}

PartnerPool RecentImages::window(size_t pos) const {
  if (pos >= end_.size()) fail("RecentImages: position ", pos, " outside the planned ", end_.size());
  const size_t end = end_[pos];
  const size_t begin = end > keep_ ? end - keep_ : 0;
  return {appended_.data() + begin, end - begin};
}

}  // namespace ywb
