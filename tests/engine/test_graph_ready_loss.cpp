// The graph-ready loss (issue 33): DetectionLossOptions::fixed_shapes computes the same assignment and loss
// with no data-dependent shape and no host read, so that a CUDA graph could capture it with the step.
//
// Against the default loss (which Ultralytics' numbers pin, test_parity_loss): the fg mask and the assigned
// GT index identical; the loss items and total within 1e-6 relative; the gradients w.r.t. the head maps
// within 1e-5 relative (of the largest gradient). Not bit for bit, by construction: the fixed path sums its
// box and DFL/L1 terms over all B x A anchors (zeros on background) where the default sums over the K
// positives, and its CIoU runs on [B,M,A] tensors where the default's runs on [K] gathered pairs (ATen's
// vectorised and scalar loops round a transcendental's last bit differently, and an element's loop depends on
// its position). The same per-element arithmetic otherwise, so the differences are float summation order
// (measured: below).
//
// Checked on every loss fixture of Ultralytics (8.3's YOLOv8n/YOLO11n, DFL; 8.4's YOLO26n end-to-end, reg_max
// 1, L1, top-k 7 then 1, the small-box rule), on their targets padded to a larger capacity
// (padGroupedTargets: the fixed path's results then do not change at all, since padding rows only add exact
// zeros), and on hand batches: an image without boxes, a batch without boxes, boxes smaller than a stride, an
// anchor claimed by two GTs, class weights (cls_pw). A CPU stand-in for graph capture: the ATen ops the fixed
// loss runs, forward and backward, observed through RecordFunction, hold no nonzero, masked_select,
// item/_local_scalar_dense, is_nonzero or boolean index/index_put, and two batches with different box counts
// at one capacity run the same op sequence with the same shapes; the default loss trips the same check.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "aten_op_log.h"
#include "core/error.h"
#include "data/grouped_targets.h"
#include "data/sample_builder.h"
#include "data/target_capacity.h"
#include "loss/end_to_end_loss.h"
#include "loss_fixtures.h"

namespace fs = std::filesystem;
using ywb::GroupedTargets;
using ywb::loss::DetectionLoss;
using ywb::loss::DetectionLossOptions;
using ywb::loss::EndToEndLoss;

