#include "data/video_io.h"

#include <cmath>
#include <filesystem>

#ifdef YW_HAVE_OPENCV_VIDEOIO
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>
#endif

#include "core/error.h"
#include "core/text.h"
#include "ywb/inference.h"

namespace fs = std::filesystem;

namespace ywb {
namespace {

// Ultralytics' video formats (its VID_FORMATS), in the order messages list them. constexpr: constant-
// initialised, so other files' static initialisers (predict's help text) may read it.
constexpr std::initializer_list<const char*> kVideoExtensions = {"asf", "avi",  "gif", "m4v", "mkv", "mov",
                                                                 "mp4", "mpeg", "mpg", "ts",  "wmv", "webm"};

[[noreturn]] void noVideoSupport(const std::string& path) {
  fail("cannot read the video '", path,
       "': this build has no video support (OpenCV's videoio module with FFmpeg; Debian's "
       "libopencv-videoio-dev)");
}

}  // namespace

bool isVideoFile(const std::string& path) {
  return hasExtension(path, kVideoExtensions);
}

std::string videoExtensionsText() {
  return commaList(kVideoExtensions);
}

#ifdef YW_HAVE_OPENCV_VIDEOIO

struct VideoReader::Impl {
  cv::VideoCapture cap;
};
struct VideoWriter::Impl {
  cv::VideoWriter out;
  std::string part;  // the file being written, renamed to the writer's path by finish()
  double fps = 30;
  cv::Size size;
  int written = 0;
  bool finished = false;
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

bool VideoReader::skip() {
  if (!impl_->cap.grab()) return false;
  ++read_;
  return true;
}

bool VideoReader::read(cv::Mat& frame) {
  if (!impl_->cap.read(frame) || frame.empty()) return false;
  if (frame.type() != CV_8UC3) fail("video '", path_, "', frame ", read_ + 1, ": not 8-bit colour");
  ++read_;
  return true;
}

VideoWriter::VideoWriter(std::string path, double fps)
    : path_(std::move(path)), impl_(std::make_unique<Impl>()) {
  const fs::path p(path_);
  impl_->part = (p.parent_path() / (p.stem().string() + ".part.avi")).string();
  impl_->fps = fps;
}

VideoWriter::~VideoWriter() {
  if (impl_->finished) return;
  impl_->out.release();
  std::error_code ec;
  fs::remove(impl_->part, ec);
}

void VideoWriter::write(const cv::Mat& frame) {
  Impl& w = *impl_;
  if (w.written == 0) {
    w.size = frame.size();
    if (!w.out.open(w.part, cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), w.fps, w.size))
      fail("cannot create the video '", w.part, "' (", w.size.width, "x", w.size.height, ")");
  }
  if (frame.size() != w.size || frame.type() != CV_8UC3)
    fail("video '", path_, "', frame ", w.written + 1, ": ", frame.cols, "x", frame.rows,
         " differs from the first frame's ", w.size.width, "x", w.size.height);
  w.out.write(frame);
  ++w.written;
}

int VideoWriter::finish() {
  Impl& w = *impl_;
  w.out.release();
  if (w.written == 0) return 0;
  // The writer reports no I/O errors; its index, written last, says how many frames reached the disk.
  cv::VideoCapture back(w.part, cv::CAP_OPENCV_MJPEG);
  const double n = back.isOpened() ? back.get(cv::CAP_PROP_FRAME_COUNT) : 0;
  back.release();
  if (!(n == w.written))
    fail("the annotated video '", w.part, "' holds ", int(n), " of the ", w.written,
         " frames written (is the disk full?); it was removed");
  std::error_code ec;
  fs::rename(w.part, path_, ec);
  if (ec) fail("cannot rename '", w.part, "' to '", path_, "': ", ec.message());
  w.finished = true;
  return w.written;
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
bool VideoReader::skip() {
  return false;
}
VideoWriter::VideoWriter(std::string path, double) : path_(std::move(path)) {}
VideoWriter::~VideoWriter() = default;
void VideoWriter::write(const cv::Mat&) {
  noVideoSupport(path_);
}
int VideoWriter::finish() {
  return 0;
}

#endif

}  // namespace ywb
