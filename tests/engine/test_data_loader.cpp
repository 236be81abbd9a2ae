// Tests of the threaded loader: determinism across worker counts, DistributedSampler semantics, rect batches,
// epoch restarts and shutdown mid-epoch, RAM cache, bad files at load time, the preview, and coco128.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <opencv2/core/utility.hpp>

#include "data/dataset_scanner.h"
#include "data/decoded_buffer.h"
#include "data/image_source.h"
#include "data/loader.h"
#include "data/sampler.h"
#include "ywb/preview.h"
#include "ywb/synth.h"

namespace fs = std::filesystem;

namespace {

struct Synth {
  QTemporaryDir dir;
  std::string yaml;
  Synth(int train = 20, int val = 6) {
    ywb::SynthOptions o;
    o.out = dir.path().toStdString();
    o.train = train;
    o.val = val;
    o.imgsz = 160;
    o.seed = 11;
    o.workers = 2;
    yaml = ywb::synthesizeDataset(o).data_yaml;
  }
  std::shared_ptr<ywb::ScannedSplit> split(const char* name) const {
    return std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), name));
  }
};

struct Epoch {
  std::vector<at::Tensor> images, targets;
  std::vector<std::string> paths;
};

// The rest of the epoch the loader is on.
Epoch drain(ywb::DataLoader& l) {
  Epoch e;
  ywb::Batch b;
  while (l.next(b)) {
    e.images.push_back(b.images);
    e.targets.push_back(b.targets);
    e.paths.insert(e.paths.end(), b.paths.begin(), b.paths.end());
  }
  return e;
}

Epoch runEpoch(ywb::DataLoader& l, int epoch) {
  l.startEpoch(epoch);
  return drain(l);
}

bool sameEpoch(const Epoch& a, const Epoch& b) {
  if (a.images.size() != b.images.size() || a.paths != b.paths) return false;
  for (size_t i = 0; i < a.images.size(); ++i) {
    if (!a.images[i].equal(b.images[i]) || !a.targets[i].equal(b.targets[i])) return false;
  }
  return true;
}

ywb::LoaderOptions trainOptions(int workers) {
  ywb::LoaderOptions o;
  o.imgsz = 160;
  o.batch = 4;
  o.workers = workers;
  o.seed = 5;
  o.hyp.mixup = 0.3;
  o.hyp.degrees = 5;
  return o;
}

}  // namespace

