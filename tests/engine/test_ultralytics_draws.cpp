// Ultralytics' augmentation random numbers, replayed: CPython's and NumPy's MT19937 (core/py_random) and the
// per-worker draw stream of its training loader (data/ultralytics_draws).
#include <torch/version.h>
#include <QtTest>
#include <fstream>
#include <sstream>

#include "core/py_random.h"
#include "data/recent_images.h"
#include "data/ultralytics_draws.h"

class TestUltralyticsDraws : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void pythonAndNumpyGenerators() {
    // CPython: random.seed(0); random.random(), random.random() (well-known values of CPython's MT19937).
    ywb::Mt19937 py = ywb::Mt19937::python(0);
    QCOMPARE(py.random(), 0.8444218515250481);
    QCOMPARE(py.random(), 0.7579544029403025);
    // random.seed(6148914691236517205) (a two-word key); random.seed(3000000000); random.uniform(64, 192).
    QCOMPARE(ywb::Mt19937::python(6148914691236517205ull).random(), 0.6193236597731993);
    QCOMPARE(ywb::Mt19937::python(3000000000ull).uniform(64, 192), 173.47561873033425);
    // NumPy: np.random.seed(0); np.random.rand() and np.random.seed(1); np.random.rand() (its documented
    // examples); its legacy seeding is MT's init_genrand, not CPython's init_by_array.
    QCOMPARE(ywb::Mt19937::numpy(0).random(), 0.5488135039273248);
    QCOMPARE(ywb::Mt19937::numpy(1).random(), 0.417022004702574);
    // discard(n) skips n 32-bit outputs (a double takes two), across the 624-word twist boundary too.
    ywb::Mt19937 a = ywb::Mt19937::python(7), b = ywb::Mt19937::python(7);
    for (int i = 0; i < 700; ++i) a.random();
    b.discard(1400);
    QCOMPARE(a.random(), b.random());
  }

  void matchesPyTorchWorkerProcesses() {
#if TORCH_VERSION_MAJOR != 1 || TORCH_VERSION_MINOR != 13
    QSKIP("the reference draws follow PyTorch 1.13's loader seeds; this LibTorch's generator may differ");
#endif
    // Reference: tests/bench/ultralytics_worker_draws.py 40 4 2 4 3 64 (a real PyTorch 1.13 DataLoader with
    // two worker processes seeded by Ultralytics' rules for one process (RANK -1), CPython's random in each):
    // epoch, position, image, worker, partners, yc, xc, scale, translate x, y, horizontal flip. Epochs 0-2
    // with Mosaic, its iterator rebuilt at epoch 3 (new worker seeds, Mosaic off).
    struct Row {
      int epoch, pos;
      size_t image, p0, p1, p2;
      int yc, xc;
      double scale, tx, ty;
      bool flip;
    };
    const Row rows[] = {
        {0, 0, 23, 23, 23, 23, 49, 47, 0.610352328648, 0.586872645388, 0.556104431505, false},
        {0, 1, 12, 12, 12, 23, 34, 35, 1.21235472696, 0.401280430669, 0.582682550582, true},
        {0, 2, 8, 8, 8, 23, 33, 37, 0.978094690886, 0.441947826554, 0.427174137034, false},
        {1, 0, 6, 32, 6, 1, 64, 75, 0.561223281705, 0.41985325692, 0.450464727859, false},
        {1, 4, 15, 9, 22, 29, 32, 75, 1.47962481367, 0.402936561296, 0.447275911468, true},
        {1, 39, 14, 9, 34, 36, 44, 86, 1.04369881026, 0.433621727361, 0.530237286979, true},
        {2, 17, 32, 36, 23, 3, 38, 77, 1.09706315616, 0.566138783662, 0.538690625416, false},
        {3, 0, 39, 0, 0, 0, -1, -1, 0.830462963351, 0.593662682404, 0.483335909578, true},
        {3, 1, 37, 0, 0, 0, -1, -1, 1.25442418837, 0.505328862945, 0.563395548241, true},
    };
    const ywb::AugmentParams hyp;  // Ultralytics' defaults: mosaic 1, scale 0.5, translate 0.1, fliplr 0.5
    for (const Row& r : rows) {
      const ywb::UltralyticsLoaderReplay replay = ywb::ultralyticsLoaderReplay(40, r.epoch, 3);
      ywb::UltralyticsStreamOptions o;
      o.workers = 2, o.batch = 4, o.buffer = ywb::RecentImages::capacityFor(40, 4), o.imgsz = 64;
      o.multi_image = r.epoch < 3;
      const std::vector<ywb::SampleDraws> d = ywb::ultralyticsDraws(replay, r.epoch, o, hyp);
      QCOMPARE(d.size(), size_t(40));
      const QString at = QString("epoch %1 position %2").arg(r.epoch).arg(r.pos);
      QVERIFY2(replay.orders.back()[size_t(r.pos)] == r.image, qPrintable(at));
      const ywb::SampleDraws& s = d[size_t(r.pos)];
      QVERIFY2(s.mosaic == (r.yc >= 0), qPrintable(at));
      if (s.mosaic) {
        QVERIFY2(s.partners[0] == r.p0 && s.partners[1] == r.p1 && s.partners[2] == r.p2, qPrintable(at));
        QVERIFY2(s.yc == r.yc && s.xc == r.xc, qPrintable(at));
      }
      QVERIFY2(std::abs(s.perspective.scale - r.scale) < 1e-11, qPrintable(at));
      QVERIFY2(std::abs(s.perspective.translate_x - r.tx) < 1e-11, qPrintable(at));
      QVERIFY2(std::abs(s.perspective.translate_y - r.ty) < 1e-11, qPrintable(at));
      QVERIFY2(s.flip_lr == r.flip && !s.flip_ud, qPrintable(at));
    }
  }

  void invariants() {
    // Independent of any reference: the draws are a pure function of the replay; every partner is an image of
    // the split; the run's first sample can only mix with itself (its buffer holds one image); the gains and
    // the scale stay in their ranges. Without worker processes the validation between epochs draws from the
    // same generator, so the number of validation images moves the next epoch's draws.
    const ywb::AugmentParams hyp;
    const ywb::UltralyticsLoaderReplay replay = ywb::ultralyticsLoaderReplay(64, 2, -1);
    ywb::UltralyticsStreamOptions o;
    o.batch = 8, o.buffer = ywb::RecentImages::capacityFor(64, 8), o.imgsz = 64;
    for (int workers : {0, 1, 3}) {
      o.workers = workers;
      const auto a = ywb::ultralyticsDraws(replay, 2, o, hyp), b = ywb::ultralyticsDraws(replay, 2, o, hyp);
      QCOMPARE(a.size(), size_t(64));
      for (size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i].perspective.scale, b[i].perspective.scale);
        for (size_t p : a[i].partners) QVERIFY(p < 64);
        QVERIFY(std::abs(a[i].hsv[0]) <= hyp.hsv_h && std::abs(a[i].hsv[1]) <= hyp.hsv_s);
        QVERIFY(a[i].perspective.scale >= 0.5 && a[i].perspective.scale < 1.5);
      }
      const auto first = ywb::ultralyticsDraws(replay, 0, o, hyp);
      QVERIFY(first[0].mosaic);
      for (size_t p : first[0].partners) QCOMPARE(p, replay.orders[0][0]);
    }
    o.workers = 0;
    const auto before = ywb::ultralyticsDraws(replay, 1, o, hyp);
    o.val_images = 5;
    const auto after = ywb::ultralyticsDraws(replay, 1, o, hyp);
    QVERIFY(before[0].perspective.scale != after[0].perspective.scale);
  }
};

QTEST_APPLESS_MAIN(TestUltralyticsDraws)
#include "test_ultralytics_draws.moc"