namespace {

// One loss problem: options, the maps (one branch; an end-to-end loss's one-to-many then one-to-one maps),
// grouped targets.
struct Case {
  DetectionLossOptions opt;
  bool e2e = false;
  double o2m = 1.0;
  std::vector<at::Tensor> maps;
  GroupedTargets targets;
};

struct Outcome {
  at::Tensor total, items;                         // items: [3], or an end-to-end loss's two branches' [6]
  std::vector<at::Tensor> grads;                   // d total / d map, one per map
  std::vector<ywb::loss::Assignment> assignments;  // per branch
};

DetectionLossOptions withFixed(DetectionLossOptions o, bool fixed) {
  o.fixed_shapes = fixed;
  return o;
}

Outcome evaluate(const Case& c, bool fixed, const GroupedTargets& targets) {
  std::vector<at::Tensor> leaves;
  for (const auto& m : c.maps) leaves.push_back(m.detach().clone().requires_grad_(true));
  const DetectionLossOptions o = withFixed(c.opt, fixed);
  Outcome out;
  if (c.e2e) {
    const EndToEndLoss loss(o);
    const std::vector<at::Tensor> many(leaves.begin(), leaves.begin() + 3),
        one(leaves.begin() + 3, leaves.end());
    const auto r = loss({many, one}, targets, c.o2m);
    out.total = r.total.detach();
    out.items = at::cat({r.items, r.one2many_items});
    r.total.backward();
    out.assignments = {loss.one2many().assignment(many, targets), loss.one2one().assignment(one, targets)};
  } else {
    const DetectionLoss loss(o);
    const auto r = loss(leaves, targets);
    out.total = r.total.detach();
    out.items = r.items;
    r.total.backward();
    out.assignments = {loss.assignment(leaves, targets)};
  }
  for (const auto& l : leaves) out.grads.push_back(l.grad());
  return out;
}

double relative(const at::Tensor& a, const at::Tensor& b) {
  const double scale = b.abs().max().item<double>();
  const double diff = (a - b).abs().max().item<double>();
  return scale > 0 ? diff / scale : diff;
}

// The fixed path against the default: assignment identical, items and total within 1e-6 relative (each
// item against itself), gradients within 1e-5 relative. Returns the largest relative difference seen.
double expectSameLoss(const Outcome& fixed, const Outcome& ref, const std::string& what) {
  double worst = 0;
  for (size_t i = 0; i < ref.assignments.size(); ++i) {
    const auto &f = fixed.assignments[i], &r = ref.assignments[i];
    if (!f.fg_mask.equal(r.fg_mask) || !f.gt_index.equal(r.gt_index) || !f.labels.equal(r.labels))
      QTest::qFail((what + ": assignment differs, branch " + std::to_string(i)).c_str(), __FILE__, __LINE__);
    worst = std::max(worst, relative(f.scores, r.scores));
  }
  for (int64_t i = 0; i < ref.items.numel(); ++i) {
    const double a = fixed.items[i].item<double>(), b = ref.items[i].item<double>();
    const double rel = std::abs(a - b) / std::max(std::abs(b), 1e-30);
    worst = std::max(worst, a == b ? 0.0 : rel);
    if (a != b && rel > 1e-6)
      QTest::qFail((what + ": item " + std::to_string(i) + " fixed " + std::to_string(a) + ", default " +
                    std::to_string(b) + ", relative " + std::to_string(rel))
                       .c_str(),
                   __FILE__, __LINE__);
  }
  const double rt = relative(fixed.total, ref.total);
  if (rt > 1e-6) QTest::qFail((what + ": total, relative " + std::to_string(rt)).c_str(), __FILE__, __LINE__);
  for (size_t i = 0; i < ref.grads.size(); ++i) {
    const double rg = relative(fixed.grads[i], ref.grads[i]);
    worst = std::max(worst, rg);
    if (!fixed.grads[i].isfinite().all().item<bool>() || rg > 1e-5)
      QTest::qFail(
          (what + ": gradient of map " + std::to_string(i) + ", relative " + std::to_string(rg)).c_str(),
          __FILE__, __LINE__);
  }
  return worst;
}

// The fixed path's results with `more` extra padding rows are the same bits: padding rows only add exact
// zeros to sums over the GTs (counts, indices, maxima), and the anchor sums do not see them.
void expectPaddingChangesNothing(const Case& c, const Outcome& fixed, int64_t more, const std::string& what) {
  const GroupedTargets padded = ywb::padGroupedTargets(c.targets, c.targets.mask.size(1) + more);
  QCOMPARE(padded.mask.size(1), c.targets.mask.size(1) + more);
  const Outcome p = evaluate(c, true, padded);
  QVERIFY2(p.items.equal(fixed.items) && p.total.equal(fixed.total),
           (what + ": padding changed the loss").c_str());
  for (size_t i = 0; i < p.grads.size(); ++i)
    QVERIFY2(p.grads[i].equal(fixed.grads[i]), (what + ": padding changed a gradient").c_str());
  for (size_t i = 0; i < p.assignments.size(); ++i)
    QVERIFY2(p.assignments[i].fg_mask.equal(fixed.assignments[i].fg_mask) &&
                 p.assignments[i].gt_index.equal(fixed.assignments[i].gt_index),
             (what + ": padding changed the assignment").c_str());
}

// Rows (image, class, cx, cy, w, h) normalised, as the loader makes them.
at::Tensor rows(const std::vector<std::vector<float>>& r) {
  at::Tensor t = at::zeros({int64_t(r.size()), 6});
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = 0; j < 6; ++j) t[int64_t(i)][int64_t(j)] = r[i][j];
  return t;
}

// Random maps of a 128 x 128 input (strides 8, 16, 32: 16x16, 8x8, 4x4) for `batch` images.
std::vector<at::Tensor> randomMaps(int64_t batch, int64_t channels, uint64_t seed, double box_mean) {
  at::manual_seed(seed);
  std::vector<at::Tensor> maps;
  for (const int64_t g : {16, 8, 4}) {
    at::Tensor m = at::randn({batch, channels, g, g});
    m.narrow(1, 0, channels - 5).mul_(1.5).add_(box_mean);  // box channels (nc = 5 below)
    maps.push_back(m);
  }
  return maps;
}

