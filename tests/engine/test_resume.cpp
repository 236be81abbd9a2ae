// Resume with changed arguments and damaged checkpoints, on real tiny runs: `ywb train resume=RUN epochs=3`
// extends a finished run (the learning rate follows the new count from the resumed epoch on), a run
// resumed past warmup is bit-identical to an uninterrupted one, changes a resume may not make are refused
// with old and new value, and a damaged weights/last.safetensors (a flipped byte in the header or the tensor
// data, a truncated file) is named with what is wrong and the intact weights/previous.safetensors offered;
// resuming from that one gives the same final weights as the undamaged run. A resumed run also continues the
// end-to-end loss's o2m weight schedule with the uninterrupted run's weights, and a run stopped after its
// last epoch while its end-of-run plots were written gets them from a resume, nothing else changed.
#include <torch/torch.h>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <map>

#include "cli_runner.h"
#include "core/atomic_file.h"
#include "io/crc32.h"
#include "io/safetensors.h"
#include "support/checkpoint_compare.h"
#include "support/error_of.h"
#include "support/tiny_run.h"
#include "train/checkpoint.h"
#include "train/checkpoint_files.h"
#include "train/checkpoint_state.h"
#include "ywb/results_csv.h"
#include "ywb/trainer.h"

namespace fs = std::filesystem;
using ywb::test::samePrefix;
using ywb::test::tinyRunArgs;
using ywb::test::withArgs;

using ywb::test::StopAfterEpoch;

namespace {

class LogRecorder : public ywb::TrainObserver {
 public:
  void onLog(const std::string& line) override { log += line + "\n"; }
  std::string log;
};

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  qWarning("'%s' not found in:\n%s", part.c_str(), text.c_str());
  return false;
}

// Records the o2m weight each epoch trained with.
class O2mRecorder : public ywb::TrainObserver {
 public:
  void onEpoch(const ywb::EpochMetrics& m) override { o2m[m.epoch] = m.o2m; }
  std::map<int, double> o2m;
};

// `ywb train resume=RUN` with `observer` watching.
ywb::TrainSummary resumeRun(const std::string& run, ywb::TrainObserver* observer) {
  ywb::TrainArgs r;
  r.resume = run;
  ywb::Trainer t(r);
  t.setObserver(observer);
  return t.run();
}

int stateEpoch(const std::string& ckpt) {
  return ywb::CheckpointFiles::verify(ckpt).epoch;
}

// Ultralytics' linear schedule (lr_schedule.h): lr0 * ((1 - e / E) * (1 - lrf) + lrf).
double linearLr(double lr0, double lrf, int e, int epochs) {
  return lr0 * ((1.0 - double(e) / epochs) * (1.0 - lrf) + lrf);
}

}  // namespace

