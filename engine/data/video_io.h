// Videos for prediction: which files are videos, reading their frames, and writing the annotated copy.
// Reading goes through OpenCV's FFmpeg backend (any container and codec Debian's FFmpeg decodes); writing
// uses OpenCV's built-in Motion-JPEG AVI writer, Ultralytics' choice on Linux (`<stem>.avi`, MJPG, the
// source's frame rate and size), which needs no encoder library. Both need OpenCV's videoio module; a build
// without it (a GPU server's private OpenCV) says so when a video is given. Thread rules: a reader or writer
// belongs to one thread.
#pragma once
#include <memory>
#include <opencv2/core.hpp>
#include <string>

namespace ywb {

/// True for the video extensions a source may name, as Ultralytics lists them (asf, avi, gif, m4v, mkv,
/// mov, mp4, mpeg, mpg, ts, wmv, webm; any case).
bool isVideoFile(const std::string& path);
// videoExtensionsText(), those extensions as messages list them, is declared in ywb/inference.h (the CLI's
// help lists them).
/// Whether this build reads and writes videos (OpenCV videoio with its FFmpeg backend).
bool videoSupported();

class VideoReader {
 public:
  /// Opens a video. Throws ywb::Error naming the path when it cannot be opened (no such file, not a video,
  /// a codec FFmpeg lacks, a truncated file whose index is missing) or when this build has no video support.
  explicit VideoReader(const std::string& path);
  ~VideoReader();
  VideoReader(const VideoReader&) = delete;
  VideoReader& operator=(const VideoReader&) = delete;

  /// The next frame as 8-bit BGR; false at the end (or where the rest no longer decodes).
  bool read(cv::Mat& frame);
  /// Passes over the next frame without decoding it; false at the end.
  bool skip();
  /// The frame count the container declares (an estimate for some formats; 0 when unknown).
  int declaredFrames() const { return declared_; }
  /// Frames per second (the container's; 30 when it declares none, as Ultralytics assumes).
  double fps() const { return fps_; }
  /// Frames read or skipped so far: the number of the frame read last (counted from 1).
  int framesRead() const { return read_; }

 private:
  struct Impl;
  std::string path_;
  std::unique_ptr<Impl> impl_;
  int declared_ = 0, read_ = 0;
  double fps_ = 30;
};

class VideoWriter {
 public:
  /// Starts `path` (an .avi): frames go to a temporary file beside it, renamed into place by finish().
  /// The size is the first frame's.
  VideoWriter(std::string path, double fps);
  /// Removes the temporary file when finish() was not reached (an error or a cancelled prediction).
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  /// Appends a frame (8-bit BGR, every frame the first one's size). Throws ywb::Error when the file cannot
  /// be created.
  void write(const cv::Mat& frame);
  /// Closes the file, checks that it holds every frame written (reading its index back: a full disk leaves
  /// fewer) and renames it into place. Throws ywb::Error naming the file otherwise. Returns the frame count.
  int finish();

 private:
  struct Impl;  // the OpenCV writer and its state
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ywb
