// NMS: hand-worked overlaps, greedy chains, ties, zero boxes, class-aware vs agnostic, the block path.
#include <QtTest>

#include "eval/nms.h"
#include "ywb/error.h"

using ywb::eval::greedyNmsCpu;
using ywb::eval::nonMaxSuppression;

namespace {

struct Cand {
  float cx, cy, w, h;
  int cls;
  float score;
};

// Builds a [1, 4 + nc, A] head output: anchor a carries box a and `score` on its class, 0 elsewhere.
at::Tensor head(const std::vector<Cand>& c, int nc) {
  at::Tensor p = at::zeros({1, 4 + nc, int64_t(c.size())});
  auto a = p.accessor<float, 3>();
  for (size_t i = 0; i < c.size(); ++i) {
    a[0][0][long(i)] = c[i].cx, a[0][1][long(i)] = c[i].cy, a[0][2][long(i)] = c[i].w,
    a[0][3][long(i)] = c[i].h;
    a[0][4 + c[i].cls][long(i)] = c[i].score;
  }
  return p;
}

std::vector<float> col(const at::Tensor& t, int64_t c) {
  const at::Tensor x = t.select(1, c).contiguous().cpu();
  return std::vector<float>(x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
}

}  // namespace

class TestEvalNms : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void handWorkedOverlaps() {
    // 100x100 boxes shifted along x: IoU(shift s) = (100 - s) * 100 / ((100 + s) * 100) = (100 - s)/(100 +
    // s). A at x=50 (0.9), B at +10 (0.8): IoU 90/110 = 0.818 > 0.7 -> B suppressed. C at +30 (0.7): IoU with
    // A 70/130 = 0.538 -> kept at 0.7, suppressed at 0.5.
    const at::Tensor p =
        head({{50, 50, 100, 100, 0, 0.9f}, {60, 50, 100, 100, 0, 0.8f}, {80, 50, 100, 100, 0, 0.7f}}, 2);
    at::Tensor out = nonMaxSuppression(p, 0.001, 0.7)[0];
    QCOMPARE(out.size(0), int64_t(2));
    QCOMPARE(out.size(1), int64_t(6));
    QCOMPARE(col(out, 4), (std::vector<float>{0.9f, 0.7f}));
    // xywh -> corners: A = (0, 0, 100, 100), C = (30, 0, 130, 100); class 0.
    QCOMPARE(col(out, 0), (std::vector<float>{0, 30}));
    QCOMPARE(col(out, 2), (std::vector<float>{100, 130}));
    QCOMPARE(col(out, 5), (std::vector<float>{0, 0}));
    out = nonMaxSuppression(p, 0.001, 0.5)[0];
    QCOMPARE(col(out, 4), (std::vector<float>{0.9f}));
  }

  void greedyChain() {
    // A (0.9), B at +20 (0.8), C at +40 (0.7), threshold 0.5: IoU(A,B) = 80/120 = 0.667 suppresses B;
    // IoU(B,C) = 0.667 but B is gone, and IoU(A,C) = 60/140 = 0.43: greedy keeps A and C.
    const at::Tensor p =
        head({{50, 50, 100, 100, 0, 0.9f}, {70, 50, 100, 100, 0, 0.8f}, {90, 50, 100, 100, 0, 0.7f}}, 1);
    QCOMPARE(col(nonMaxSuppression(p, 0.001, 0.5)[0], 4), (std::vector<float>{0.9f, 0.7f}));
  }

  void detBoxesFromTensor() {
    const at::Tensor out = nonMaxSuppression(head({{50, 50, 100, 100, 2, 0.9f}}, 3))[0];
    const std::vector<ywb::DetBox> b = ywb::eval::detBoxesFromTensor(out);
    QCOMPARE(b.size(), size_t(1));
    QCOMPARE(b[0].x1, 0.0f);
    QCOMPARE(b[0].y2, 100.0f);
    QCOMPARE(b[0].score, 0.9f);
    QCOMPARE(b[0].cls, 2);
  }

  void classAwareVersusAgnostic() {
    // Two identical boxes of different classes: class-aware keeps both, agnostic keeps the better one.
    const at::Tensor p = head({{50, 50, 40, 40, 0, 0.6f}, {50, 50, 40, 40, 1, 0.8f}}, 2);
    at::Tensor out = nonMaxSuppression(p, 0.001, 0.7, 300, /*agnostic=*/false)[0];
    QCOMPARE(col(out, 5), (std::vector<float>{1, 0}));
    out = nonMaxSuppression(p, 0.001, 0.7, 300, /*agnostic=*/true)[0];
    QCOMPARE(col(out, 5), (std::vector<float>{1}));
    QCOMPARE(col(out, 4), (std::vector<float>{0.8f}));
  }

