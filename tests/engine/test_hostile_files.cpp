// Odd paths and images, built as real files: a dataset reached through a symlinked folder whose names have
// spaces and Chinese characters, a symlinked image, a symlinked sub-folder, a link loop, a broken link, an
// EXIF-rotated JPEG, grayscale JPEG and PNG, a 16-bit PNG, a PNG with alpha, a CMYK JPEG, an undecodable
// file and an empty one. Each must load with the right size, 3 channels and labels in its frame, or be
// reported by name with the reason: in the scan (ywb dataset check, training's scan), in a 1-epoch training
// run and in ywb predict. Expected pixel values are derived by hand in the comments.
#include <turbojpeg.h>
#include <zlib.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cli_runner.h"
#include "core/atomic_file.h"
#include "data/dataset_scanner.h"
#include "data/image_io.h"
#include "data/label_cache.h"
#include "ywb/dataset.h"
#include "ywb/error.h"

namespace fs = std::filesystem;

namespace {

void writeBytes(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string pngBytes(const cv::Mat& m) {
  std::vector<uchar> buf;
  if (!cv::imencode(".png", m, buf)) throw std::runtime_error("png encode");
  return std::string(buf.begin(), buf.end());
}

// A JPEG of `img` in `pf` (TJPF_GRAY with TJSAMP_GRAY, or TJPF_CMYK: libjpeg-turbo stores it as YCCK with
// an Adobe marker, as CMYK JPEGs from print workflows are).
std::string tjJpeg(const cv::Mat& img, int pf, int samp) {
  tjhandle h = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(h, img.data, img.cols, 0, img.rows, pf, &buf, &size, samp, 95, 0) != 0) {
    throw std::runtime_error(tjGetErrorStr2(h));
  }
  std::string out(reinterpret_cast<char*>(buf), size);
  tjFree(buf);
  tjDestroy(h);
  return out;
}

// `jpeg` with an EXIF APP1 segment (big-endian TIFF, one IFD entry: Orientation = `o`) after SOI.
std::string withExifOrientation(const std::string& jpeg, int o) {
  const unsigned char tiff[] = {'M',  'M',  0, 42, 0, 0, 0, 8,                       // header, IFD at 8
                                0,    1,                                             // one entry
                                0x01, 0x12, 0, 3,  0, 0, 0, 1, 0, uint8_t(o), 0, 0,  // 0x0112 SHORT 1 = o
                                0,    0,    0, 0};                                   // no next IFD
  std::string seg = "\xFF\xE1";
  const size_t len = 2 + 6 + sizeof tiff;
  seg += char(len >> 8);
  seg += char(len & 0xFF);
  seg += std::string("Exif\0\0", 6);
  seg += std::string(reinterpret_cast<const char*>(tiff), sizeof tiff);
  return jpeg.substr(0, 2) + seg + jpeg.substr(2);
}

struct Built {
  std::string yaml;    ///< data.yaml reached through the symlinked dataset folder
  std::string images;  ///< its images/train folder (through the link)
};

// The dataset; every usable image has one label row `0 0.5 0.5 0.5 0.5` except the EXIF one (see below).
Built buildDataset(const fs::path& tmp) {
  const fs::path real = tmp / "数据 real";
  const fs::path link = tmp / "数据集 link";
  const fs::path img = real / "images/train", lab = real / "labels/train";
  const std::string row = "0 0.5 0.5 0.5 0.5\n";
  auto add = [&](const std::string& name, const std::string& bytes, const std::string& label) {
    writeBytes(img / name, bytes);
    writeBytes(lab / (fs::path(name).replace_extension(".txt")), label);
  };
  cv::Mat color(40, 48, CV_8UC3, cv::Scalar(30, 120, 210));
  add("图片 1.jpg", ywb::encodeJpeg(color), row);

  // EXIF orientation 6 (rotate 90 degrees clockwise to show upright). Stored 64 wide x 32 high, white block
  // at stored x 48..63, y 0..15 (top right). Clockwise: stored (x, y) -> upright (31 - y, x) in a 32 x 64
  // image, so the block lands at x 16..31, y 48..63 (bottom right): label cx 24/32, cy 56/64, w 16/32, h
  // 16/64.
  cv::Mat stored(32, 64, CV_8UC3, cv::Scalar(0, 0, 0));
  stored(cv::Rect(48, 0, 16, 16)).setTo(cv::Scalar(255, 255, 255));
  add("exif 6.jpg", withExifOrientation(ywb::encodeJpeg(stored, 95), 6), "0 0.75 0.875 0.5 0.25\n");

  cv::Mat gray(48, 40, CV_8UC1, cv::Scalar(90));
  add("gray.jpg", tjJpeg(gray, TJPF_GRAY, TJSAMP_GRAY), "\xEF\xBB\xBF" + row);  // label saved with a BOM
  add("gray.png", pngBytes(gray), row);
  // 16-bit: 100*257 etc. OpenCV's 8-bit reading keeps the high byte: 25700 >> 8 = 100, 38550 >> 8 = 150.
  add("deep 16.png", pngBytes(cv::Mat(36, 44, CV_16UC3, cv::Scalar(100 * 257, 150 * 257, 200 * 257))), row);
  add("alpha.png", pngBytes(cv::Mat(30, 50, CV_8UC4, cv::Scalar(10, 20, 30, 0))), row);
  // CMYK (Adobe inverted ink) c, m, y, k = 200, 100, 50, 200 -> OpenCV's conversion k - ((255 - v) * k >> 8):
  // blue 200 - (205 * 200 >> 8) = 200 - 160 = 40, green 200 - (155 * 200 >> 8) = 79, red 200 - 42 = 158.
  add("cmyk.jpg", tjJpeg(cv::Mat(40, 40, CV_8UC4, cv::Scalar(200, 100, 50, 200)), TJPF_CMYK, TJSAMP_444),
      row);
  add("bad.png", "\x89PNG\r\n\x1a\n this is not an image", row);
  add("empty.jpg", "", row);

  // Links: an image stored outside the dataset, a folder outside it, a loop, an image that is gone.
  writeBytes(tmp / "outside/photo.jpg", ywb::encodeJpeg(color));
  writeBytes(tmp / "outside/more/x.jpg", ywb::encodeJpeg(color));
  fs::create_symlink(tmp / "outside/photo.jpg", img / "linked.jpg");
  writeBytes(tmp / "outside/photo.txt", row);
  fs::create_symlink(tmp / "outside/photo.txt", lab / "linked.txt");  // a linked label file too
  writeBytes(img / "no label.jpg", ywb::encodeJpeg(color));
  fs::create_symlink(tmp / "outside/deleted.txt", lab / "no label.txt");  // a label link that is broken
  fs::create_directory_symlink(tmp / "outside/more", img / "sub");
  writeBytes(lab / "sub/x.txt", row);
  fs::create_directory_symlink(".", img / "loop");
  fs::create_symlink(tmp / "outside/deleted.jpg", img / "gone.jpg");

  writeBytes(real / "images/val/验证 1.jpg", ywb::encodeJpeg(color));
  writeBytes(real / "labels/val/验证 1.txt", row);
  writeBytes(real / "data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [thing]\n");
  fs::create_directory_symlink(real, link);
  return {(link / "data.yaml").string(), (link / "images/train").string()};
}

}  // namespace

