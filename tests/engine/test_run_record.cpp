// The run record codecs (ywb/run_record.h: the --json events; train/checkpoint_state.h): what the CLI and
// the trainer write is what the GUI and a resume read back, field for field. results.csv and the fitness
// rule: test_results_csv.
#include <QtTest>
#include <cmath>

#include "sample_epoch.h"
#include "train/checkpoint_state.h"
#include "ywb/error.h"
#include "ywb/run_record.h"

using namespace ywb;
using ywb::test::sampleEpoch;

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
};

QTEST_GUILESS_MAIN(TestRunRecord)
#include "test_run_record.moc"
