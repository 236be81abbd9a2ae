// Proof that the trainer learns: a small YOLOv8 trained from scratch on the generated shapes dataset reaches
// COCO-exact mAP50 >= 0.5 on its validation split, on the CPU, in minutes, with the quick start's settings.
// The run stops at the first epoch that passes (the quick start's 80-epoch schedule otherwise unchanged):
// on a 2-core AVX2-only CPU, in fp32, that is epoch 33 (the quick start's own results.csv there: 0.518),
// and the 47 epochs after it took 5 of the test's 9.4 minutes.
#include <QTemporaryDir>
#include <QtTest>

#include "ywb/quick_start.h"
#include "ywb/trainer.h"

// Threshold from the issue: mAP50 >= 0.5 (COCO-exact) on the val split.
constexpr double kTargetMap50 = 0.5;

class Progress : public ywb::TrainObserver {
 public:
  explicit Progress(ywb::Trainer& t) : trainer_(t) {}
  void onEpoch(const ywb::EpochMetrics& m) override {
    qInfo("epoch %d/%d  box %.3f cls %.3f dfl %.3f  P %.3f R %.3f mAP50 %.3f mAP50-95 %.3f  (%.0f s)",
          m.epoch + 1, m.epochs, m.train_box, m.train_cls, m.train_dfl, m.precision, m.recall, m.map50, m.map,
          m.time_s);
    if (m.validated && m.map50 >= kTargetMap50) trainer_.requestStop();
  }
  void onLog(const std::string& line) override { qInfo("%s", line.c_str()); }

 private:
  ywb::Trainer& trainer_;
};

class TestLearns : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void reachesMap50OnShapes() {
    QTemporaryDir dir;
    // The quick start's settings (one owner: ywb::quickStart), as `ywb quickstart` and the GUI use them.
    ywb::QuickStart q = ywb::quickStart((dir.path() + "/shapes").toStdString());
    const auto rep = ywb::synthesizeDataset(q.dataset);
    ywb::TrainArgs a = q.train;
    a.data = rep.data_yaml;
    a.project = dir.path().toStdString();
    ywb::Trainer t(a);
    Progress p(t);
    t.setObserver(&p);
    const ywb::TrainSummary s = t.run();
    qInfo("best epoch %d: mAP50 %.3f, mAP50-95 %.3f, %.1f images/s", s.best_epoch + 1, s.best_metrics.map50,
          s.best_metrics.map, s.images_per_s);
    QVERIFY2(s.best_metrics.map50 >= kTargetMap50, qPrintable(QString("mAP50 %1").arg(s.best_metrics.map50)));
  }
};

QTEST_GUILESS_MAIN(TestLearns)
#include "test_learns.moc"
