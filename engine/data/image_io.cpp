#include "data/image_io.h"

#include <turbojpeg.h>

#include <memory>

#include "core/error.h"

namespace ywb {
namespace {

struct TjDeleter {
  void operator()(void* h) const {
    if (h) tjDestroy(static_cast<tjhandle>(h));
  }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;

}  // namespace

std::string encodeJpeg(const cv::Mat& bgr, int quality) {
  if (bgr.empty() || bgr.type() != CV_8UC3) fail("encodeJpeg: expected a non-empty 8-bit BGR image");
  TjHandle h(tjInitCompress());
  if (!h) fail("libjpeg-turbo: cannot create a compressor");
  cv::Mat src = bgr.isContinuous() ? bgr : bgr.clone();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(h.get(), src.data, src.cols, 0, src.rows, TJPF_BGR, &buf, &size, TJSAMP_420, quality,
                  TJFLAG_ACCURATEDCT) != 0) {
    std::string why = tjGetErrorStr2(h.get());
    tjFree(buf);
    fail("JPEG encoding failed: ", why);
  }
  std::string out(reinterpret_cast<const char*>(buf), size);
  tjFree(buf);
  return out;
}

cv::Mat decodeJpeg(const std::string& bytes, const std::string& what) {
  TjHandle h(tjInitDecompress());
  if (!h) fail("libjpeg-turbo: cannot create a decompressor");
  int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (tjDecompressHeader3(h.get(), data, bytes.size(), &w, &hgt, &subsamp, &colorspace) != 0) {
    fail(what, ": not a readable JPEG (", tjGetErrorStr2(h.get()), ")");
  }
  if (w <= 0 || hgt <= 0) fail(what, ": JPEG has zero size");
  cv::Mat out(hgt, w, CV_8UC3);
  if (tjDecompress2(h.get(), data, bytes.size(), out.data, w, 0, hgt, TJPF_BGR, TJFLAG_ACCURATEDCT) != 0) {
    // Warnings (e.g. premature end of data) mean a truncated or corrupt file: reject, never half-use.
    fail(what, ": corrupt or truncated JPEG (", tjGetErrorStr2(h.get()), ")");
  }
  return out;
}

}  // namespace ywb
