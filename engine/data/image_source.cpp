#include "data/image_source.h"

#include <atomic>
#include <fstream>
#include <opencv2/imgproc.hpp>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "data/image_io.h"

namespace ywb {

size_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  size_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

ImageSource::ImageSource(std::shared_ptr<const ScannedSplit> split, int imgsz, bool fast_decode)
    : split_(std::move(split)), imgsz_(imgsz), fast_decode_(fast_decode) {
  if (!split_) fail("ImageSource: no scanned split");
  if (imgsz_ < 32) fail("imgsz=", imgsz_, " is too small; use at least 32");
}

cv::Size ImageSource::shape(size_t index) const {
  const ImageRecord& r = split_->images.at(index);
  return resizedShape(r.width, r.height, imgsz_);
}

size_t ImageSource::cacheBytes() const {
  size_t total = 0;
  for (size_t i = 0; i < size(); ++i) total += size_t(shape(i).area()) * 3;
  return total;
}

void ImageSource::enableDecodedBuffer(size_t capacity) {
  buffer_ = std::make_unique<DecodedBuffer>(capacity);
}

cv::Mat ImageSource::get(size_t index, bool fresh) const {
  if (!cache_.empty()) return cache_[index];
  if (buffer_ && !fresh) {
    cv::Mat hit = buffer_->find(index);
    if (!hit.empty()) return hit;
  }
  const ImageRecord& r = split_->images.at(index);
  cv::Mat img = loadImage(r.image, imgsz_, fast_decode_);
  // A file replaced since the scan would break the geometry computed from the scanned size.
  const cv::Size want = shape(index);
  if (img.size() != want) {
    cv::Mat fixed;
    cv::resize(img, fixed, want, 0, 0, cv::INTER_LINEAR);
    img = fixed;
  }
  if (buffer_) buffer_->insert(index, img);
  return img;
}

std::string ImageSource::enableRamCache(int threads, size_t available_bytes) {
  const size_t need = cacheBytes();
  const size_t avail = available_bytes ? available_bytes : availableMemoryBytes();
  if (avail == 0 || double(need) * 1.5 > double(avail)) {
    std::ostringstream os;
    os << "RAM cache refused: it needs " << need / (1 << 20) << " MiB (x1.5 safety margin) but only "
       << avail / (1 << 20) << " MiB are available; training continues, decoding images every epoch";
    return os.str();
  }
  std::vector<cv::Mat> cache(size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < cache.size(); i = next++) {
      try {
        cache[i] = get(i);
      } catch (const std::exception&) {
        // A file broken since the scan: cache a grey image so every epoch sees the same thing.
        cache[i] = cv::Mat(shape(i), CV_8UC3, cv::Scalar::all(114));
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  cache_ = std::move(cache);
  return {};
}

}  // namespace ywb