  void tiesKeepLowerAnchor() {
    // Equal scores, IoU 90/110 > 0.7: the lower anchor index wins, whichever box it holds.
    at::Tensor out =
        nonMaxSuppression(head({{50, 50, 100, 100, 0, 0.5f}, {60, 50, 100, 100, 0, 0.5f}}, 1))[0];
    QCOMPARE(col(out, 0), (std::vector<float>{0}));
    out = nonMaxSuppression(head({{60, 50, 100, 100, 0, 0.5f}, {50, 50, 100, 100, 0, 0.5f}}, 1))[0];
    QCOMPARE(col(out, 0), (std::vector<float>{10}));
    // Many equal scores, no overlaps: output in anchor order.
    std::vector<Cand> c;
    for (int i = 0; i < 20; ++i) c.push_back({float(20 * i + 5), 5, 10, 10, 0, 0.3f});
    out = nonMaxSuppression(head(c, 1))[0];
    QCOMPARE(out.size(0), int64_t(20));
    const std::vector<float> x1 = col(out, 0);
    for (int i = 0; i < 20; ++i) QCOMPARE(x1[size_t(i)], float(20 * i));
  }

  void zeroBoxes() {
    // Nothing above conf (scores must be strictly greater), no anchors at all, and an empty image in a batch.
    at::Tensor out = nonMaxSuppression(head({{50, 50, 10, 10, 0, 0.25f}}, 3), 0.25)[0];
    QCOMPARE(out.size(0), int64_t(0));
    QCOMPARE(out.size(1), int64_t(6));
    QCOMPARE(out.scalar_type(), at::kFloat);
    out = nonMaxSuppression(at::zeros({1, 84, 0}))[0];
    QCOMPARE(out.size(0), int64_t(0));
    at::Tensor batch =
        at::cat({head({{50, 50, 10, 10, 0, 0.9f}}, 2), head({{50, 50, 10, 10, 1, 0.0f}}, 2)}, 0);
    const auto outs = nonMaxSuppression(batch);
    QCOMPARE(outs.size(), size_t(2));
    QCOMPARE(outs[0].size(0), int64_t(1));
    QCOMPARE(outs[1].size(0), int64_t(0));
    QCOMPARE(greedyNmsCpu(at::zeros({0, 4}), at::zeros({0}, at::kLong), 0.5, 10, false).numel(), int64_t(0));
    const at::Tensor bad = at::zeros({2, 3});
    QVERIFY_EXCEPTION_THROWN(nonMaxSuppression(bad), ywb::Error);
  }

  void maxDetMaxNmsMultiLabel() {
    std::vector<Cand> c;  // ten separate boxes, scores 0.1 .. 1.0 in anchor order
    for (int i = 0; i < 10; ++i) c.push_back({float(20 * i + 5), 5, 10, 10, 0, 0.1f * float(i + 1)});
    at::Tensor out = nonMaxSuppression(head(c, 1), 0.001, 0.7, /*max_det=*/3)[0];
    QCOMPARE(col(out, 4), (std::vector<float>{0.1f * 10, 0.1f * 9, 0.1f * 8}));  // the scores as built
    out = nonMaxSuppression(head(c, 1), 0.001, 0.7, 300, false, /*max_nms=*/4)[0];
    QCOMPARE(out.size(0), int64_t(4));
    QCOMPARE(col(out, 4).back(), 0.1f * 7);
    // multi_label: one anchor scoring 0.6 on class 0 and 0.4 on class 2 gives two detections.
    at::Tensor p = head({{50, 50, 10, 10, 0, 0.6f}}, 3);
    p[0][4 + 2][0] = 0.4f;
    QCOMPARE(nonMaxSuppression(p, 0.001, 0.7)[0].size(0), int64_t(1));
    out = nonMaxSuppression(p, 0.001, 0.7, 300, false, 30000, /*multi_label=*/true)[0];
    QCOMPARE(col(out, 5), (std::vector<float>{0, 2}));
    // Half precision input gives the same boxes.
    QCOMPARE(col(nonMaxSuppression(head(c, 1).to(at::kHalf), 0.001, 0.7, 3)[0], 0),
             (std::vector<float>{180, 160, 140}));
  }