// A batch of 4 images with 3, 0, 9 and 1 boxes: two smaller than the finest stride (5 and 3 px at 128 px),
// one larger than half the image, one that reaches the border.
at::Tensor mixedRows() {
  return rows({{0, 1, 0.30f, 0.40f, 0.20f, 0.25f},
               {0, 4, 0.70f, 0.70f, 0.04f, 0.03f},  // 5 x 4 px: under a stride
               {0, 2, 0.50f, 0.50f, 0.60f, 0.55f},
               {2, 0, 0.10f, 0.10f, 0.15f, 0.12f},
               {2, 1, 0.20f, 0.80f, 0.10f, 0.20f},
               {2, 2, 0.40f, 0.40f, 0.02f, 0.05f},  // 3 x 6 px
               {2, 3, 0.60f, 0.30f, 0.30f, 0.20f},
               {2, 4, 0.80f, 0.80f, 0.25f, 0.30f},
               {2, 0, 0.50f, 0.60f, 0.10f, 0.10f},
               {2, 1, 0.95f, 0.50f, 0.10f, 0.40f},
               {2, 2, 0.30f, 0.65f, 0.18f, 0.08f},
               {2, 3, 0.70f, 0.10f, 0.12f, 0.15f},
               {3, 2, 0.50f, 0.50f, 0.90f, 0.90f}});
}

// Two GTs of one image with the same centre and nearly the same size: their candidate anchors and top-10
// lists overlap, so anchors are claimed by both and the several-GTs rule decides.
at::Tensor twinRows() {
  return rows({{0, 0, 0.50f, 0.50f, 0.30f, 0.30f},
               {0, 1, 0.50f, 0.52f, 0.32f, 0.27f},
               {1, 2, 0.3f, 0.3f, 0.2f, 0.2f}});
}

Case makeCase(const std::string& name) {
  Case c;
  c.opt.nc = 5;
  c.opt.strides = {8, 16, 32};
  at::Tensor t = mixedRows();
  int64_t batch = 4;
  if (name == "yolov8 mixed" || name == "yolov8 8.3 rules" || name == "yolov8 class weights" ||
      name == "yolov8 two GTs claim an anchor" || name == "yolov8 no boxes") {
    c.opt.reg_max = 16;
    c.maps = randomMaps(batch, 4 * 16 + 5, 7, 0.0);
  } else {  // YOLO26: reg_max 1, distances in grid units (some negative: degenerate predicted boxes)
    c.opt.reg_max = 1;
    c.e2e = true;
    c.o2m = 0.8;
    std::vector<at::Tensor> many = randomMaps(batch, 4 + 5, 11, 1.5), one = randomMaps(batch, 4 + 5, 12, 1.5);
    c.maps = many;
    c.maps.insert(c.maps.end(), one.begin(), one.end());
  }
  if (name == "yolov8 8.3 rules") c.opt.small_box_rule = false;
  if (name == "yolov8 class weights" || name == "yolo26 class weights")
    c.opt.class_weights = at::tensor({0.5f, 2.0f, 1.0f, 0.25f, 1.25f});
  if (name == "yolov8 two GTs claim an anchor") t = twinRows();
  if (name == "yolov8 no boxes" || name == "yolo26 no boxes") t = at::zeros({0, 6});
  c.targets = ywb::groupTargets(t, batch, c.opt.nc);
  return c;
}

using aten_op_log::observe;
using aten_op_log::OpLog;

}  // namespace

