// Pretrained weights by name (ywb/pretrained.h) against a real HTTP server on loopback
// (tests/support/weights_server.py) serving real Ultralytics checkpoints under official names: the
// shared fixtures yolov8n-shapes.pt, yolo11n-shapes.pt (Ultralytics 8.3.253) and yolo26n-shapes.pt (8.4.52),
// trained on a 6-class dataset, so they are the official architectures with other weights.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "support/error_of.h"
#include "support/weights_server.h"
#include "ywb/pretrained.h"

namespace {

const QString kV8 = YW_SHARED_DIR "/fixtures/ultralytics/yolov8n-shapes.pt";
const QString kV11 = YW_SHARED_DIR "/fixtures/ultralytics/yolo11n-shapes.pt";
const QString kV26 = YW_SHARED_DIR "/fixtures/ultralytics84/yolo26n-shapes.pt";

QByteArray bytesOf(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestWeightsFetch : public QObject {
  Q_OBJECT

  QTemporaryDir served_;
  std::unique_ptr<WeightsServer> server_;
  QTemporaryDir* cache_ = nullptr;

  ywb::WeightsFetchOptions options(const char* mode) {
    ywb::WeightsFetchOptions o;
    o.base_url = server_->base(mode);
    o.cache_dir = cache_->path().toStdString();
    return o;
  }
  QString cached(const char* file) const { return cache_->filePath(file); }
  int requestCount() { return int(server_->requests().size()); }
  // Nothing under the final name, whatever else the failed download left.
  void expectNothingFinal(const char* file) { QVERIFY2(!QFile::exists(cached(file)), file); }

 private Q_SLOTS:
  void initTestCase() {
    // The served folder: the fixtures under the official names they stand for, plus a YOLO11 file posing as
    // yolov8s.pt (a wrong file behind a right name).
    QVERIFY(QFile::copy(kV8, served_.filePath("yolov8n.pt")));
    QVERIFY(QFile::copy(kV11, served_.filePath("yolo11n.pt")));
    QVERIFY(QFile::copy(kV26, served_.filePath("yolo26n.pt")));
    QVERIFY(QFile::copy(kV11, served_.filePath("yolov8s.pt")));
    server_ = std::make_unique<WeightsServer>(served_.path());
    QVERIFY2(server_->port() > 0, "python3 tests/support/weights_server.py did not start");
    qunsetenv("YWB_WEIGHTS_URL");
    qunsetenv("YWB_WEIGHTS_TIMEOUT");
  }
  void init() { cache_ = new QTemporaryDir(); }
  void cleanup() {
    delete cache_;
    cache_ = nullptr;
  }

  void registryHoldsTheOfficialNames() {
    // Ultralytics' detection weights: 3 families x 5 scales, named <family><scale>.pt.
    QCOMPARE(int(ywb::officialWeights().size()), 15);
    for (const char* f : {"yolov8n.pt", "yolov8x.pt", "yolo11m.pt", "yolo26s.pt", "yolo26x.pt"})
      QVERIFY2(ywb::findOfficialWeights(f), f);
    QVERIFY(!ywb::findOfficialWeights("yolov8n-seg.pt"));
    QVERIFY(ywb::looksLikeOfficialName("yolov8n-seg.pt"));
    QVERIFY(ywb::looksLikeOfficialName("yolov5nu.pt"));
    QVERIFY(!ywb::looksLikeOfficialName("runs/yolov8n.pt"));  // a folder part: a path, never a name
    QVERIFY(!ywb::looksLikeOfficialName("best.pt"));
    QCOMPARE(ywb::weightsBaseUrl(), std::string(ywb::kDefaultWeightsUrl));
    QCOMPARE(ywb::weightsBaseUrl("http://mirror/w/"), std::string("http://mirror/w"));
  }

  void cacheFolderFollowsXdg() {
    // XDG Base Directory: $XDG_CACHE_HOME (absolute) else ~/.cache; YWB_WEIGHTS_DIR overrides both.
    const QByteArray old_xdg = qgetenv("XDG_CACHE_HOME"), old_dir = qgetenv("YWB_WEIGHTS_DIR");
    qunsetenv("YWB_WEIGHTS_DIR");
    qputenv("XDG_CACHE_HOME", "/tmp/xdg-cache");
    QCOMPARE(ywb::weightsCacheDir(), std::string("/tmp/xdg-cache/ywb/weights"));
    qputenv("XDG_CACHE_HOME", "relative/ignored");
    QCOMPARE(ywb::weightsCacheDir(), qgetenv("HOME").toStdString() + "/.cache/ywb/weights");
    qputenv("YWB_WEIGHTS_DIR", "/tmp/elsewhere");
    QCOMPARE(ywb::weightsCacheDir(), std::string("/tmp/elsewhere"));
    if (old_xdg.isNull())
      qunsetenv("XDG_CACHE_HOME");
    else
      qputenv("XDG_CACHE_HOME", old_xdg);
    if (old_dir.isNull())
      qunsetenv("YWB_WEIGHTS_DIR");
    else
      qputenv("YWB_WEIGHTS_DIR", old_dir);
  }

  void downloadsVerifiesAndCaches() {
    const int before = requestCount();
    uint64_t last_done = 0, last_total = 0;
    auto o = options("ok");
    o.progress = [&](uint64_t done, uint64_t total) {
      last_done = done;
      last_total = total;
      return true;
    };
    const std::string path = ywb::resolveWeights("yolov8n.pt", o);
    QCOMPARE(QString::fromStdString(path), cached("yolov8n.pt"));
    QCOMPARE(bytesOf(cached("yolov8n.pt")), bytesOf(kV8));  // byte for byte the served file
    QCOMPARE(requestCount(), before + 1);
    QCOMPARE(last_done, uint64_t(QFileInfo(kV8).size()));  // the progress ends at the file's size
    QCOMPARE(last_total, uint64_t(QFileInfo(kV8).size()));
    QVERIFY(!QFile::exists(cached("yolov8n.pt.part")));

    // Cached: used as it is, no request (and none possible: the second base address is a closed port).
    auto offline = options("ok");
    offline.base_url = "http://127.0.0.1:1";
    QCOMPARE(ywb::resolveWeights("yolov8n.pt", offline), path);
    QCOMPARE(requestCount(), before + 1);
    QVERIFY(!ywb::weightsNeedDownload("yolov8n.pt", offline));
  }

  void everyFamilyVerifies() {
    // YOLO11 and YOLO26 declare their architecture in the checkpoint's YAML dict (yaml_file, scale, the
    // layers' modules, end2end for YOLO26); read, not built, so YOLO26 verifies whether or not it can be
    // built.
    for (const char* f : {"yolo11n.pt", "yolo26n.pt"}) {
      const std::string path = ywb::resolveWeights(f, options("ok"));
      QCOMPARE(QString::fromStdString(path), cached(f));
    }
    QCOMPARE(bytesOf(cached("yolo26n.pt")), bytesOf(kV26));
  }

  void wrongArchitectureIsRefused() {
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8s.pt", options("ok")); });
    QVERIFY2(e.find("holds yolo11n, not the yolov8s detection model") != std::string::npos, e.c_str());
    expectNothingFinal("yolov8s.pt");
    QVERIFY(!QFile::exists(cached("yolov8s.pt.part")));  // a wrong file is not kept for a resume
  }

  void notFound() {
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8m.pt", options("ok")); });
    QVERIFY2(e.find("HTTP 404") != std::string::npos, e.c_str());
    QVERIFY2(e.find(server_->base("ok") + "/yolov8m.pt") != std::string::npos, e.c_str());
    expectNothingFinal("yolov8m.pt");
  }

  void truncatedBody() {
    // A complete HTTP response whose content is the first half of the file: the zip has no central directory.
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8n.pt", options("truncated")); });
    QVERIFY2(e.find("damaged or incomplete") != std::string::npos, e.c_str());
    QVERIFY2(e.find("nothing was saved as " + cached("yolov8n.pt").toStdString()) != std::string::npos,
             e.c_str());
    expectNothingFinal("yolov8n.pt");
    QVERIFY(!QFile::exists(cached("yolov8n.pt.part")));
  }

  void htmlBody() {
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8n.pt", options("html")); });
    QVERIFY2(e.find("is an HTML page") != std::string::npos, e.c_str());
    expectNothingFinal("yolov8n.pt");
  }

  void stalledConnection() {
    // The server sends its headers and then nothing: the 1 s stall timeout ends it (YWB_WEIGHTS_TIMEOUT).
    qputenv("YWB_WEIGHTS_TIMEOUT", "1");
    QElapsedTimer t;
    t.start();
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8n.pt", options("stall")); });
    qunsetenv("YWB_WEIGHTS_TIMEOUT");
    QVERIFY2(e.find("stalled: no data for 1 s") != std::string::npos, e.c_str());
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    expectNothingFinal("yolov8n.pt");
  }

  void resumesAfterACut() {
    // First attempt: the server sends half the file and closes the connection. The half is kept as .part and
    // the message says so; the second attempt asks for the rest (Range: bytes=<half>-) and completes.
    const qint64 size = QFileInfo(kV8).size(), half = size / 2;
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8n.pt", options("cut")); });
    QVERIFY2(e.find("was interrupted") != std::string::npos, e.c_str());
    QVERIFY2(e.find("running again resumes") != std::string::npos, e.c_str());
    expectNothingFinal("yolov8n.pt");
    QCOMPARE(QFileInfo(cached("yolov8n.pt.part")).size(), half);
    const std::string path = ywb::resolveWeights("yolov8n.pt", options("cut"));
    QCOMPARE(bytesOf(QString::fromStdString(path)), bytesOf(kV8));
    QCOMPARE(server_->requests().last(), QString("REQ /cut/yolov8n.pt bytes=%1-").arg(half));
  }

  void serverIgnoringRangeRestarts() {
    // Kept bytes of another file, and a server that ignores Range: its whole 200 body replaces them.
    QFile part(cached("yolov8n.pt.part"));
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write(bytesOf(kV11).left(1000));
    part.close();
    const std::string path = ywb::resolveWeights("yolov8n.pt", options("norange"));
    QCOMPARE(bytesOf(QString::fromStdString(path)), bytesOf(kV8));
  }

  void offlineSaysWhereToPutTheFile() {
    auto o = options("ok");
    o.base_url = "http://127.0.0.1:1";  // nothing listens on port 1: connection refused, as without network
    const std::string e = errorOf([&] { ywb::resolveWeights("yolo11n.pt", o); });
    QVERIFY2(e.find("cannot download yolo11n.pt from http://127.0.0.1:1/yolo11n.pt") != std::string::npos,
             e.c_str());
    QVERIFY2(e.find("put it at " + cached("yolo11n.pt").toStdString()) != std::string::npos, e.c_str());
    expectNothingFinal("yolo11n.pt");
  }

  void unknownNameListsTheKnownOnes() {
    const int before = requestCount();
    const std::string e = errorOf([&] { ywb::resolveWeights("yolov8n-seg.pt", options("ok")); });
    QVERIFY2(e.find("not one of the official weights") != std::string::npos, e.c_str());
    QVERIFY2(e.find("yolov8n.pt, yolov8s.pt") != std::string::npos, e.c_str());
    QCOMPARE(requestCount(), before);  // no download attempt
    // Paths and other names are left to the readers.
    QCOMPARE(ywb::resolveWeights("runs/detect/x/best.pt"), std::string("runs/detect/x/best.pt"));
    QCOMPARE(ywb::resolveWeights("yolov8n.yaml"), std::string("yolov8n.yaml"));
  }

  void existingPathWinsOverTheName() {
    // A file called yolov8n.pt in the working folder is used as a path (Ultralytics does the same).
    const QString old = QDir::currentPath();
    QVERIFY(QDir::setCurrent(cache_->path()));
    QVERIFY(QFile::copy(kV11, "yolov8n.pt"));
    QCOMPARE(ywb::resolveWeights("yolov8n.pt", options("ok")), std::string("yolov8n.pt"));
    QDir::setCurrent(old);
  }

  void mirrorVariable() {
    // YWB_WEIGHTS_URL replaces the base address (over a setting); the cache folder from YWB_WEIGHTS_DIR.
    const int before = requestCount();
    qputenv("YWB_WEIGHTS_URL", QByteArray::fromStdString(server_->base("ok") + "/"));
    qputenv("YWB_WEIGHTS_DIR", cache_->path().toUtf8());
    QCOMPARE(ywb::weightsBaseUrl("http://setting.invalid"), server_->base("ok"));
    const std::string path = ywb::resolveWeights("yolo26n.pt");
    qunsetenv("YWB_WEIGHTS_URL");
    qunsetenv("YWB_WEIGHTS_DIR");
    QCOMPARE(QString::fromStdString(path), cached("yolo26n.pt"));
    QCOMPARE(server_->requests().mid(before), QStringList{"REQ /ok/yolo26n.pt -"});
  }

  void cancelFromTheProgressCallback() {
    // The slow mode sends 16 KiB every 50 ms; the callback stops it after the first bytes.
    auto o = options("slow");
    o.progress = [](uint64_t done, uint64_t) { return done == 0; };
    bool cancelled = false;
    try {
      ywb::resolveWeights("yolov8n.pt", o);
    } catch (const ywb::WeightsFetchCancelled& e) {
      cancelled = true;
      QVERIFY2(std::string(e.what()).find("cancelled") != std::string::npos, e.what());
    }
    QVERIFY(cancelled);
    expectNothingFinal("yolov8n.pt");
  }

  void cliFetchesByName() {
    // `ywb weights info weights=yolo11n.pt` as a user types it: fetched from the mirror into the cache, then
    // inspected; `ywb weights list` then shows it downloaded.
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("YWB_WEIGHTS_URL", QString::fromStdString(server_->base("ok")));
    env.insert("YWB_WEIGHTS_DIR", cache_->path());
    p.setProcessEnvironment(env);
    p.start(YW_CLI_PATH, {"weights", "info", "weights=yolo11n.pt"});
    QVERIFY(p.waitForFinished(60000));
    const QString out = p.readAllStandardOutput(), err = p.readAllStandardError();
    QVERIFY2(p.exitCode() == 0, qPrintable(out + err));
    QVERIFY2(out.contains(cached("yolo11n.pt") + ": valid PyTorch checkpoint"), qPrintable(out));
    QVERIFY2(err.contains("downloading yolo11n.pt"), qPrintable(err));
    QVERIFY2(err.contains("100%"), qPrintable(err));
    p.start(YW_CLI_PATH, {"weights", "list"});
    QVERIFY(p.waitForFinished(30000));
    const QString list = p.readAllStandardOutput();
    QVERIFY2(QRegularExpression(R"(yolo11n\.pt .* downloaded)").match(list).hasMatch(), qPrintable(list));
    QVERIFY2(QRegularExpression(R"(yolo26x\.pt .* will download)").match(list).hasMatch(), qPrintable(list));
  }
};

QTEST_GUILESS_MAIN(TestWeightsFetch)
#include "test_weights_fetch.moc"
