// The training loader's shuffle order on one rank is Ultralytics' own: PyTorch's RandomSampler on the loader
// generator Ultralytics seeds with a constant, one persistent iterator, rebuilt where Mosaic closes.
#include <torch/version.h>
#include <QtTest>
#include <algorithm>
#include <numeric>

#include "data/sampler.h"

namespace {

std::vector<size_t> head(const std::vector<size_t>& v, size_t k) {
  return {v.begin(), v.begin() + long(std::min(k, v.size()))};
}

}  // namespace

class TestSamplerOrder : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void matchesPyTorchDataLoader() {
#if TORCH_VERSION_MAJOR != 1 || TORCH_VERSION_MINOR != 13
    QSKIP("the reference indices are PyTorch 1.13's; this LibTorch's generator may differ");
#endif
    // Reference: tests/bench/pytorch_loader_order.py 40 4 2 6 3 4 (a real PyTorch 1.13 DataLoader seeded as
    // Ultralytics' one-process loader (RANK -1), two worker processes, prefetch 4, rebuilt at epoch 3) and
    // ... 40 4 2 4 0 4 (rebuilt at epoch 0): the first ten indices of the epochs below.
    using V = std::vector<size_t>;
    QCOMPARE(head(ywb::ultralyticsTrainOrder(40, 0, 3), 10), (V{23, 12, 8, 38, 29, 22, 30, 3, 31, 28}));
    QCOMPARE(head(ywb::ultralyticsTrainOrder(40, 1, 3), 10), (V{6, 18, 16, 34, 15, 5, 23, 7, 13, 9}));
    QCOMPARE(head(ywb::ultralyticsTrainOrder(40, 3, 3), 10), (V{39, 37, 11, 16, 38, 27, 22, 15, 19, 35}));
    QCOMPARE(head(ywb::ultralyticsTrainOrder(40, 4, 3), 10), (V{39, 29, 27, 16, 35, 3, 20, 37, 28, 19}));
    QCOMPARE(head(ywb::ultralyticsTrainOrder(40, 0, 0), 10), (V{6, 30, 35, 11, 10, 18, 34, 25, 19, 7}));
  }

  void everyEpochIsAPermutationIndependentOfTheRunSeed() {
    // Invariants: each epoch visits every index once; consecutive epochs differ; a reset changes the order
    // from its epoch on and not before; the function takes no seed (Ultralytics' order ignores seed=).
    const size_t n = 97;
    std::vector<size_t> all(n);
    std::iota(all.begin(), all.end(), size_t(0));
    for (int e = 0; e < 4; ++e) {
      std::vector<size_t> o = ywb::ultralyticsTrainOrder(n, e, -1);
      QCOMPARE(o.size(), n);
      std::sort(o.begin(), o.end());
      QCOMPARE(o, all);
    }
    QVERIFY(ywb::ultralyticsTrainOrder(n, 1, -1) != ywb::ultralyticsTrainOrder(n, 2, -1));
    QCOMPARE(ywb::ultralyticsTrainOrder(n, 1, 2), ywb::ultralyticsTrainOrder(n, 1, -1));
    QVERIFY(ywb::ultralyticsTrainOrder(n, 2, 2) != ywb::ultralyticsTrainOrder(n, 2, -1));
    QVERIFY(ywb::ultralyticsTrainOrder(0, 3, -1).empty());
    // The previous epoch's order comes from the same replay and equals a separate call's.
    std::vector<size_t> prev{1};
    ywb::ultralyticsTrainOrder(n, 3, 2, &prev);
    QCOMPARE(prev, ywb::ultralyticsTrainOrder(n, 2, 2));
    ywb::ultralyticsTrainOrder(n, 0, -1, &prev);
    QVERIFY(prev.empty());
  }
};

QTEST_GUILESS_MAIN(TestSamplerOrder)
#include "test_sampler_order.moc"