class TestHostileFiles : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;
  Built ds_;

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    QVERIFY(ywb::canDecodeNonJpeg());
    ds_ = buildDataset(fs::path(tmp_.path().toStdString()) / "hostile 测试");
  }

  void scanLoadsOrReportsEach() {
    const ywb::DataConfig cfg = ywb::loadDataConfig(ds_.yaml);
    const ywb::ScannedSplit s = ywb::scanSplit(cfg, "train", {1, false});
    // 12 image files are listed: 10 usable (the loop adds nothing), bad.png and empty.jpg excluded; 9 have
    // one box each, "no label.jpg" (its label link is broken) is a background.
    QCOMPARE(s.report.images, 12);
    QCOMPARE(int(s.images.size()), 10);
    QCOMPARE(s.report.corrupt, 2);
    QCOMPARE(s.report.boxes, 9);
    QCOMPARE(s.report.backgrounds, 1);
    std::map<std::string, std::pair<int, int>> size;
    for (const auto& r : s.images) size[fs::path(r.image).filename().string()] = {r.width, r.height};
    QCOMPARE(size["exif 6.jpg"], std::make_pair(32, 64));  // upright (EXIF applied)
    QCOMPARE(size["图片 1.jpg"], std::make_pair(48, 40));
    QCOMPARE(size["cmyk.jpg"], std::make_pair(40, 40));
    QCOMPARE(size["deep 16.png"], std::make_pair(44, 36));
    QCOMPARE(size["x.jpg"], std::make_pair(48, 40));
    QVERIFY(s.images.front().image.find("数据集 link/images/train") != std::string::npos);
    std::map<std::string, std::string> why;
    for (const auto& p : s.report.problems) why[fs::path(p.file).filename().string()] = p.reason;
    QVERIFY2(why["gone.jpg"].find("broken link") != std::string::npos, why["gone.jpg"].c_str());
    QVERIFY2(why["empty.jpg"].find("empty") != std::string::npos, why["empty.jpg"].c_str());
    QVERIFY2(!why["bad.png"].empty(), "bad.png is reported");
    QVERIFY2(why["no label.txt"].find("broken link") != std::string::npos, why["no label.txt"].c_str());
  }

  void damagedCacheWithValidKeyIsRebuilt() {
    // A label cache whose key still matches but whose inside was damaged (class 5 in a 1-class dataset) must
    // not be trusted: it would count a box of a class that does not exist.
    const ywb::DataConfig cfg = ywb::loadDataConfig(ds_.yaml);
    const ywb::ScannedSplit first = ywb::scanSplit(cfg, "train", {1, true});
    QVERIFY(!first.report.cache_path.empty());
    const std::string bytes = ywb::readFile(first.report.cache_path);
    nlohmann::json j = nlohmann::json::from_msgpack(bytes);
    bool changed = false;
    for (auto& e : j["entries"]) {
      if (!changed && !e["b"].empty()) e["b"][0][0] = 5, changed = true;
    }
    QVERIFY(changed);
    const std::vector<uint8_t> out = nlohmann::json::to_msgpack(j);
    ywb::writeFileAtomic(first.report.cache_path, std::string(out.begin(), out.end()));
    const ywb::ScannedSplit again = ywb::scanSplit(cfg, "train", {1, true});
    QVERIFY(!again.report.from_cache);
    QVERIFY2(again.report.cache_note.find("damaged") != std::string::npos, again.report.cache_note.c_str());
    QCOMPARE(again.report.per_class, std::vector<int>{9});
    QVERIFY(ywb::scanSplit(cfg, "train", {1, true}).report.from_cache);  // rewritten, trusted again
  }

  void imagesDecodeUprightWithThreeChannels() {
    auto load = [&](const char* name) { return ywb::loadImage(ds_.images + "/" + name, 0, false); };
    const cv::Mat exif = load("exif 6.jpg");
    QCOMPARE(exif.cols, 32);
    QCOMPARE(exif.rows, 64);
    // The label box (centre 24, 56) is white; the stored block's unrotated place (56, 8) is not in the image
    // at all (x 56 > 31), and the upright top-left corner is black.
    QVERIFY(exif.at<cv::Vec3b>(56, 24)[0] > 200);
    QVERIFY(exif.at<cv::Vec3b>(8, 8)[0] < 50);
    for (const char* name : {"gray.jpg", "gray.png", "deep 16.png", "alpha.png", "cmyk.jpg", "sub/x.jpg"}) {
      const cv::Mat m = load(name);
      QVERIFY2(m.type() == CV_8UC3, name);
    }
    QVERIFY(std::abs(load("gray.jpg").at<cv::Vec3b>(10, 10)[1] - 90) <= 1);
    QCOMPARE(load("gray.png").at<cv::Vec3b>(10, 10), cv::Vec3b(90, 90, 90));
    QCOMPARE(load("deep 16.png").at<cv::Vec3b>(5, 5), cv::Vec3b(100, 150, 200));
    QCOMPARE(load("alpha.png").at<cv::Vec3b>(5, 5), cv::Vec3b(10, 20, 30));  // alpha dropped, as imread does
    const cv::Vec3b cmyk = load("cmyk.jpg").at<cv::Vec3b>(20, 20);
    const cv::Vec3b expect(40, 79, 158);  // by hand, see buildDataset
    for (int c = 0; c < 3; ++c) QVERIFY2(std::abs(cmyk[c] - expect[c]) <= 3, "CMYK colour");
    // The same pixel as OpenCV's own decoder (Ultralytics' cv2.imread).
    const cv::Mat cv_ref = cv::imread(ds_.images + "/cmyk.jpg", cv::IMREAD_COLOR);
    QCOMPARE(cv_ref.at<cv::Vec3b>(20, 20), cmyk);
  }

  void hugeHeadersAreRefusedBeforeAllocating() {
    // A few hundred bytes claiming 60000 x 60000 pixels (3.6e9 > Pillow's 178,956,970 limit): refused by
    // name, without the 10.8 GB allocation the header asks for.
    const fs::path dir = fs::path(tmp_.path().toStdString()) / "huge";
    std::string jpg = ywb::encodeJpeg(cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)));
    const size_t sof = jpg.find("\xFF\xC0");
    QVERIFY(sof != std::string::npos);
    for (size_t i : {sof + 5, sof + 7}) jpg[i] = char(0xEA), jpg[i + 1] = char(0x60);  // 0xEA60 = 60000
    writeBytes(dir / "huge.jpg", jpg);
    std::string png = pngBytes(cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)));
    for (size_t i : {16u, 20u}) png[i] = 0, png[i + 1] = 0, png[i + 2] = char(0xEA), png[i + 3] = char(0x60);
    // The IHDR chunk's CRC (over its type and 13 data bytes, 12..28) recomputed, so only the size is odd.
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(png.data() + 12), 17);
    for (int k = 0; k < 4; ++k) png[size_t(29 + k)] = char((crc >> (24 - 8 * k)) & 0xFF);
    writeBytes(dir / "huge.png", png);
    for (const char* name : {"huge.jpg", "huge.png"}) {
      const ywb::ImageProbe p = ywb::probeImage((dir / name).string());
      QVERIFY2(!p.ok && p.reason.find("60000 x 60000 pixels") != std::string::npos, p.reason.c_str());
      std::string why;
      try {
        ywb::loadImage((dir / name).string(), 64);
      } catch (const ywb::Error& e) {
        why = e.what();
      }
      QVERIFY2(why.find("more than") != std::string::npos, why.c_str());
    }
  }

  void datasetCheckTrainAndPredict() {
    const CliResult check =
        ywbRun({"dataset", "check", QString::fromStdString("data=" + ds_.yaml), "--json"});
    QCOMPARE(check.code, 1);  // corrupt images exist
    const QJsonObject train =
        QJsonDocument::fromJson(check.out).object()["splits"].toObject()["train"].toObject();
    QCOMPARE(train["images"].toInt(), 12);
    QCOMPARE(train["corrupt"].toInt(), 2);
    QString problems;
    for (const auto& p : train["problems"].toArray())
      problems += p.toObject()["file"].toString() + ": " + p.toObject()["reason"].toString() + "\n";
    QVERIFY2(problems.contains("gone.jpg: image does not exist"), qPrintable(problems));
    QVERIFY2(problems.contains("bad.png"), qPrintable(problems));

    const QString project = tmp_.path() + "/运行 runs";
    const CliResult t =
        ywbRun({"train", QString::fromStdString("data=" + ds_.yaml), "epochs=1", "imgsz=64", "batch=4",
                "workers=1", "device=cpu", "amp=false", "project=" + project, "name=训练 1"});
    QVERIFY2(t.code == 0, t.err.constData());
    // Training's own scan names the files it leaves out (the log lists the first problems).
    const QByteArray log = t.out + t.err;
    QVERIFY2(log.contains("bad.png") && log.contains("gone.jpg") && log.contains("empty.jpg"),
             log.constData());
    const QString run = project + "/训练 1";
    QVERIFY(QFile::exists(run + "/results.csv"));
    QVERIFY(QFile::exists(run + "/weights/last.safetensors"));

    const CliResult p =
        ywbRun({"predict", "weights=" + run + "/weights/last.safetensors",
                QString::fromStdString("source=" + ds_.images), "project=" + project, "name=预测", "--json"});
    QVERIFY2(p.code == 0, p.err.constData());
    const QJsonObject pj = QJsonDocument::fromJson(p.out).object();
    QCOMPARE(pj["images"].toArray().size(), 10);
    QString skipped;
    for (const auto& s : pj["skipped"].toArray()) skipped += s.toString() + "\n";
    QVERIFY2(skipped.contains("gone.jpg: broken link"), qPrintable(skipped));
    QVERIFY2(skipped.contains("bad.png") && skipped.contains("empty.jpg"), qPrintable(skipped));
  }
};

QTEST_GUILESS_MAIN(TestHostileFiles)
#include "test_hostile_files.moc"