class TestGraphReadyLoss : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(1); }  // the same reductions in every run

  void everyUltralyticsFixture_data() {
    QTest::addColumn<QString>("path");
    const auto files = loss_fixtures::fixtureFiles(/*with84=*/true);
    QVERIFY2(files.size() >= 5, "expected the loss-*.safetensors fixtures of ultralytics and ultralytics84");
    for (const auto& f : files)
      QTest::newRow((fs::path(f).parent_path().filename() / fs::path(f).filename()).string().c_str())
          << QString::fromStdString(f);
  }
  // The fixture's stored heads and targets, as test_parity_loss's lossOnUltralyticsHeads runs them.
  void everyUltralyticsFixture() {
    QFETCH(QString, path);
    const ywb::SafetensorsFile f = ywb::readSafetensors(path.toStdString());
    const auto& meta = f.metadata;
    Case c;
    c.opt.nc = std::stoi(meta.at("nc"));
    c.opt.gains = loss_fixtures::fixtureGains(meta);
    c.opt.small_box_rule = loss_fixtures::isUltralytics84(f);
    if (f.contains("expected.head.0")) {
      c.maps = {f.at("expected.head.0"), f.at("expected.head.1"), f.at("expected.head.2")};
    } else {
      const int64_t imgsz = std::stoi(meta.at("imgsz"));
      c.opt.reg_max = f.at("expected.one2many.boxes").size(1) / 4;
      c.maps = loss_fixtures::branchMaps(f, "one2many", imgsz, c.opt.strides);
      if (f.contains("expected.one2one.boxes")) {
        c.e2e = true;
        c.o2m = std::stod(meta.at("o2m"));
        for (const auto& m : loss_fixtures::branchMaps(f, "one2one", imgsz, c.opt.strides))
          c.maps.push_back(m);
      }
    }
    c.targets = ywb::groupTargets(f.at("input.targets"), c.maps[0].size(0), c.opt.nc);
    const Outcome ref = evaluate(c, false, c.targets), fixed = evaluate(c, true, c.targets);
    QVERIFY(ref.assignments[0].fg_mask.any().item<bool>());  // the fixture assigns something
    const double worst = expectSameLoss(fixed, ref, fs::path(path.toStdString()).filename().string());
    expectPaddingChangesNothing(c, fixed, 13, "fixture");
    qInfo("largest relative difference fixed vs default: %.3g", worst);
  }

  void handBatches_data() {
    QTest::addColumn<QString>("name");
    for (const char* n :
         {"yolov8 mixed", "yolov8 8.3 rules", "yolov8 class weights", "yolov8 two GTs claim an anchor",
          "yolov8 no boxes", "yolo26 mixed", "yolo26 class weights", "yolo26 no boxes"})
      QTest::newRow(n) << QString(n);
  }
  void handBatches() {
    QFETCH(QString, name);
    const Case c = makeCase(name.toStdString());
    const Outcome ref = evaluate(c, false, c.targets), fixed = evaluate(c, true, c.targets);
    const double worst = expectSameLoss(fixed, ref, name.toStdString());
    const bool none = c.targets.mask.size(1) == 0;
    QCOMPARE(ref.assignments[0].fg_mask.any().item<bool>(), !none);
    // A batch without boxes at a capacity of 8: the fixed path sees 8 padding rows, the default none (its
    // early return); the same loss (only the class term, every target 0).
    expectPaddingChangesNothing(c, fixed, 8, name.toStdString());
    if (none) {
      const Outcome cap = evaluate(c, true, ywb::padGroupedTargets(c.targets, 8));
      expectSameLoss(cap, ref, name.toStdString() + " at capacity 8");
      QCOMPARE(ref.items[0].item<double>(), 0.0);  // no box term without boxes
    }
    qInfo("largest relative difference fixed vs default: %.3g", worst);
  }

  // The several-GTs rule is exercised: an anchor that each twin GT takes on its own is taken by both in the
  // batch (the top-k lists are per GT, independent of the other GTs), so the rule must pick one.
  void twinGtsClaimTheSameAnchors() {
    const Case c = makeCase("yolov8 two GTs claim an anchor");
    const auto alone = [&](int64_t keep) {  // image 0 with only GT `keep`
      GroupedTargets g{c.targets.labels.clone(), c.targets.xywh.clone(), c.targets.mask.clone()};
      g.mask[0][1 - keep][0] = 0.0f;
      return DetectionLoss(c.opt).assignment(c.maps, g).fg_mask[0];
    };
    const at::Tensor both = alone(0).logical_and(alone(1));
    QVERIFY2(both.sum().item<int64_t>() >= 2,
             "the twin GTs share no positive anchor: the rule is not exercised");
    for (const bool fixed : {false, true}) {
      const auto as = DetectionLoss(withFixed(c.opt, fixed)).assignment(c.maps, c.targets);
      // Every shared anchor stays positive, with one of the two GTs (the one it overlaps more).
      QVERIFY(as.fg_mask[0].index({both}).all().item<bool>());
      const at::Tensor idx = as.gt_index[0].index({both});
      QVERIFY(idx.le(1).all().item<bool>());
    }
  }

  void targetsPadToCapacity() {
    const GroupedTargets g = ywb::groupTargets(mixedRows(), 4, 5);
    QCOMPARE(g.mask.size(1), int64_t(9));  // image 2's nine boxes
    const GroupedTargets p = ywb::padGroupedTargets(g, 16);
    QCOMPARE(p.labels.sizes().vec(), (std::vector<int64_t>{4, 16, 1}));
    QCOMPARE(p.xywh.sizes().vec(), (std::vector<int64_t>{4, 16, 4}));
    QVERIFY(p.mask.narrow(1, 0, 9).equal(g.mask) && p.xywh.narrow(1, 0, 9).equal(g.xywh));
    QCOMPARE(p.mask.narrow(1, 9, 7).abs().sum().item<double>(), 0.0);
    QCOMPARE(ywb::padGroupedTargets(g, 9).mask.sizes(), g.mask.sizes());
    // Fewer rows than a batch holds: refused, never truncated (a dropped box would change the loss).
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::padGroupedTargets(g, 8));
  }

  // The run's capacity: the largest image's boxes times the images one sample can draw labels from.
  void capacityBoundsEverySample() {
    ywb::ScannedSplit split;
    split.images.resize(3);
    split.images[1].boxes.resize(3);
    split.images[2].boxes.resize(7);
    QCOMPARE(ywb::maxBoxesPerImage(split), int64_t(7));
    ywb::AugmentParams hyp;  // Ultralytics' defaults: Mosaic 1.0, MixUp 0
    QCOMPARE(ywb::SampleBuilder::maxImagesPerSample(hyp), int64_t(4));
    QCOMPARE(ywb::targetCapacity(split, hyp), int64_t(32));  // 7 x 4 = 28, rounded up to a multiple of 8
    hyp.mixup = 0.1;  // MixUp blends two Mosaics: up to 8 images' labels
    QCOMPARE(ywb::targetCapacity(split, hyp), int64_t(56));
    QCOMPARE(ywb::targetCapacity(split, ywb::AugmentParams::none()), int64_t(8));  // letterbox only: 7 -> 8
    QCOMPARE(ywb::targetCapacity(split, ywb::AugmentParams::none(), 1), int64_t(7));
    QCOMPARE(ywb::targetCapacity(ywb::ScannedSplit{}, hyp), int64_t(8));  // no boxes: still a non-empty shape
  }

  // The fixed loss, forward and backward, runs no op that reads data back or shapes by data, and the same ops
  // on the same shapes for batches of 13 and 4 boxes padded to one capacity; the default trips the check.
  void noDataDependentOps_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("yolov8") << QString("yolov8 mixed");
    QTest::newRow("yolo26 end-to-end") << QString("yolo26 class weights");
  }
  void noDataDependentOps() {
    QFETCH(QString, name);
    const Case c = makeCase(name.toStdString());
    const int64_t capacity = 16;
    const GroupedTargets many = ywb::padGroupedTargets(c.targets, capacity);
    const GroupedTargets few =
        ywb::padGroupedTargets(ywb::groupTargets(rows({{0, 1, 0.3f, 0.3f, 0.2f, 0.2f},
                                                       {1, 2, 0.6f, 0.6f, 0.03f, 0.02f},
                                                       {1, 0, 0.5f, 0.4f, 0.5f, 0.3f},
                                                       {3, 4, 0.2f, 0.7f, 0.1f, 0.3f}}),
                                                 4, c.opt.nc),
                               capacity);
    const OpLog a = observe([&] { evaluate(c, true, many); });
    const OpLog b = observe([&] { evaluate(c, true, few); });
    QVERIFY2(a.ops.size() > 100, "the observer saw no ops");
    // The backward pass is in the log too (autograd runs a CPU graph on the calling thread).
    QVERIFY2(std::any_of(a.ops.begin(), a.ops.end(),
                         [](const std::string& op) { return op.find("Backward") != std::string::npos; }),
             "the observer saw no backward op");
    for (const auto& v : a.violations) qWarning("fixed path: %s", v.c_str());
    QVERIFY(a.violations.empty() && b.violations.empty());
    QCOMPARE(a.ops.size(), b.ops.size());
    for (size_t i = 0; i < a.ops.size(); ++i)
      QVERIFY2(a.ops[i] == b.ops[i],
               ("op " + std::to_string(i) + ": " + a.ops[i] + " vs " + b.ops[i]).c_str());
    qInfo("%zu ops, the same sequence and shapes for 13 and 4 boxes at capacity %lld", a.ops.size(),
          (long long)capacity);

    // The check can fail: the default path finds candidates and positives with nonzero / boolean indexing.
    const OpLog d = observe([&] { evaluate(c, false, many); });
    QVERIFY2(!d.violations.empty(), "the default loss passed the check: the check sees nothing");
    qInfo("default path: %zu data-dependent ops, e.g. %s", d.violations.size(), d.violations.front().c_str());
  }
};

QTEST_GUILESS_MAIN(TestGraphReadyLoss)
#include "test_graph_ready_loss.moc"
