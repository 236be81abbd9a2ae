#include "data/image_io.h"

#include <turbojpeg.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <vector>

#ifdef YW_HAVE_OPENCV_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include "core/atomic_file.h"
#include "core/error.h"

namespace ywb {
namespace {

struct TjDeleter {
  void operator()(void* h) const {
    if (h) tjDestroy(static_cast<tjhandle>(h));
  }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;

// One decompressor per thread: creating one costs more than decoding a small scaled image.
tjhandle threadDecompressor() {
  thread_local TjHandle h(tjInitDecompress());
  if (!h) fail("libjpeg-turbo: cannot create a decompressor");
  return h.get();
}

bool isJpeg(const std::string& b) {
  return b.size() >= 3 && uint8_t(b[0]) == 0xFF && uint8_t(b[1]) == 0xD8 && uint8_t(b[2]) == 0xFF;
}

// A JPEG whose last bytes are not the end-of-image marker was cut short (a partial download or copy).
bool jpegHasEnd(const std::string& b) {
  size_t n = b.size();
  while (n > 2 && b[n - 1] == '\0') --n;  // some writers pad with zeros
  return n >= 4 && uint8_t(b[n - 2]) == 0xFF && uint8_t(b[n - 1]) == 0xD9;
}

uint32_t rd16(const uint8_t* p, bool le) {
  return le ? p[0] | (p[1] << 8) : (p[0] << 8) | p[1];
}
uint32_t rd32(const uint8_t* p, bool le) {
  return le ? p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24)
            : (uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

int orientationFromTiff(const uint8_t* t, size_t n) {
  if (n < 8) return 1;
  const bool le = t[0] == 'I' && t[1] == 'I';
  if (!le && !(t[0] == 'M' && t[1] == 'M')) return 1;
  // size_t, not uint32_t: an offset near 2^32 plus 2 wrapped to a small number and passed the check.
  const size_t ifd = rd32(t + 4, le);
  if (ifd + 2 > n) return 1;
  const uint32_t count = rd16(t + ifd, le);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = ifd + 2 + size_t(i) * 12;
    if (e + 12 > n) return 1;
    if (rd16(t + e, le) == 0x0112) {
      const int v = int(rd16(t + e + 8, le));
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}

// Adobe CMYK (how Photoshop and most CMYK JPEG writers store it) holds inverted ink values: 255 = no ink.
// Converted as OpenCV's imread does (each channel times K, in its integer form), so a CMYK JPEG gives the
// same pixels Ultralytics' loader gets from cv2.imread.
void cmykToBgr(const cv::Mat& cmyk, cv::Mat& bgr) {
  bgr.create(cmyk.rows, cmyk.cols, CV_8UC3);
  for (int y = 0; y < cmyk.rows; ++y) {
    const uint8_t* s = cmyk.ptr<uint8_t>(y);
    uint8_t* d = bgr.ptr<uint8_t>(y);
    for (int x = 0; x < cmyk.cols; ++x, s += 4, d += 3) {
      const int k = s[3];
      d[0] = uint8_t(k - (((255 - s[2]) * k) >> 8));  // blue from yellow
      d[1] = uint8_t(k - (((255 - s[1]) * k) >> 8));  // green from magenta
      d[2] = uint8_t(k - (((255 - s[0]) * k) >> 8));  // red from cyan
    }
  }
}

// Pillow refuses images above twice its MAX_IMAGE_PIXELS (89,478,485) as decompression bombs, so
// Ultralytics' scan (which opens every image with Pillow) marks them corrupt; the same limit here keeps a
// hostile header (a few bytes claiming 65,000 x 65,000) from allocating gigabytes.
constexpr int64_t kMaxImagePixels = 2 * 89478485LL;

void checkPixels(int64_t w, int64_t h, const std::string& what) {
  // Each side first, so the product cannot overflow (a PNG header may claim two sides near 2^32).
  if (w > kMaxImagePixels || h > kMaxImagePixels || w * h > kMaxImagePixels) {
    fail(what, ": image is ", w, " x ", h, " pixels, more than the ", kMaxImagePixels,
         " a dataset image may have (Pillow's decompression-bomb limit); downscale it");
  }
}

// Width and height from a PNG or BMP header (0 x 0 for other formats), checked before OpenCV allocates.
void headerSize(const std::string& b, int64_t* w, int64_t* h) {
  const auto* p = reinterpret_cast<const uint8_t*>(b.data());
  *w = *h = 0;
  if (b.size() >= 24 && std::memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0 && std::memcmp(p + 12, "IHDR", 4) == 0) {
    *w = rd32(p + 16, false);
    *h = rd32(p + 20, false);
  } else if (b.size() >= 26 && p[0] == 'B' && p[1] == 'M' && rd32(p + 14, true) >= 40) {
    *w = int32_t(rd32(p + 18, true));
    *h = int32_t(rd32(p + 22, true));
    *w = *w < 0 ? -*w : *w;
    *h = *h < 0 ? -*h : *h;  // negative height = top-down rows
  }
}

// Decodes to BGR; `colorspace` is tjDecompressHeader3's (a CMYK or YCCK JPEG cannot be decoded to BGR by
// libjpeg-turbo directly, so it is decoded as CMYK and converted).
void decodeJpegInto(tjhandle h, const std::string& bytes, cv::Mat& out, int w, int hgt, int flags,
                    const std::string& what, int colorspace) {
  const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
  cv::Mat raw(hgt, w, cmyk ? CV_8UC4 : CV_8UC3);
  if (tjDecompress2(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), raw.data, w, 0,
                    hgt, cmyk ? TJPF_CMYK : TJPF_BGR, flags) != 0) {
    // Warnings (e.g. premature end of data) mean a truncated or corrupt file: reject, never half-use.
    fail(what, ": corrupt JPEG data (", tjGetErrorStr2(h), ")");
  }
  if (cmyk)
    cmykToBgr(raw, out);
  else
    out = raw;
}

cv::Mat decodeOther(const std::string& bytes, const std::string& what) {
  int64_t hw = 0, hh = 0;
  headerSize(bytes, &hw, &hh);
  checkPixels(hw, hh, what);
#ifdef YW_HAVE_OPENCV_IMGCODECS
  const cv::Mat buf(1, int(bytes.size()), CV_8UC1, const_cast<char*>(bytes.data()));
  cv::Mat img;
  try {
    img = cv::imdecode(buf, cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    fail(what, ": unreadable image (", e.what(), ")");
  }
  if (img.empty()) fail(what, ": unreadable or unsupported image format");
  return img;
#else
  (void)bytes;
  fail(what, ": not a JPEG, and this build has no OpenCV image codecs for other formats; convert it to JPEG");
#endif
}

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
  tjhandle h = threadDecompressor();
  int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (tjDecompressHeader3(h, data, bytes.size(), &w, &hgt, &subsamp, &colorspace) != 0) {
    fail(what, ": not a readable JPEG (", tjGetErrorStr2(h), ")");
  }
  if (w <= 0 || hgt <= 0) fail(what, ": JPEG has zero size");
  checkPixels(w, hgt, what);
  cv::Mat out;
  decodeJpegInto(h, bytes, out, w, hgt, TJFLAG_ACCURATEDCT, what, colorspace);
  return out;
}

int jpegExifOrientation(const std::string& bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 2;
  while (i + 4 <= n && p[i] == 0xFF) {
    const uint8_t marker = p[i + 1];
    if (marker == 0xDA || marker == 0xD9) break;  // start of scan: no more metadata
    const size_t len = rd16(p + i + 2, false);
    if (len < 2 || i + 2 + len > n) break;
    if (marker == 0xE1 && len >= 8 && std::memcmp(p + i + 4, "Exif\0\0", 6) == 0) {
      return orientationFromTiff(p + i + 10, len - 8);
    }
    i += 2 + len;
  }
  return 1;
}

cv::Mat applyExifOrientation(const cv::Mat& img, int orientation) {
  cv::Mat out;
  switch (orientation) {
    case 2:
      cv::flip(img, out, 1);
      return out;
    case 3:
      cv::rotate(img, out, cv::ROTATE_180);
      return out;
    case 4:
      cv::flip(img, out, 0);
      return out;
    case 5:
      cv::transpose(img, out);
      return out;
    case 6:
      cv::rotate(img, out, cv::ROTATE_90_CLOCKWISE);
      return out;
    case 7:
      cv::transpose(img, out);
      cv::flip(out, out, -1);
      return out;
    case 8:
      cv::rotate(img, out, cv::ROTATE_90_COUNTERCLOCKWISE);
      return out;
    default:
      return img;
  }
}

ImageProbe probeImage(const std::string& path) {
  ImageProbe r;
  try {
    const std::string bytes = readFile(path);
    if (bytes.empty()) {
      r.reason = "empty file (0 bytes)";
      return r;
    }
    if (isJpeg(bytes)) {
      tjhandle h = threadDecompressor();
      int w = 0, hgt = 0, ss = 0, cs = 0;
      if (tjDecompressHeader3(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), &w, &hgt,
                              &ss, &cs) != 0) {
        r.reason = std::string("corrupt JPEG header (") + tjGetErrorStr2(h) + ")";
        return r;
      }
      if (w <= 0 || hgt <= 0) {
        r.reason = "image has zero size";
        return r;
      }
      checkPixels(w, hgt, "image");
      if (!jpegHasEnd(bytes)) {
        r.reason = "truncated JPEG: the file ends without an end-of-image marker (" +
                   std::to_string(bytes.size()) + " bytes); re-export or re-download it";
        return r;
      }
      // Decoding at 1/8 scale still entropy-decodes every block, so corrupt data is found, cheaply.
      cv::Mat small;
      decodeJpegInto(h, bytes, small, TJSCALED(w, (tjscalingfactor{1, 8})),
                     TJSCALED(hgt, (tjscalingfactor{1, 8})), TJFLAG_FASTDCT, "image", cs);
      const int o = jpegExifOrientation(bytes);
      r.width = o >= 5 ? hgt : w;
      r.height = o >= 5 ? w : hgt;
    } else {
      const cv::Mat img = decodeOther(bytes, "image");
      if (img.cols <= 0 || img.rows <= 0) {
        r.reason = "image has zero size";
        return r;
      }
      r.width = img.cols;
      r.height = img.rows;
    }
    if (r.width < 2 || r.height < 2) {
      r.reason = "image is smaller than 2x2 pixels";
      return r;
    }
    r.ok = true;
  } catch (const std::exception& e) {
    std::string why = e.what();
    // Drop the "image: " prefix used above; the scan report names the file itself.
    if (why.rfind("image: ", 0) == 0) why = why.substr(7);
    r.reason = why;
  }
  return r;
}

cv::Size resizedShape(int w, int h, int max_side) {
  const double r = double(max_side) / std::max(w, h);
  if (r == 1.0) return {w, h};
  return {std::min(int(std::ceil(w * r)), max_side), std::min(int(std::ceil(h * r)), max_side)};
}

cv::Mat loadImage(const std::string& path, int max_side, bool fast, int* orig_w, int* orig_h) {
  const std::string bytes = readFile(path);
  if (bytes.empty()) fail(path, ": empty file");
  cv::Mat img;
  int w0 = 0, h0 = 0;
  if (isJpeg(bytes)) {
    tjhandle h = threadDecompressor();
    int w = 0, hgt = 0, ss = 0, cs = 0;
    if (tjDecompressHeader3(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), &w, &hgt,
                            &ss, &cs) != 0 ||
        w <= 0 || hgt <= 0) {
      fail(path, ": not a readable JPEG (", tjGetErrorStr2(h), ")");
    }
    checkPixels(w, hgt, path);
    // Pick the smallest DCT scale M/8 that still gives at least the target size (only when >= 2x smaller).
    tjscalingfactor sf{1, 1};
    if (fast && max_side > 0 && 2 * max_side <= std::max(w, hgt)) {
      for (int m = 1; m <= 8; ++m) {
        if (TJSCALED(std::max(w, hgt), (tjscalingfactor{m, 8})) >= max_side) {
          sf = {m, 8};
          break;
        }
      }
    }
    // OpenCV's imread settings (accurate integer DCT, fancy upsampling) always: the fast DCT saved no
    // measurable time with libjpeg-turbo's SIMD code, and the pixels then match Ultralytics' when unscaled.
    decodeJpegInto(h, bytes, img, TJSCALED(w, sf), TJSCALED(hgt, sf), TJFLAG_ACCURATEDCT, path, cs);
    const int o = jpegExifOrientation(bytes);
    if (o != 1) img = applyExifOrientation(img, o);
    w0 = o >= 5 ? hgt : w;
    h0 = o >= 5 ? w : hgt;
  } else {
    img = decodeOther(bytes, path);
    w0 = img.cols;
    h0 = img.rows;
  }
  if (orig_w) *orig_w = w0;
  if (orig_h) *orig_h = h0;
  if (max_side > 0) {
    const cv::Size target = resizedShape(w0, h0, max_side);
    if (target != img.size()) {
      cv::Mat resized;
      cv::resize(img, resized, target, 0, 0, cv::INTER_LINEAR);
      img = resized;
    }
  }
  return img;
}

bool canDecodeNonJpeg() {
#ifdef YW_HAVE_OPENCV_IMGCODECS
  return true;
#else
  return false;
#endif
}

std::string encodePng(const cv::Mat& bgr) {
#ifdef YW_HAVE_OPENCV_IMGCODECS
  std::vector<uchar> buf;
  if (!cv::imencode(".png", bgr, buf)) fail("PNG encoding failed");
  return std::string(buf.begin(), buf.end());
#else
  (void)bgr;
  fail("this build has no OpenCV image codecs; save as .jpg instead");
#endif
}

}  // namespace ywb
