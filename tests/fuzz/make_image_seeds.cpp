// Writes the seeds of fuzz_image: small images of every kind the loader meets (JPEG colour, grayscale,
// CMYK, progressive, EXIF-rotated, with a damaged EXIF offset, truncated; PNG 8/16-bit, gray, alpha; BMP)
// and a 32-px re-encoding of a real coco128 photo. Usage: make_image_seeds SHARED OUT (built by YW_FUZZ=ON).
#include <turbojpeg.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace {

void put(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string enc(const cv::Mat& m, const char* ext, std::vector<int> params = {}) {
  std::vector<uchar> b;
  cv::imencode(ext, m, b, params);
  return std::string(b.begin(), b.end());
}

std::string tj(const cv::Mat& m, int pf, int samp, int flags) {
  tjhandle h = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long n = 0;
  tjCompress2(h, m.data, m.cols, 0, m.rows, pf, &buf, &n, samp, 80, flags);
  std::string out(reinterpret_cast<char*>(buf), n);
  tjFree(buf);
  tjDestroy(h);
  return out;
}

// An EXIF APP1 segment (big-endian TIFF, one Orientation entry) after SOI; `ifd` = offset of the IFD.
std::string exif(const std::string& jpeg, int orientation, uint32_t ifd) {
  const unsigned char t[] = {'M',
                             'M',
                             0,
                             42,
                             uint8_t(ifd >> 24),
                             uint8_t(ifd >> 16),
                             uint8_t(ifd >> 8),
                             uint8_t(ifd),
                             0,
                             1,
                             0x01,
                             0x12,
                             0,
                             3,
                             0,
                             0,
                             0,
                             1,
                             0,
                             uint8_t(orientation),
                             0,
                             0,
                             0,
                             0,
                             0,
                             0};
  const size_t len = 2 + 6 + sizeof t;
  std::string seg = "\xFF\xE1";
  seg += char(len >> 8);
  seg += char(len & 0xFF);
  seg += std::string("Exif\0\0", 6) + std::string(reinterpret_cast<const char*>(t), sizeof t);
  return jpeg.substr(0, 2) + seg + jpeg.substr(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_image_seeds SHARED OUT\n");
    return 2;
  }
  const std::string out = argv[2];
  std::filesystem::create_directories(out);
  cv::Mat photo = cv::imread(std::string(argv[1]) + "/datasets/coco128/images/train2017/000000000009.jpg");
  cv::resize(photo, photo, cv::Size(32, 24), 0, 0, cv::INTER_AREA);
  cv::Mat gray;
  cv::cvtColor(photo, gray, cv::COLOR_BGR2GRAY);
  cv::Mat cmyk(24, 32, CV_8UC4, cv::Scalar(200, 100, 50, 200));
  const std::string jpg = tj(photo, TJPF_BGR, TJSAMP_420, 0);
  put(out + "/coco128-32px.jpg", jpg);
  put(out + "/gray.jpg", tj(gray, TJPF_GRAY, TJSAMP_GRAY, 0));
  put(out + "/cmyk.jpg", tj(cmyk, TJPF_CMYK, TJSAMP_444, 0));
  put(out + "/progressive.jpg", tj(photo, TJPF_BGR, TJSAMP_422, TJFLAG_PROGRESSIVE));
  put(out + "/exif6.jpg", exif(jpg, 6, 8));
  put(out + "/exif-bad-offset.jpg", exif(jpg, 6, 0xFFFFFFFEu));  // the offset that wrapped (finding)
  put(out + "/truncated.jpg", jpg.substr(0, jpg.size() / 2));
  put(out + "/photo.png", enc(photo, ".png"));
  put(out + "/gray.png", enc(gray, ".png"));
  cv::Mat deep;
  photo.convertTo(deep, CV_16UC3, 257);
  put(out + "/deep16.png", enc(deep, ".png"));
  cv::Mat alpha;
  cv::cvtColor(photo, alpha, cv::COLOR_BGR2BGRA);
  put(out + "/alpha.png", enc(alpha, ".png"));
  put(out + "/photo.bmp", enc(photo(cv::Rect(0, 0, 8, 6)).clone(), ".bmp"));
  return 0;
}