class TestResume : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string data_;
  ywb::TrainSummary exact_;  // the uninterrupted 3-epoch run; damagedLastOffersPrevious damages its last

  // SGD at lr0 0.01, no warmup, a step per batch: every epoch's learning rate follows from the formula alone.
  ywb::TrainArgs args(const std::string& project, int epochs) const {
    ywb::TrainArgs a = tinyRunArgs(data_, dir_.path().toStdString() + "/" + project);
    a.epochs = epochs;
    a.optimizer = "SGD";
    a.lr0 = 0.01;
    a.warmup_epochs = 0;
    a.nbs = a.batch;  // an optimizer step every batch (else 8 batches accumulate before the first)
    return a;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    // 8 training images at batch 8: one step per epoch, so each epoch takes about a second.
    ywb::test::TinyData d;
    d.train = 8;
    d.val = 4;
    data_ = ywb::test::tinyDataset(dir_.path().toStdString(), d);
  }

  void resumedPastWarmupIsBitExact() {
    // Without warmup the learning rate of epoch e is set at the end of epoch e-1; a resumed run must set it
    // itself (it used to start at lr0 again). Uninterrupted 3 epochs vs stopped after epoch 1 + resumed.
    ywb::Trainer full(args("exact_full", 3));
    O2mRecorder full_o2m;
    full.setObserver(&full_o2m);
    const ywb::TrainSummary a = full.run();
    QCOMPARE(a.epochs_completed, 3);
    ywb::Trainer first(args("exact_split", 3));
    StopAfterEpoch stop(first, 0);
    first.setObserver(&stop);
    const ywb::TrainSummary b1 = first.run();
    QVERIFY(b1.stopped);
    O2mRecorder resumed_o2m;
    const ywb::TrainSummary b2 = resumeRun(b1.run_dir, &resumed_o2m);
    QCOMPARE(b2.epochs_completed, 3);
    // The end-to-end loss's weight schedule goes on where it stopped: epochs 1 and 2 of the resumed run have
    // the uninterrupted run's weights, bit for bit: 0.8 at the first epoch, 0.1 at the last (Ultralytics
    // 8.4's linear schedule, loss/o2m_schedule.h).
    QCOMPARE(full_o2m.o2m.size(), size_t(3));
    QCOMPARE(full_o2m.o2m.at(0), 0.8);
    QCOMPARE(full_o2m.o2m.at(2), 0.1);
    QCOMPARE(resumed_o2m.o2m.size(), size_t(2));
    for (int e = 1; e < 3; ++e) QCOMPARE(resumed_o2m.o2m.at(e), full_o2m.o2m.at(e));
    const auto fa = ywb::readCheckpoint(a.last), fb = ywb::readCheckpoint(b2.last);
    QVERIFY(fa.checksummed && fb.checksummed);
    QVERIFY(samePrefix(fa, fb, "model."));
    QVERIFY(samePrefix(fa, fb, "ema."));
    QVERIFY(samePrefix(fa, fb, "optim."));
    const auto rows = ywb::readResults(b2.run_dir + "/results.csv");
    QCOMPARE(rows.size(), size_t(3));
    for (int e = 0; e < 3; ++e) QCOMPARE(rows[size_t(e)].lr1, linearLr(0.01, 0.01, e, 3));
    // The checkpoint before last is kept beside it: epoch 2 of 3.
    QCOMPARE(stateEpoch(ywb::CheckpointFiles::previousPath(a.run_dir)), 2);
    QCOMPARE(stateEpoch(a.last), 3);
    exact_ = a;
  }

  void extendsAFinishedRunFromTheCommandLine() {
    ywb::Trainer t(args("extend", 2));
    const ywb::TrainSummary done = t.run();
    QCOMPARE(done.epochs_completed, 2);
    const QString run = QString::fromStdString(done.run_dir);
    // Resumed as it is: nothing to train, and the message says how to train longer.
    CliResult r = ywbRun({"train", "resume=" + run});
    QCOMPARE(r.code, 0);
    QVERIFY2((r.out + r.err).contains("already trained all its 2 epochs; nothing to resume"),
             (r.out + r.err).constData());
    // epochs=3: one more epoch, whose learning rate follows the 3-epoch schedule at epoch index 2.
    r = ywbRun({"train", "resume=" + run, "epochs=3", "workers=1"});
    QVERIFY2(r.code == 0, (r.out + r.err).constData());
    QVERIFY2((r.out + r.err).contains("resume: epochs: 2 -> 3"), (r.out + r.err).constData());
    const auto rows = ywb::readResults(done.run_dir + "/results.csv");
    QCOMPARE(rows.size(), size_t(3));
    QCOMPARE(rows[0].lr1, linearLr(0.01, 0.01, 0, 2));  // epochs 1-2 as the 2-epoch run trained them
    QCOMPARE(rows[1].lr1, linearLr(0.01, 0.01, 1, 2));
    QCOMPARE(rows[2].lr1, linearLr(0.01, 0.01, 2, 3));  // 0.01 * (1/3 * 0.99 + 0.01) = 0.0034
    QVERIFY(std::abs(rows[2].lr1 - 0.0034) < 1e-15);
    const ywb::CheckpointState st = ywb::CheckpointFiles::verify(done.last);
    QCOMPARE(st.epoch, 3);
    QCOMPARE(st.epochs, 3);
    QCOMPARE(st.optimizer, std::string("SGD"));
    // args.yaml records what the run now uses.
    ywb::TrainArgs recorded;
    ywb::loadTrainArgsYaml(done.run_dir + "/args.yaml", recorded);
    QCOMPARE(recorded.epochs, 3);
    QCOMPARE(recorded.workers, 1);
    QVERIFY(recorded.resume.empty());
    // Fewer epochs than already trained: refused.
    r = ywbRun({"train", "resume=" + run, "epochs=2"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("epochs=2 is fewer than the 3 epochs this run has completed"), r.err.constData());
  }

  // A run killed after its last checkpoint, while its end-of-run plots were written (test_kill_storm landed
  // there): a resume writes them, validating the best epoch again, and changes nothing else. results.png is
  // written last (run_plots.h), so a run without it is one whose plots were cut short.
  void resumeWritesThePlotsOfARunStoppedWhileWritingThem() {
    ywb::Trainer t(args("plots_cut", 1));
    const ywb::TrainSummary done = t.run();
    QCOMPARE(done.epochs_completed, 1);
    const fs::path run(done.run_dir);
    const auto plotsOf = [&run] {
      QStringList names;
      for (const auto& e : fs::directory_iterator(run)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("confusion_matrix", 0) == 0 || n.rfind("Box", 0) == 0 || n.rfind("val_batch", 0) == 0 ||
            (n.rfind("results.", 0) == 0 && n != "results.csv"))
          names << QString::fromStdString(n);
      }
      names.sort();
      return names;
    };
    const QStringList written = plotsOf();
    QVERIFY2(written.contains("results.png") && written.contains("confusion_matrix.png") &&
                 written.contains("val_batch0_pred.jpg"),
             qPrintable(written.join(", ")));
    // The kill's state: the plots gone but one matrix (written before the kill), results.png not yet there.
    for (const QString& f : written)
      if (f != "confusion_matrix.png") fs::remove(run / f.toStdString());
    const std::string last_before = ywb::readFile(done.last);
    const std::string csv_before = ywb::readFile((run / "results.csv").string());
    LogRecorder log;
    const ywb::TrainSummary finished = resumeRun(done.run_dir, &log);
    QCOMPARE(finished.epochs_completed, 1);
    QVERIFY(has(log.log, "after its last epoch (1): it stopped before its end-of-run plots were complete"));
    QVERIFY(has(log.log, "plots of epoch 1 (best, validated again"));
    QCOMPARE(plotsOf(), written);
    // Nothing trained: the checkpoint and results.csv are the bytes they were.
    QVERIFY(ywb::readFile(done.last) == last_before);
    QVERIFY(ywb::readFile((run / "results.csv").string()) == csv_before);
    // Complete now: the next resume has nothing to do.
    LogRecorder log3;
    resumeRun(done.run_dir, &log3);
    QVERIFY(has(log3.log, "already trained all its 1 epochs; nothing to resume"));
  }

  void refusesOtherChangesListingEach() {
    ywb::Trainer t(args("refuse", 1));
    const ywb::TrainSummary done = t.run();
    // Through resolveTrainArgs, what the CLI and the GUI call before starting: every differing key with the
    // run's value and the given one; equal values and the allowed keys pass.
    const ywb::TrainArgs ask = withArgs(
        ywb::TrainArgs{}, {{"resume", done.run_dir}, {"imgsz", "128"}, {"lr0", "0.02"}, {"batch", "8"}});
    const std::string err = errorOf([&] { ywb::resolveTrainArgs(ask); });
    QVERIFY(has(err, "2 argument(s) differ from the run's own"));
    QVERIFY(has(err, "imgsz: 96 -> 128"));
    QVERIFY(has(err, "lr0: 0.01 -> 0.02"));
    QVERIFY(err.find("batch") == std::string::npos);  // batch=8 is the run's own value
    QVERIFY(has(err, "Only epochs, patience, time, workers, device, on_save_error may change"));
    const ywb::TrainArgs ok = ywb::resolveTrainArgs(withArgs(
        ywb::TrainArgs{}, {{"resume", done.run_dir}, {"patience", "7"}, {"time", "0.5"}, {"workers", "1"}}));
    QCOMPARE(ok.patience, 7);
    QCOMPARE(ok.time, 0.5);
    QCOMPARE(ok.workers, 1);
    QCOMPARE(ok.imgsz, 96);  // the run's own
    QCOMPARE(ok.optimizer, std::string("SGD"));
    // Fields assigned directly are not requests (the GUI's resume passes none): the run's own arguments.
    ywb::TrainArgs plain;
    plain.resume = done.run_dir;
    plain.imgsz = 640;
    QCOMPARE(ywb::resolveTrainArgs(plain).imgsz, 96);
    // The command line refuses the same way, before any training.
    const CliResult r = ywbRun({"train", "resume=" + QString::fromStdString(done.run_dir), "imgsz=128"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("imgsz: 96 -> 128"), r.err.constData());
    // A changed device is allowed (the trainer logs a warning).
    const ywb::TrainArgs dev = withArgs(ywb::TrainArgs{}, {{"resume", done.run_dir}, {"device", ""}});
    QCOMPARE(ywb::resolveTrainArgs(dev).device, std::string());
  }

  void damagedLastOffersPrevious() {
    if (exact_.run_dir.empty()) QSKIP("needs the 3-epoch run of resumedPastWarmupIsBitExact");
    const ywb::TrainSummary done = exact_;
    const std::string last = done.last, previous = ywb::CheckpointFiles::previousPath(done.run_dir);
    const std::string good = ywb::readFile(last);
    const ywb::SafetensorsFile original = ywb::readCheckpoint(last);
    const uint64_t header_len = *reinterpret_cast<const uint64_t*>(good.data());
    auto damage = [&](std::string bytes) { ywb::writeFileAtomic(last, bytes); };
    auto resumeError = [&] {
      ywb::TrainArgs r;
      r.resume = done.run_dir;
      return errorOf([&] { ywb::resolveTrainArgs(r); });
    };
    auto offersPrevious = [&](const std::string& err) {
      return has(err, last + " is damaged") && has(err, previous + " (saved after epoch 2 of 3) is intact") &&
             has(err, "ywb train resume=" + previous) &&
             err.find("export or download it again") == std::string::npos;  // advice for weights, not here
    };
    // A flipped byte in the header: the '3' of "epoch":"3" becomes '7' (still valid JSON, a wrong state).
    {
      std::string bytes = good;
      const size_t at = bytes.find("\"epoch\":\"3\"");
      QVERIFY(at != std::string::npos && at < 8 + header_len);
      bytes[at + 9] = '7';
      damage(bytes);
      const std::string err = resumeError();
      QVERIFY(has(err, "header's checksum does not match"));
      QVERIFY(offersPrevious(err));
    }
    // A flipped bit in the middle of the tensor data: only the checksum can tell. resolveTrainArgs reads the
    // header alone (the GUI calls it on its thread); the trainer reads and checks everything before training.
    {
      std::string bytes = good;
      const size_t at = 8 + header_len + (bytes.size() - 8 - header_len) / 2;
      bytes[at] = char(bytes[at] ^ 0x01);
      damage(bytes);
      ywb::TrainArgs r;
      r.resume = done.run_dir;
      const std::string err = errorOf([&] { ywb::Trainer(r).run(); });
      QVERIFY(has(err, "tensor data's checksum does not match"));
      QVERIFY(offersPrevious(err));
    }
    // Truncated (a copy that stopped half way).
    {
      damage(good.substr(0, good.size() / 2));
      const std::string err = resumeError();
      QVERIFY(has(err, "truncated"));
      QVERIFY(offersPrevious(err));
    }
    // Following the advice: resume from previous (epoch 2 of 3). Epoch 3 is trained again, bit-identical to
    // the undamaged last; previous stays the epoch-2 checkpoint (the damaged last was not kept as previous).
    ywb::TrainArgs r;
    r.resume = previous;
    const ywb::TrainSummary again = ywb::Trainer(r).run();
    QCOMPARE(again.epochs_completed, 3);
    const ywb::SafetensorsFile redone = ywb::readCheckpoint(last);
    QVERIFY(samePrefix(original, redone, "model."));
    QVERIFY(samePrefix(original, redone, "ema."));
    QVERIFY(samePrefix(original, redone, "optim."));
    QCOMPARE(stateEpoch(previous), 2);
    // Files without checksums (older versions, other writers) still load, unchecked.
    ywb::writeSafetensors(last, redone.tensors, redone.metadata, /*checksums=*/false);
    const ywb::SafetensorsFile plain = ywb::readCheckpoint(last);
    QVERIFY(!plain.checksummed);
    QVERIFY(!plain.metadata.count(ywb::kDataCrcKey));
    QCOMPARE(ywb::CheckpointFiles::verify(last).epoch, 3);
  }

  void everyHeaderFlipIsCaughtOrHarmless() {
    // Each byte of a checksummed file's header flipped in turn: the read fails, or (a flip in padding or in a
    // checksum key's own name) gives exactly the original tensors and metadata.
    const ywb::NamedTensors tensors = {{"a", torch::arange(6, torch::kFloat).reshape({2, 3})},
                                       {"b", torch::tensor({7, 8}, torch::kLong)}};
    const std::map<std::string, std::string> meta = {{"epoch", "3"}, {"args", "lr0: 0.01\n"}};
    const std::string good = ywb::encodeSafetensors(tensors, meta, true);
    const uint64_t header_len = *reinterpret_cast<const uint64_t*>(good.data());
    int caught = 0, harmless = 0;
    for (size_t i = 8; i < 8 + header_len; ++i) {
      for (uint8_t bit : {uint8_t(0x01), uint8_t(0x20)}) {
        std::string bytes = good;
        bytes[i] = char(uint8_t(bytes[i]) ^ bit);
        try {
          const ywb::SafetensorsFile f =
              ywb::decodeSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "flip");
          QCOMPARE(f.tensors.size(), tensors.size());
          for (size_t k = 0; k < tensors.size(); ++k) {
            QCOMPARE(f.tensors[k].first, tensors[k].first);
            QVERIFY(f.tensors[k].second.equal(tensors[k].second));
          }
          for (const auto& [key, value] : meta) QCOMPARE(f.metadata.at(key), value);
          ++harmless;
        } catch (const ywb::Error&) {
          ++caught;
        }
      }
    }
    qInfo("header of %d bytes: %d flips caught, %d harmless", int(header_len), caught, harmless);
    QVERIFY(caught > 0);
  }

  void checksumCostOnAYolov8nCheckpoint() {
    // The figure docs/RELIABILITY.md quotes: encoding a yolov8n-sized checkpoint (model, EMA, momentum and
    // gradients: 4 x 3.16 M fp32 values) with and without checksums, and verifying it. Printed, not asserted
    // (busy cores); asserted: a one-bit flip in that real-sized data is caught.
    ywb::NamedTensors t;
    for (const char* part : {"model.", "ema.", "optim.", "grad."})
      t.emplace_back(std::string(part) + "w", torch::randn({3'157'200}));
    auto time = [](const std::function<void()>& f) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    std::string plain, summed;
    const double t_plain = time([&] { plain = ywb::encodeSafetensors(t, {{"k", "v"}}, false); });
    const double t_summed = time([&] { summed = ywb::encodeSafetensors(t, {{"k", "v"}}, true); });
    const double t_crc = time([&] {
      volatile uint32_t c =
          ywb::crc32Update(0, reinterpret_cast<const uint8_t*>(summed.data()), summed.size());
      (void)c;
    });
    ywb::SafetensorsFile f;
    const double t_read = time([&] {
      f = ywb::decodeSafetensors(reinterpret_cast<const uint8_t*>(summed.data()), summed.size(), "mem");
    });
    QVERIFY(f.checksummed);
    qInfo(
        "%.1f MB checkpoint: encode %.1f ms plain, %.1f ms with checksums; CRC-32 pass %.1f ms "
        "(%.2f GB/s); checked read %.1f ms",
        double(summed.size()) / 1e6, t_plain, t_summed, t_crc, double(summed.size()) / 1e6 / t_crc, t_read);
    summed[summed.size() - 1000] = char(summed[summed.size() - 1000] ^ 0x10);
    QVERIFY(!errorOf([&] {
               ywb::decodeSafetensors(reinterpret_cast<const uint8_t*>(summed.data()), summed.size(), "m");
             }).empty());
  }
};

QTEST_GUILESS_MAIN(TestResume)
#include "test_resume.moc"
