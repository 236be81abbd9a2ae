// The run record codecs (ywb/run_record.h, ywb/results_csv.h, train/checkpoint_state.h) and the fitness rule
// (ywb/metrics.h): what the CLI and the trainer write is what the GUI, the Runs tab and a resume read back,
// field for field.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "core/atomic_file.h"
#include "train/checkpoint_state.h"
#include "train/run_dir.h"
#include "ywb/error.h"
#include "ywb/metrics.h"
#include "ywb/results_csv.h"
#include "ywb/run_record.h"

using namespace ywb;

namespace {

// Every field set to a distinct value, so a field the writer forgets or the reader maps to the wrong name
// comes back as 0 (or another field's value) and fails the comparison.
StepMetrics sampleStep() {
  StepMetrics m;
  m.epoch = 4;
  m.epochs = 30;
  m.batch = 7;
  m.batches = 12;
  m.iteration = 55;
  m.box = 1.25;
  m.cls = 2.5;
  m.dfl = 0.75;
  m.lr[0] = 0.07;
  m.lr[1] = 0.008;
  m.lr[2] = 0.009;
  m.images_per_s = 123.5;
  m.data_wait_s = 0.125;
  m.compute_s = 0.375;
  m.device_mem = int64_t(3) << 32;  // beyond 32 bits
  m.device_mem_peak = int64_t(5) << 31;
  m.instances = 41;
  m.imgsz = 320;
  m.elapsed_s = 61.5;
  m.eta_s = 999.25;
  m.end2end = true;  // every field differs from its default
  m.o2m = 0.6875;
  m.reg_max = 1;
  return m;
}

EpochMetrics sampleEpoch() {
  EpochMetrics m;
  m.epoch = 4;
  m.epochs = 30;
  m.time_s = 88.5;
  m.train_box = 1.5;
  m.train_cls = 1.75;
  m.train_dfl = 1.125;
  m.val_box = 2.5;
  m.val_cls = 2.75;
  m.val_dfl = 2.125;
  m.precision = 0.625;
  m.recall = 0.5625;
  m.map50 = 0.4375;
  m.map = 0.3125;
  m.lr[0] = 0.05;
  m.lr[1] = 0.006;
  m.lr[2] = 0.0065;
  m.fitness = 0.3125;
  m.best = true;
  m.validated = true;
  m.classes = {{"circle", 17, 0.5, 0.25, 0.75, 0.375}, {"square \"big\"", 3, 0.125, 0.0, -1, -1}};
  m.failed_images = {"cannot read image a.jpg", "b.png: broken PNG"};
  m.o2m = 0.5625;
  m.end2end = true;
  m.reg_max = 1;
  return m;
}

void compareEpoch(const EpochMetrics& a, const EpochMetrics& b) {
  QCOMPARE(a.epoch, b.epoch);
  QCOMPARE(a.epochs, b.epochs);
  QCOMPARE(a.time_s, b.time_s);
  QCOMPARE(a.train_box, b.train_box);
  QCOMPARE(a.train_cls, b.train_cls);
  QCOMPARE(a.train_dfl, b.train_dfl);
  QCOMPARE(a.val_box, b.val_box);
  QCOMPARE(a.val_cls, b.val_cls);
  QCOMPARE(a.val_dfl, b.val_dfl);
  QCOMPARE(a.precision, b.precision);
  QCOMPARE(a.recall, b.recall);
  QCOMPARE(a.map50, b.map50);
  QCOMPARE(a.map, b.map);
  for (int i = 0; i < 3; ++i) QCOMPARE(a.lr[i], b.lr[i]);
  QCOMPARE(a.fitness, b.fitness);
  QCOMPARE(a.best, b.best);
  QCOMPARE(a.validated, b.validated);
  QCOMPARE(a.classes.size(), b.classes.size());
  for (size_t i = 0; i < a.classes.size(); ++i) {
    QCOMPARE(a.classes[i].name, b.classes[i].name);
    QCOMPARE(a.classes[i].instances, b.classes[i].instances);
    QCOMPARE(a.classes[i].precision, b.classes[i].precision);
    QCOMPARE(a.classes[i].recall, b.classes[i].recall);
    QCOMPARE(a.classes[i].ap50, b.classes[i].ap50);
    QCOMPARE(a.classes[i].ap, b.classes[i].ap);
  }
  QCOMPARE(a.failed_images, b.failed_images);
  QCOMPARE(a.o2m, b.o2m);
  QCOMPARE(a.end2end, b.end2end);
  QCOMPARE(a.reg_max, b.reg_max);
}

ResultsRow row(int epoch, double map50, double map, double val_loss) {
  ResultsRow r;
  r.epoch = epoch;
  r.map50 = map50;
  r.map = map;
  r.val_box = r.val_cls = r.val_dfl = val_loss;
  return r;
}

}  // namespace