class TestDataLoader : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void deterministicAcrossWorkerCounts() {
    Synth ds;
    const auto split = ds.split("train");
    std::vector<Epoch> e0, e1;
    const int cv_threads = cv::getNumThreads();  // OpenCV's own (this test runs first: nothing changed it)
    for (int workers : {0, 1, 3}) {
      ywb::DataLoader l(split, trainOptions(workers));
      // Two or more worker threads switch OpenCV's own threads off for the process (engine/data/loader.cpp);
      // fewer leave them. The batches below are the same either way.
      QCOMPARE(cv::getNumThreads(), workers >= 2 ? 1 : cv_threads);
      QCOMPARE(l.batchesPerEpoch(), size_t(5));  // 20 images / batch 4
      e0.push_back(runEpoch(l, 0));
      e1.push_back(runEpoch(l, 1));
    }
    for (size_t i = 1; i < e0.size(); ++i) {
      QVERIFY2(sameEpoch(e0[0], e0[i]), "epoch 0 differs between worker counts");
      QVERIFY2(sameEpoch(e1[0], e1[i]), "epoch 1 differs between worker counts");
    }
    QVERIFY(!sameEpoch(e0[0], e1[0]));  // a new shuffle and new augmentation every epoch
    QVERIFY(e0[0].paths != e1[0].paths);
    const at::Tensor img = e0[0].images[0];
    QCOMPARE(img.sizes().vec(), (std::vector<int64_t>{4, 3, 160, 160}));
    QCOMPARE(img.scalar_type(), at::kByte);
    for (const auto& t : e0[0].targets) {
      QCOMPARE(t.size(1), int64_t(6));
      if (t.size(0) == 0) continue;
      QVERIFY(t.select(1, 0).min().item<float>() >= 0 && t.select(1, 0).max().item<float>() < 4);
      QVERIFY(t.select(1, 1).min().item<float>() >= 0 && t.select(1, 1).max().item<float>() < 6);
      // Centres and sizes are normalised to the batch image.
      QVERIFY(t.narrow(1, 2, 4).min().item<float>() >= 0 && t.narrow(1, 2, 4).max().item<float>() <= 1);
    }
  }

  void decodedBufferKeepsTheNewestAndCounts() {
    // Capacity 2: inserting 0, 1, 2 evicts 0 (the oldest); a second insert of 1 changes nothing.
    ywb::DecodedBuffer buf(2);
    const cv::Mat a(4, 4, CV_8UC3, cv::Scalar::all(1)), b(4, 4, CV_8UC3, cv::Scalar::all(2)),
        c(4, 4, CV_8UC3, cv::Scalar::all(3));
    buf.insert(0, a);
    buf.insert(1, b);
    buf.insert(1, c);
    buf.insert(2, c);
    QVERIFY(buf.find(0).empty());
    QCOMPARE(int(buf.find(1).at<cv::Vec3b>(0, 0)[0]), 2);  // the first image stored under 1 stays
    QCOMPARE(int(buf.find(2).at<cv::Vec3b>(0, 0)[0]), 3);
    int64_t hits = 0, misses = 0;
    buf.stats(&hits, &misses);
    QCOMPARE(hits, int64_t(2));
    QCOMPARE(misses, int64_t(1));
  }

  void decodedBufferGivesTheSameBatches() {
    // Mosaic partners served from the decoded-image buffer must be the pixels a fresh decode gives: three
    // epochs with the buffer (room for only 6 images, so it also evicts) equal three epochs without it.
    Synth ds(40, 4);
    const auto split = ds.split("train");
    ywb::LoaderOptions off = trainOptions(2), on = trainOptions(2);
    off.decoded_buffer = false;
    on.decoded_buffer_bytes = size_t(160) * 160 * 3 * 6;
    ywb::DataLoader a(split, off), b(split, on);
    for (int epoch = 0; epoch < 3; ++epoch) {
      QVERIFY2(sameEpoch(runEpoch(a, epoch), runEpoch(b, epoch)), "the buffer changed a batch");
    }
    QCOMPARE(a.stats().buffer_hits + a.stats().buffer_misses, int64_t(0));  // no buffer, no lookups
    QVERIFY(b.stats().buffer_hits > 0);    // partners were served from memory
    QVERIFY(b.stats().buffer_misses > 0);  // and images outside the 6 kept were decoded

    // A plain (validation) loader keeps the whole split when it fits: the second epoch decodes nothing
    // (40 lookups, all hits), and its batches equal those of a loader without the buffer.
    ywb::LoaderOptions val_off;
    val_off.imgsz = 160;
    val_off.batch = 8;
    val_off.workers = 2;
    val_off.augment = false;
    val_off.rect = true;
    val_off.shuffle = false;
    val_off.exact_decode = true;
    val_off.hyp = ywb::AugmentParams::none();
    val_off.decoded_buffer = false;
    ywb::LoaderOptions val_on = val_off;
    val_on.decoded_buffer = true;
    ywb::DataLoader c(split, val_off), d(split, val_on);
    QVERIFY(sameEpoch(runEpoch(c, 0), runEpoch(d, 0)));
    const ywb::LoaderStats first = d.stats();
    QCOMPARE(first.buffer_misses, int64_t(40));
    QVERIFY(sameEpoch(runEpoch(c, 1), runEpoch(d, 1)));
    QCOMPARE(d.stats().buffer_hits - first.buffer_hits, int64_t(40));
    QCOMPARE(d.stats().buffer_misses, int64_t(40));
  }

  void distributedSamplerSemantics() {
    // n = 10, world 3: ceil(10/3) = 4 per rank, 12 in all, padded with the first 2 indices again.
    // Without shuffle rank r takes positions r, r+3, r+6, r+9 of 0..9,0,1.
    QCOMPARE(ywb::distributedIndices(10, 0, 3, false, 0, 0), (std::vector<size_t>{0, 3, 6, 9}));
    QCOMPARE(ywb::distributedIndices(10, 1, 3, false, 0, 0), (std::vector<size_t>{1, 4, 7, 0}));
    QCOMPARE(ywb::distributedIndices(10, 2, 3, false, 0, 0), (std::vector<size_t>{2, 5, 8, 1}));
    // Shuffled: every rank uses the same permutation for (seed, epoch), so together they cover everything.
    std::vector<int> seen(10, 0);
    for (int r = 0; r < 3; ++r) {
      for (size_t i : ywb::distributedIndices(10, r, 3, true, 7, 2)) ++seen[i];
    }
    for (int c : seen) QVERIFY(c >= 1);
    QVERIFY(ywb::distributedIndices(10, 0, 1, true, 7, 2) != ywb::distributedIndices(10, 0, 1, true, 7, 3));
    QCOMPARE(ywb::distributedIndices(10, 0, 1, true, 7, 2), ywb::distributedIndices(10, 0, 1, true, 7, 2));
    // Loader per rank: ceil(20/3) = 7 samples -> 2 batches of 4, or 1 with drop_last.
    Synth ds;
    auto o = trainOptions(1);
    o.rank = 1;
    o.world = 3;
    ywb::DataLoader l(ds.split("train"), o);
    QCOMPARE(l.samplesPerEpoch(), size_t(7));
    QCOMPARE(l.batchesPerEpoch(), size_t(2));
    o.drop_last = true;
    ywb::DataLoader l2(ds.split("train"), o);
    QCOMPARE(l2.batchesPerEpoch(), size_t(1));
    QCOMPARE(runEpoch(l2, 0).paths.size(), size_t(4));
  }

  void rectBatches() {
    // Aspects h/w 0.75 and 0.5 (landscape): h = ceil(0.75 * 640/32 + 0.5) * 32 = 16 * 32 = 512, w = 21 * 32 =
    // 672.
    QCOMPARE(ywb::rectBatchShape({0.75, 0.5}, 640, 32), cv::Size(672, 512));
    // Portrait 1.5 and 2: w = ceil(640/1.5/32 + 0.5) * 32 = 14 * 32 = 448, h = 672.
    QCOMPARE(ywb::rectBatchShape({1.5, 2.0}, 640, 32), cv::Size(448, 672));
    QCOMPARE(ywb::rectBatchShape({0.5, 2.0}, 640, 32), cv::Size(672, 672));
    Synth ds;
    ywb::LoaderOptions o;
    o.imgsz = 160;
    o.batch = 2;
    o.workers = 2;
    o.augment = false;
    o.rect = true;
    o.shuffle = false;
    const auto split = ds.split("val");
    ywb::DataLoader l(split, o);
    l.startEpoch(0);
    ywb::Batch b;
    double last_aspect = 0;
    while (l.next(b)) {
      const int64_t h = b.images.size(2), w = b.images.size(3);
      QVERIFY(h % 32 == 0 && w % 32 == 0);
      for (size_t i = 0; i < b.meta.size(); ++i) {
        const auto& m = b.meta[i];
        const double aspect = double(m.orig_h) / m.orig_w;
        QVERIFY(aspect >= last_aspect);  // aspect-sorted
        last_aspect = aspect;
        // The letterboxed image fits: original size * ratio + padding on both sides <= batch size.
        QVERIFY(m.orig_w * m.ratio_w + 2 * m.pad_x <= w + 1 && m.orig_h * m.ratio_h + 2 * m.pad_y <= h + 1);
        // The first label box maps through meta onto the first target row of this image.
        const auto& rec = split->images[size_t(m.index)];
        if (rec.boxes.empty()) continue;
        const at::Tensor rows = b.targets.index({b.targets.select(1, 0) == float(i)});
        const double cx = rec.boxes[0].cx * m.orig_w * m.ratio_w + m.pad_x;
        QVERIFY(std::abs(rows[0][2].item<float>() * w - cx) < 0.05);
      }
    }
  }

  void restartAndShutdownMidEpoch() {
    Synth ds;
    const auto split = ds.split("train");
    Epoch fresh;
    {
      ywb::DataLoader l(split, trainOptions(2));
      fresh = runEpoch(l, 0);
    }
    {
      ywb::DataLoader l(split, trainOptions(2));
      l.startEpoch(0);
      ywb::Batch b;
      QVERIFY(l.next(b));
      // Restarting abandons the unfinished epoch; the restarted one is the same as a fresh one.
      QVERIFY(sameEpoch(runEpoch(l, 0), fresh));
      l.startEpoch(1);
      QVERIFY(l.next(b));
      QVERIFY(b.wait_seconds >= 0);
      // Destroyed here with workers busy on prefetched batches: must join without hanging.
    }
    ywb::DataLoader never_started(split, trainOptions(3));
  }

  void closeMosaicTurnsMosaicOff() {
    Synth ds;
    ywb::DataLoader l(ds.split("train"), trainOptions(2));
    ywb::Batch b;
    l.startEpoch(0);
    bool any = false;
    while (l.next(b)) {
      for (const auto& m : b.meta) any |= m.mosaic;
    }
    QVERIFY(any);  // mosaic=1.0: every training sample is a mosaic
    l.setMultiImageAugment(false);
    l.startEpoch(1);
    while (l.next(b)) {
      for (const auto& m : b.meta) QVERIFY(!m.mosaic);
    }
  }

  void epochStartedAheadIsTheSameEpoch() {
    // The trainer starts the next epoch during validation (prefetchEpoch) with the settings it predicts;
    // startEpoch keeps that plan only when they are the ones in force and nothing was read from it. Either
    // way the epoch must be the one a plain startEpoch gives: the reference loader's.
    Synth ds;
    const auto split = ds.split("train");
    auto o = trainOptions(2);
    ywb::DataLoader ref(split, o), l(split, o);
    const Epoch r0 = runEpoch(ref, 0), r1 = runEpoch(ref, 1);
    ref.setMultiImageAugment(false);  // close_mosaic from epoch 2: Mosaic off, Ultralytics' order reset
    ref.setOrderResetEpoch(2);
    const Epoch r2 = runEpoch(ref, 2), r3 = runEpoch(ref, 3);
    QVERIFY(sameEpoch(runEpoch(l, 0), r0));
    l.prefetchEpoch(1, true, -1);  // predicted right
    QVERIFY(l.startEpoch(1));      // kept
    QVERIFY(sameEpoch(drain(l), r1));
    l.prefetchEpoch(2, true, 2);  // predicted wrong: Mosaic still on
    l.setMultiImageAugment(false);
    l.setOrderResetEpoch(2);
    QVERIFY(!l.startEpoch(2));  // planned again
    QVERIFY(sameEpoch(drain(l), r2));
    l.prefetchEpoch(3, false, -1);  // predicted wrong: no order reset
    QVERIFY(!l.startEpoch(3));
    QVERIFY(sameEpoch(drain(l), r3));
    l.prefetchEpoch(3, false, 2);  // right, but a batch was read before the epoch started
    ywb::Batch b;
    QVERIFY(l.next(b));
    QVERIFY(!l.startEpoch(3));
    QVERIFY(sameEpoch(drain(l), r3));
    l.prefetchEpoch(3, false, 2);
    QVERIFY(l.startEpoch(3));
    QVERIFY(sameEpoch(drain(l), r3));
  }

  void ramCacheSameBatchesAndRefusal() {
    Synth ds;
    const auto split = ds.split("train");
    ywb::ImageSource src(split, 160);
    // 20 images of at most 160x160x3 bytes: far more than 1000 bytes.
    const std::string note = src.enableRamCache(1, 1000);
    QVERIFY2(note.find("RAM cache refused") != std::string::npos, note.c_str());
    QVERIFY(!src.cached());
    QVERIFY(src.enableRamCache(2).empty());
    QVERIFY(src.cached());
    auto o = trainOptions(2);
    ywb::DataLoader plain(split, o);
    o.cache_ram = true;
    ywb::DataLoader cached(split, o);
    QVERIFY(cached.cacheNote().empty());
    QVERIFY(sameEpoch(runEpoch(plain, 0), runEpoch(cached, 0)));
  }

  void unreadableFileAtLoadTimeIsSkipped() {
    Synth ds;
    const auto split = ds.split("train");
    fs::remove(split->images[3].image);  // vanishes after the scan
    auto o = trainOptions(2);
    o.shuffle = false;
    o.hyp.mosaic = 0;
    o.hyp.mixup = 0;
    ywb::DataLoader l(split, o);
    const Epoch e = runEpoch(l, 0);
    QCOMPARE(e.paths.size(), size_t(20));
    QVERIFY(l.stats().load_errors >= 1);
    const auto errors = l.takeErrors();
    QVERIFY(!errors.empty());
    QVERIFY(errors[0].find(split->images[3].image) != std::string::npos);
  }

  void heldBatchesAreNeverRecycled() {
    // Batch buffers are reused once released; a batch (or a view of it) that the consumer still holds must
    // not be.
    Synth ds;
    ywb::DataLoader l(ds.split("train"), trainOptions(2));
    l.startEpoch(0);
    ywb::Batch b;
    std::vector<at::Tensor> views, copies;
    while (l.next(b)) {
      views.push_back(b.images[0]);
      copies.push_back(b.images[0].clone());
    }
    runEpoch(l, 1);
    runEpoch(l, 2);
    for (size_t i = 0; i < views.size(); ++i) QVERIFY(views[i].equal(copies[i]));
  }

  void collateConvertsToRgbPlanes() {
    cv::Mat img(1, 2, CV_8UC3);
    img.at<cv::Vec3b>(0, 0) = {1, 2, 3};  // B, G, R
    img.at<cv::Vec3b>(0, 1) = {4, 5, 6};
    at::Tensor t = at::zeros({3, 1, 2}, at::kByte);
    ywb::collateImage(img, false, t);
    QCOMPARE(t[0][0][0].item<int>(), 3);  // R plane first
    QCOMPARE(t[2][0][1].item<int>(), 4);  // B plane last
    ywb::collateImage(img, true, t);      // already RGB: kept
    QCOMPARE(t[0][0][0].item<int>(), 1);
  }

  void previewIsDeterministic() {
    Synth ds;
    ywb::PreviewOptions o;
    o.data = ds.yaml;
    o.imgsz = 160;
    o.count = 4;
    o.seed = 9;
    ywb::PreviewRenderer r(ds.yaml);
    QCOMPARE(r.images(), size_t(20));
    const ywb::RgbImage a = r.render(o);
    QCOMPARE(a.width, 320);  // 2 x 2 grid of 160 px tiles
    QCOMPARE(a.height, 320);
    QCOMPARE(a.rgb.size(), size_t(320 * 320 * 3));
    QVERIFY(a.rgb == ywb::renderPreview(o).rgb);
    o.seed = 10;
    QVERIFY(a.rgb != r.render(o).rgb);
    o.count = 3;  // 3 samples still use a 2-column grid
    QCOMPARE(r.render(o).height, 320);
    QTemporaryDir out;
    ywb::saveRgbImage(a, out.path().toStdString() + "/p.jpg");
    QVERIFY(fs::file_size(out.path().toStdString() + "/p.jpg") > 1000);
  }

  void coco128Batch() {
    const std::string yaml = std::string(YW_SHARED_DIR) + "/datasets/coco128/data.yaml";
    auto split = std::make_shared<ywb::ScannedSplit>(ywb::scanSplit(ywb::loadDataConfig(yaml), "train"));
    QCOMPARE(split->images.size(), size_t(128));
    ywb::LoaderOptions o;
    o.workers = 2;
    ywb::DataLoader l(split, o);
    QCOMPARE(l.batchesPerEpoch(), size_t(8));
    l.startEpoch(0);
    ywb::Batch b;
    QVERIFY(l.next(b));
    QCOMPARE(b.images.sizes().vec(), (std::vector<int64_t>{16, 3, 640, 640}));
    QVERIFY(b.targets.size(0) > 16);
  }
};

QTEST_GUILESS_MAIN(TestDataLoader)
#include "test_data_loader.moc"
