#include "data/video_io.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#ifdef YW_HAVE_OPENCV_VIDEOIO
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>
#endif

#include "core/error.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// Ultralytics' video formats (its VID_FORMATS), in the order messages list them.
constexpr std::array<const char*, 12> kVideoExtensions = {"asf", "avi",  "gif", "m4v", "mkv", "mov",
                                                          "mp4", "mpeg", "mpg", "ts",  "wmv", "webm"};

[[noreturn]] void noVideoSupport(const std::string& path) {
  fail("cannot read the video '", path,
       "': this build has no video support (OpenCV's videoio module with FFmpeg; Debian's "
       "libopencv-videoio-dev)");
}

}  // namespace

bool isVideoFile(const std::string& path) {
  const std::string ext = asciiLower(fs::path(path).extension().string());
  return !ext.empty() &&
         std::find(kVideoExtensions.begin(), kVideoExtensions.end(), ext.substr(1)) != kVideoExtensions.end();
}

std::string videoExtensionsText() {
  std::string s;
  for (const char* e : kVideoExtensions) s += (s.empty() ? "" : ", ") + std::string(e);
  return s;
}

#ifdef YW_HAVE_OPENCV_VIDEOIO

struct VideoReader::Impl {
  cv::VideoCapture cap;
};
struct VideoWriter::Impl {
  cv::VideoWriter out;
};

bool videoSupported() {
  return cv::videoio_registry::hasBackend(cv::CAP_FFMPEG);
}

VideoReader::VideoReader(const std::string& path) : path_(path), impl_(std::make_unique<Impl>()) {
  if (!videoSupported()) noVideoSupport(path);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail("cannot read the video '", path, "': no such file");
  // FFmpeg alone: OpenCV's other backends (GStreamer, image sequences) would each print their own failure.
  if (!impl_->cap.open(path, cv::CAP_FFMPEG))
    fail("cannot read the video '", path,
         "': FFmpeg cannot open it (not a video, a codec it lacks, or a truncated file without its index)");
  const double n = impl_->cap.get(cv::CAP_PROP_FRAME_COUNT);
  declared_ = std::isfinite(n) && n > 0 ? int(n) : 0;
  const double fps = impl_->cap.get(cv::CAP_PROP_FPS);
  fps_ = std::isfinite(fps) && fps > 0 ? fps : 30.0;
}

VideoReader::~VideoReader() = default;

bool VideoReader::read(cv::Mat& frame) {
  if (!impl_->cap.read(frame) || frame.empty()) return false;
  if (frame.type() != CV_8UC3) fail("video '", path_, "', frame ", read_ + 1, ": not 8-bit colour");
  ++read_;
  return true;
}

VideoWriter::VideoWriter(std::string path, double fps)
    : path_(std::move(path)), fps_(fps), impl_(std::make_unique<Impl>()) {
  const fs::path p(path_);
  part_ = (p.parent_path() / (p.stem().string() + ".part.avi")).string();
}

VideoWriter::~VideoWriter() {
  if (finished_) return;
  impl_->out.release();
  std::error_code ec;
  fs::remove(part_, ec);
}

void VideoWriter::write(const cv::Mat& frame) {
  if (written_ == 0) {
    size_ = frame.size();
    if (!impl_->out.open(part_, cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps_,
                         size_))
      fail("cannot create the video '", part_, "' (", size_.width, "x", size_.height, ")");
  }
  if (frame.size() != size_ || frame.type() != CV_8UC3)
    fail("video '", path_, "', frame ", written_ + 1, ": ", frame.cols, "x", frame.rows,
         " differs from the first frame's ", size_.width, "x", size_.height);
  impl_->out.write(frame);
  ++written_;
}

int VideoWriter::finish() {
  impl_->out.release();
  if (written_ == 0) return 0;
  // The writer reports no I/O errors; its index, written last, says how many frames reached the disk.
  cv::VideoCapture back(part_, cv::CAP_OPENCV_MJPEG);
  const double n = back.isOpened() ? back.get(cv::CAP_PROP_FRAME_COUNT) : 0;
  back.release();
  if (!(n == written_))
    fail("the annotated video '", part_, "' holds ", int(n), " of the ", written_,
         " frames written (is the disk full?); it was removed");
  std::error_code ec;
  fs::rename(part_, path_, ec);
  if (ec) fail("cannot rename '", part_, "' to '", path_, "': ", ec.message());
  finished_ = true;
  return written_;
}

#else  // no videoio in this build

struct VideoReader::Impl {};
struct VideoWriter::Impl {};

bool videoSupported() {
  return false;
}
VideoReader::VideoReader(const std::string& path) : path_(path) {
  noVideoSupport(path);
}
VideoReader::~VideoReader() = default;
bool VideoReader::read(cv::Mat&) {
  return false;
}
VideoWriter::VideoWriter(std::string path, double fps) : path_(std::move(path)), fps_(fps) {}
VideoWriter::~VideoWriter() = default;
void VideoWriter::write(const cv::Mat&) {
  noVideoSupport(path_);
}
int VideoWriter::finish() {
  return 0;
}

#endif

}  // namespace ywb
