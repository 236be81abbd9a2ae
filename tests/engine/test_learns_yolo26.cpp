// YOLO26 learns as Ultralytics 8.4.52 trains it (issue 32 part 8): `ywb train model=yolo26n.yaml` from
// scratch on shapes/ (imgsz 128, batch 16, 30 epochs, seed 0, every other setting at its default: `auto`
// chooses AdamW lr 0.001 as it did for Ultralytics' run) scores, judged by `ywb val` (validateWeights, the
// NMS-free path), at least a share of what Ultralytics' own run of the same command scores: the COCO
// mAP50-95 of its checkpoint's detections, read from
// ../shared/fixtures/ultralytics84/val-yolo26n/expected.json (0.1193), never typed in.
//
// One run of each side is one draw from each trainer's distribution (the augmentation's random numbers
// differ), and one draw moves whenever anything changes the run's trajectory: docs/PARITY.md "Session 15"
// gives 11 of our runs (seeds 0-3, two kinds of kernels, two ways of resampling the augmented image) at 0.73
// to 1.02 of Ultralytics' one run, mean 0.885, standard deviation 0.10. The share asserted here is 2.3
// standard deviations below that mean, so a change that only redraws the run fails it about once in a
// hundred, while a learner a third slower than this one fails it (this run stood at 0.58 of Ultralytics'
// score after epoch 20). The 0.95 target is reported in PARITY.md, not asserted on one draw.
//
// The run also shows the end-to-end schedule as the issue states it: the one-to-many weight is 0.8 in the
// first epoch and 0.1 in the last (Ultralytics' E2ELoss, moving linearly in between).
//
// Runs under YW_AVX2_ENV (tests/engine/train.cmake) so its numbers are the same on any x86 CPU with AVX2
// (docs/PARITY.md "Reproducible across CPUs").
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "ywb/inference.h"
#include "ywb/trainer.h"

namespace fs = std::filesystem;

namespace {

const std::string kShared = YW_SHARED_DIR;
// The share of Ultralytics' score this test asserts: see the header and PARITY.md "Session 15".
constexpr double kShare = 0.65;

class Record : public ywb::TrainObserver {
 public:
  std::vector<ywb::EpochMetrics> epochs;
  void onEpoch(const ywb::EpochMetrics& m) override {
    epochs.push_back(m);
    qInfo("epoch %d/%d  o2m %.3f  box %.3f cls %.3f l1 %.4f  val %.3f %.3f %.4f  mAP50 %.3f mAP50-95 %.4f",
          m.epoch + 1, m.epochs, m.o2m, m.train_box, m.train_cls, m.train_dfl, m.val_box, m.val_cls,
          m.val_dfl, m.map50, m.map);
  }
};

double ultralyticsMap() {
  QFile f(QString::fromStdString(kShared + "/fixtures/ultralytics84/val-yolo26n/expected.json"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  return QJsonDocument::fromJson(f.readAll()).object()["stats"].toArray().at(0).toDouble(-1);
}

}  // namespace

class TestLearnsYolo26 : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void reachesUltralyticsScoreOnShapes() {
    const double ultra = ultralyticsMap();
    QVERIFY2(ultra > 0.1 && ultra < 0.2, "val-yolo26n/expected.json unreadable");
    QTemporaryDir dir;
    const fs::path shapes = fs::path(dir.path().toStdString()) / "shapes";
    fs::copy(kShared + "/fixtures/ultralytics/shapes", shapes, fs::copy_options::recursive);

    ywb::TrainArgs a;
    a.data = (shapes / "data.yaml").string();
    a.model = "yolo26n.yaml";
    a.imgsz = 128;
    a.batch = 16;
    a.epochs = 30;
    a.seed = 0;
    a.device = "cpu";
    a.workers = 2;
    a.threads = 2;
    a.project = dir.path().toStdString();
    a.name = "yolo26n";
    ywb::Trainer t(a);
    Record rec;
    t.setObserver(&rec);
    const ywb::TrainSummary s = t.run();
    QCOMPARE(int(rec.epochs.size()), 30);

    // The schedule's end points (issue 32: 0.8/0.2 at epoch 0, 0.1/0.9 at the last epoch).
    QCOMPARE(rec.epochs.front().o2m, 0.8);
    QVERIFY2(std::abs(rec.epochs.back().o2m - 0.1) < 1e-12,
             qPrintable(QString::number(rec.epochs.back().o2m)));

    // The judge is `ywb val` on the best weights, as for Ultralytics' checkpoint.
    ywb::ValOptions vo;
    vo.data = a.data;
    vo.weights = s.best;
    vo.imgsz = 128;
    vo.device = "cpu";
    const ywb::ValReport r = ywb::validateWeights(vo);
    qInfo("best epoch %d; ywb val: mAP50-95 %.5f mAP50 %.5f; Ultralytics 8.4.52's run: %.5f (share %.3f)",
          s.best_epoch + 1, r.metrics.map, r.metrics.map50, ultra, r.metrics.map / ultra);
    QVERIFY2(r.metrics.map >= kShare * ultra,
             qPrintable(QString("mAP50-95 %1 < %2 x %3").arg(r.metrics.map).arg(kShare).arg(ultra)));
  }
};

QTEST_GUILESS_MAIN(TestLearnsYolo26)
#include "test_learns_yolo26.moc"