  // Both pipelines (host loops for CPU, tensor ops for CUDA) give identical tensors, ties included: each
  // anchor has one hot class whose score is quantised to steps of 0.05, so many anchors tie.
  void hostLoopEqualsTensorOps() {
    at::manual_seed(11);
    const int64_t nc = 5, A = 600;
    // Four images: the batch-wide pipeline must cut each image's candidates at max_nms and keep images apart
    // (the third has nothing above any conf below: an empty image between two full ones).
    at::Tensor p = at::zeros({4, 4 + nc, A});
    p.narrow(1, 0, 2).uniform_(0, 400);
    p.narrow(1, 2, 2).uniform_(10, 120);
    p.narrow(1, 4, nc).uniform_(0, 0.5);
    const at::Tensor hot = at::randint(0, nc, {4, A}, at::kLong);
    const at::Tensor level = (at::randint(0, 8, {4, A}).to(at::kFloat) * 0.05 + 0.55);
    for (int64_t b = 0; b < 4; ++b) {
      for (int64_t a = 0; a < A; ++a) p[b][4 + hot[b][a].item<int64_t>()][a] = level[b][a];
    }
    p[2].narrow(0, 4, nc).zero_();
    struct Case {
      double conf, iou;
      int max_det;
      bool agnostic;
      int max_nms;
      bool multi;
    };
    for (const Case& c : {Case{0.001, 0.7, 300, false, 30000, false}, Case{0.6, 0.5, 50, false, 30000, false},
                          Case{0.001, 0.45, 300, true, 30000, false}, Case{0.3, 0.6, 100, false, 200, false},
                          Case{0.001, 0.7, 300, false, 37, true}, Case{0.4, 0.7, 300, false, 30000, true},
                          Case{0.4, 0.7, 300, true, 30000, true}}) {
      std::vector<at::Tensor> xa, ya;  // each kept row's anchor (return_idxs)
      const auto x = ywb::eval::nmsHostLoop(p, c.conf, c.iou, c.max_det, c.agnostic, c.max_nms, c.multi, &xa);
      const auto y =
          ywb::eval::nmsTensorOps(p, c.conf, c.iou, c.max_det, c.agnostic, c.max_nms, c.multi, &ya);
      QCOMPARE(x.size(), size_t(4));
      QCOMPARE(y.size(), size_t(4));
      QCOMPARE(xa.size(), size_t(4));
      for (size_t i = 0; i < x.size(); ++i) {
        QVERIFY(i == 2 ? x[i].size(0) == 0 : x[i].size(0) > 5);
        // The anchors agree between the pipelines, and each row is its anchor's column of the head output:
        // the box its centre and size give, and the score of the row's class there.
        QVERIFY(at::equal(xa[i], ya[i]));
        QCOMPARE(xa[i].size(0), x[i].size(0));
        for (int64_t k = 0; k < x[i].size(0); ++k) {
          const int64_t a = xa[i][k].item<int64_t>();
          const at::Tensor column = p[int64_t(i)].select(1, a);  // [4 + nc]
          const float cx = column[0].item<float>(), cy = column[1].item<float>();
          const float hw = column[2].item<float>() / 2, hh = column[3].item<float>() / 2;
          QCOMPARE(x[i][k][0].item<float>(), cx - hw);
          QCOMPARE(x[i][k][3].item<float>(), cy + hh);
          QCOMPARE(x[i][k][4].item<float>(), column[4 + int64_t(x[i][k][5].item<float>())].item<float>());
        }
        QVERIFY2(at::equal(x[i], y[i]), qPrintable(QString("conf %1 iou %2 agnostic %3 multi %4")
                                                       .arg(c.conf)
                                                       .arg(c.iou)
                                                       .arg(c.agnostic)
                                                       .arg(c.multi)));
      }
    }
  }

  void cudaMatchesCpu() {
    if (!at::hasCUDA() || !torch::cuda::is_available()) QSKIP("no CUDA device here");
    at::manual_seed(3);
    const at::Tensor p = at::rand({2, 4 + 5, 3000});
    p.narrow(1, 0, 2).mul_(600);
    p.narrow(1, 2, 2).mul_(80).add_(2);
    const auto cpu = nonMaxSuppression(p, 0.3, 0.6);
    const auto gpu = nonMaxSuppression(p.cuda(), 0.3, 0.6);
    for (size_t i = 0; i < cpu.size(); ++i) {
      QVERIFY(gpu[i].is_cuda());
      QVERIFY(at::allclose(cpu[i], gpu[i].cpu()));
    }
  }
};

QTEST_GUILESS_MAIN(TestEvalNms)
#include "test_eval_nms.moc"