class TestRunRecord : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void stepRoundTrip() {
    const StepMetrics a = sampleStep();
    const std::string line = stepEventJson(a);
    QVERIFY(line.find('\n') == std::string::npos);  // one event per line
    const TrainEvent e = parseTrainEvent(line);
    QVERIFY(e.kind == TrainEvent::Kind::Step);
    const StepMetrics& b = e.step;
    QCOMPARE(b.epoch, a.epoch);
    QCOMPARE(b.epochs, a.epochs);
    QCOMPARE(b.batch, a.batch);
    QCOMPARE(b.batches, a.batches);
    QCOMPARE(b.iteration, a.iteration);  // carried, not recomputed from epoch * batches
    QCOMPARE(b.box, a.box);
    QCOMPARE(b.cls, a.cls);
    QCOMPARE(b.dfl, a.dfl);
    for (int i = 0; i < 3; ++i) QCOMPARE(b.lr[i], a.lr[i]);
    QCOMPARE(b.images_per_s, a.images_per_s);
    QCOMPARE(b.data_wait_s, a.data_wait_s);
    QCOMPARE(b.compute_s, a.compute_s);
    QCOMPARE(b.device_mem, a.device_mem);
    QCOMPARE(b.device_mem_peak, a.device_mem_peak);
    QCOMPARE(b.instances, a.instances);  // were missing from the --json events ("boxes in batch: 0")
    QCOMPARE(b.imgsz, a.imgsz);
    QCOMPARE(b.elapsed_s, a.elapsed_s);
    QCOMPARE(b.eta_s, a.eta_s);
    QCOMPARE(b.end2end, a.end2end);  // a child run's end-to-end losses and o2m weight reach the GUI
    QCOMPARE(b.o2m, a.o2m);
    QCOMPARE(b.reg_max, a.reg_max);
    // The JSON counts from 1 like the terminal: epoch 5 of 30, batch 8 of 12.
    QVERIFY(line.find("\"epoch\":5") != std::string::npos);
    QVERIFY(line.find("\"batch\":8") != std::string::npos);
  }

  void epochRoundTrip() {
    const EpochMetrics a = sampleEpoch();
    const TrainEvent e = parseTrainEvent(epochEventJson(a));
    QVERIFY(e.kind == TrainEvent::Kind::Epoch);
    compareEpoch(e.epoch, a);
    EpochMetrics unvalidated = a;
    unvalidated.validated = false;
    unvalidated.best = false;
    QVERIFY(!parseTrainEvent(epochEventJson(unvalidated)).epoch.validated);  // carried, not guessed
  }

  void summaryRoundTrip() {
    TrainSummary a;
    a.run_dir = "runs/detect/x";
    a.last = "runs/detect/x/weights/last.safetensors";
    a.best = "runs/detect/x/weights/best.safetensors";
    a.epochs_completed = 9;
    a.best_epoch = 6;
    a.best_fitness = 0.3125;
    a.best_metrics = sampleEpoch();
    a.stopped = true;
    a.early_stopped = true;
    a.stop_reason = "patience";
    a.seconds = 321.5;
    a.images_per_s = 45.25;
    a.amp = "bf16";
    a.failed_image_loads = 5;
    a.failed_images = {"cannot read image c.jpg"};
    a.first_step_s = 4.75;
    a.first_step_run_s = 3.5;
    a.time_split = {{"scan", 0.25}, {"step", 12.5}, {"amp_check", 0.75}};  // kept in this order, not sorted
    const TrainEvent e = parseTrainEvent(finishedEventJson(a));
    QVERIFY(e.kind == TrainEvent::Kind::Finished);
    const TrainSummary& b = e.summary;
    QCOMPARE(b.run_dir, a.run_dir);
    QCOMPARE(b.last, a.last);
    QCOMPARE(b.best, a.best);
    QCOMPARE(b.epochs_completed, a.epochs_completed);
    QCOMPARE(b.best_epoch, a.best_epoch);
    QCOMPARE(b.best_fitness, a.best_fitness);
    compareEpoch(b.best_metrics, a.best_metrics);
    QCOMPARE(b.stopped, a.stopped);
    QCOMPARE(b.early_stopped, a.early_stopped);
    QCOMPARE(b.stop_reason, a.stop_reason);
    QCOMPARE(b.seconds, a.seconds);
    QCOMPARE(b.images_per_s, a.images_per_s);
    QCOMPARE(b.amp, a.amp);
    QCOMPARE(b.failed_image_loads, a.failed_image_loads);
    QCOMPARE(b.failed_images, a.failed_images);
    QCOMPARE(b.first_step_s, a.first_step_s);
    QCOMPARE(b.first_step_run_s, a.first_step_run_s);
    QCOMPARE(b.time_split.size(), a.time_split.size());
    for (size_t i = 0; i < a.time_split.size(); ++i) {
      QCOMPARE(b.time_split[i].name, a.time_split[i].name);
      QCOMPARE(b.time_split[i].seconds, a.time_split[i].seconds);
    }
    TrainSummary none;  // no validated epoch: best_epoch -1 survives the 1-based JSON
    QCOMPARE(parseTrainEvent(finishedEventJson(none)).summary.best_epoch, -1);
  }

  void phaseLogAndForeignLines() {
    for (int i = 0; i <= int(TrainPhase::Failed); ++i) {
      const TrainEvent e = parseTrainEvent(phaseEventJson(TrainPhase(i), "detail ü"));
      QVERIFY(e.kind == TrainEvent::Kind::Phase);
      QVERIFY(e.phase == TrainPhase(i));
      QCOMPARE(e.text, std::string("detail ü"));
    }
    const TrainEvent log = parseTrainEvent(logEventJson("a \"quoted\" line"));
    QVERIFY(log.kind == TrainEvent::Kind::Log);
    QCOMPARE(log.text, std::string("a \"quoted\" line"));
    // Anything else is text for the log, never an exception.
    for (const char* line :
         {"", "plain text", "{\"event\":\"step\",\"epoch\":\"five\"}", "[1,2]",
          "{\"event\":\"phase\",\"phase\":\"no such phase\"}", "{\"event\":\"other\"}", "{"})
      QVERIFY2(parseTrainEvent(line).kind == TrainEvent::Kind::None, line);
  }

  void stepEpochPositionOnTheEpochAxis() {
    StepMetrics m;
    m.epoch = 2;
    m.batch = 4;  // the fifth of 20 batches: 2 + 5/20
    m.batches = 20;
    QCOMPARE(stepEpochPosition(m), 2.25);
    m.batch = 19;  // the last step of epoch 2 (0-based) lands on 3, where that epoch's validation point is
    QCOMPARE(stepEpochPosition(m), 3.0);
    m.batches = 0;  // never a division by zero
    QVERIFY(std::isfinite(stepEpochPosition(m)));
  }

  void resultsCsvRoundTrip() {
    QTemporaryDir dir;
    const std::string csv = dir.path().toStdString() + "/results.csv";
    // Values with at most 5 significant digits (the file's '%.5g'), time with 3 decimals.
    EpochMetrics m = sampleEpoch();
    appendResultsRow(csv, resultsRowOf(m));
    const auto rows = readResults(csv);
    QCOMPARE(rows.size(), size_t(1));
    const ResultsRow& r = rows[0];
    QCOMPARE(r.epoch, 5);  // 1-based in the file
    QCOMPARE(r.time, m.time_s);
    QCOMPARE(r.train_box, m.train_box);
    QCOMPARE(r.train_cls, m.train_cls);
    QCOMPARE(r.train_dfl, m.train_dfl);
    QCOMPARE(r.precision, m.precision);
    QCOMPARE(r.recall, m.recall);
    QCOMPARE(r.map50, m.map50);
    QCOMPARE(r.map, m.map);
    QCOMPARE(r.val_box, m.val_box);
    QCOMPARE(r.val_cls, m.val_cls);
    QCOMPARE(r.val_dfl, m.val_dfl);
    QCOMPARE(r.lr0, m.lr[0]);
    QCOMPARE(r.lr1, m.lr[1]);
    QCOMPARE(r.lr2, m.lr[2]);
    // resultsRowValues follows resultsColumns: the Runs tab picks columns by these names.
    const auto v = resultsRowValues(r);
    QCOMPARE(v.size(), resultsColumns().size());
    QCOMPARE(resultsColumns()[8], std::string("metrics/mAP50-95(B)"));
    QCOMPARE(v[8], m.map);
    QCOMPARE(resultsColumns()[14], std::string("lr/pg2"));
    QCOMPARE(v[14], m.lr[2]);
  }

  void runFoldersAndResults() {
    QTemporaryDir dir;
    const std::string project = dir.path().toStdString();
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", false)), dir.path() + "/train");
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", false)), dir.path() + "/train2");
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", false)), dir.path() + "/train3");
    QCOMPARE(QString::fromStdString(ywb::makeRunDir(project, "train", true)), dir.path() + "/train");
    QVERIFY(QFileInfo(dir.path() + "/train2/weights").isDir());
    const std::string csv = project + "/results.csv";
    for (int e = 1; e <= 3; ++e) {
      ywb::ResultsRow r;
      r.epoch = e;
      r.map = 0.1 * e;
      r.lr0 = 0.01;
      ywb::appendResultsRow(csv, r);
    }
    auto rows = ywb::readResults(csv);
    QCOMPARE(rows.size(), size_t(3));
    QCOMPARE(rows[2].map, 0.3);
    const std::string text = ywb::readFile(csv);
    QVERIFY(text.rfind("epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),", 0) ==
            0);
    ywb::truncateResults(csv, 2);
    QCOMPARE(ywb::readResults(csv).size(), size_t(2));
    std::ofstream(csv, std::ios::app) << "3,1.0,oops\n";
    try {
      ywb::readResults(csv);
      QFAIL("expected an error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("results.csv:4:"), e.what());
    }
  }

  void resultsCsvO2mColumnOnlyForEndToEndRuns() {
    // An end-to-end run (YOLO26) writes its epoch's o2m weight in a last column; other runs keep exactly
    // Ultralytics' 15 columns. A resume's truncation keeps whichever header the file has.
    QTemporaryDir dir;
    const std::string plain = dir.path().toStdString() + "/plain.csv",
                      e2e = dir.path().toStdString() + "/e2e.csv";
    EpochMetrics m = sampleEpoch();
    m.end2end = false;
    ywb::appendResultsRow(plain, resultsRowOf(m));
    QVERIFY(ywb::readFile(plain).find("o2m") == std::string::npos);
    QCOMPARE(ywb::readResults(plain)[0].o2m, 0.0);
    m.end2end = true;
    for (int e = 0; e < 3; ++e) {
      m.epoch = e;
      m.o2m = 0.8 - 0.35 * e;  // 0.8, 0.45, 0.1: a 3-epoch run's schedule
      ywb::appendResultsRow(e2e, resultsRowOf(m));
    }
    const std::string text = ywb::readFile(e2e);
    QVERIFY2(text.find(",lr/pg2,o2m\n") != std::string::npos, text.c_str());
    auto rows = ywb::readResults(e2e);
    QCOMPARE(rows.size(), size_t(3));
    QCOMPARE(rows[1].o2m, 0.45);
    QCOMPARE(rows[2].o2m, 0.1);
    QCOMPARE(resultsRowValues(rows[2]).back(), 0.1);
    QCOMPARE(resultsColumns().back(), std::string("o2m"));
    ywb::truncateResults(e2e, 2);
    rows = ywb::readResults(e2e);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[1].o2m, 0.45);
    QVERIFY(ywb::readFile(e2e).find(",lr/pg2,o2m\n") != std::string::npos);
  }

  void checkpointStateRoundTrip() {
    // Every field distinct; doubles that 6 decimals (std::to_string) would round must come back exactly.
    CheckpointState a;
    a.epoch = 7;
    a.epochs = 30;
    a.best_fitness = 0.123456789012345;
    a.best_epoch = 5;
    a.ema_updates = int64_t(1) << 40;
    a.last_opt_step = 12345;
    a.scaler_scale = 32768.5;
    a.scaler_growth = 17;
    a.elapsed = 1234.000000123;
    a.images_trained = 987654321012;
    a.train_seconds = 1000.25;
    a.args = "epochs: 30\n";
    a.run_dir = "runs/detect/x";
    a.nc = 3;
    a.names = "[\"a\",\"b\",\"c\"]";
    a.imgsz = 320;
    a.model_yaml = "nc: 3\n";
    a.metrics = "{\"mAP50\":0.5}";
    a.amp = "bf16";
    a.version = "0.1.0";
    const CheckpointState b = CheckpointState::fromMetadata(a.toMetadata(), "x.safetensors");
    QCOMPARE(b.epoch, a.epoch);
    QCOMPARE(b.epochs, a.epochs);
    QCOMPARE(b.best_fitness, a.best_fitness);
    QCOMPARE(b.best_epoch, a.best_epoch);
    QCOMPARE(b.ema_updates, a.ema_updates);
    QCOMPARE(b.last_opt_step, a.last_opt_step);
    QCOMPARE(b.scaler_scale, a.scaler_scale);
    QCOMPARE(b.scaler_growth, a.scaler_growth);
    QCOMPARE(b.elapsed, a.elapsed);
    QCOMPARE(b.images_trained, a.images_trained);
    QCOMPARE(b.train_seconds, a.train_seconds);
    QCOMPARE(b.args, a.args);
    QCOMPARE(b.run_dir, a.run_dir);
    QCOMPARE(b.nc, a.nc);
    QCOMPARE(b.names, a.names);
    QCOMPARE(b.imgsz, a.imgsz);
    QCOMPARE(b.model_yaml, a.model_yaml);
    QCOMPARE(b.metrics, a.metrics);
    QCOMPARE(b.amp, a.amp);
    QCOMPARE(b.version, a.version);
    // A missing or broken key needed to resume is a clear error naming the file and the key.
    auto meta = a.toMetadata();
    meta.erase("last_opt_step");
    try {
      CheckpointState::fromMetadata(meta, "x.safetensors");
      QFAIL("expected an error");
    } catch (const ywb::Error& e) {
      QVERIFY2(QString(e.what()).contains("x.safetensors: checkpoint metadata has no 'last_opt_step'"),
               e.what());
    }
    meta = a.toMetadata();
    meta["epoch"] = "seven";
    QVERIFY_THROWS_EXCEPTION(ywb::Error, CheckpointState::fromMetadata(meta, "x.safetensors"));
  }

  void readsUltralyticsPaddedHeader() {
    // Ultralytics' own results.csv (older 8.x) pads every name to a fixed width, and a file may carry columns
    // we do not know; columns are matched by trimmed name.
    QTemporaryDir dir;
    const std::string csv = dir.path().toStdString() + "/results.csv";
    std::ofstream(csv) << "                  epoch,         extra,   metrics/mAP50-95(B),    val/box_loss\n"
                       << "                      1,             7,               0.25,          1.5\n"
                       << "                      2,             7,               0.5,           1.25\n";
    const auto rows = readResults(csv);
    QCOMPARE(rows.size(), size_t(2));
    QCOMPARE(rows[1].epoch, 2);
    QCOMPARE(rows[1].map, 0.5);
    QCOMPARE(rows[1].val_box, 1.25);
    QCOMPARE(rows[1].map50, 0.0);  // absent column
    std::ofstream(csv) << "time,box\n1,2\n";
    QVERIFY_THROWS_EXCEPTION(ywb::Error, readResults(csv));
  }

  void fitnessIsMap5095() {
    // Ultralytics 8.3 (the version of ../shared/fixtures/ultralytics) stores in yolov8n-shapes.pt
    // train_metrics.fitness = 0.16775 bit-identical to metrics/mAP50-95(B), while its mAP50 is 0.30503:
    // fitness there is mAP50-95 alone, not YOLOv5's 0.1 mAP50 + 0.9 mAP50-95 (which would give 0.18148).
    QCOMPARE(modelFitness(0.9, 0.8, 0.30503, 0.16775), 0.16775);
    DetectionResults r;
    r.map50 = 0.7;
    r.map = 0.4;
    QCOMPARE(r.fitness(), 0.4);
    QVERIFY(isNewBest(0.0, false, 0.0));  // the first validated epoch is always best
    QVERIFY(!isNewBest(0.4, true, 0.4));  // a tie keeps the earlier epoch
    QVERIFY(isNewBest(0.41, true, 0.4));
  }

  void bestRowIsTheTrainersBest() {
    // Epoch 2: mAP50 0.90, mAP50-95 0.40; epoch 3: mAP50 0.50, mAP50-95 0.42. By mAP50-95 (the trainer's
    // fitness) epoch 3 is best; 0.1/0.9 weighting would say epoch 2 (0.45 > 0.428) - the old Runs tab's
    // error. Epoch 1 was not validated (val=false writes 0 losses) and epoch 4 ties epoch 3 (the earlier one
    // stays).
    std::vector<ResultsRow> rows = {row(1, 0, 0, 0), row(2, 0.9, 0.40, 1), row(3, 0.5, 0.42, 1),
                                    row(4, 0.6, 0.42, 1)};
    QCOMPARE(bestResultsRow(rows), 2);
    QCOMPARE(bestResultsRow({row(1, 0, 0, 0)}), -1);
    QCOMPARE(bestResultsRow({row(1, 0, 0, 0), row(2, 0, 0, 1)}), 1);  // validated with mAP 0 still counts
  }
};

QTEST_GUILESS_MAIN(TestRunRecord)
#include "test_run_record.moc"
