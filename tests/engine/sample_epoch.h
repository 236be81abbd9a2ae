// A sample epoch event shared by the run-record tests (test_run_record, test_results_csv): every field set
// to a distinct value, so a field a writer forgets or a reader maps to the wrong name comes back as 0 (or
// another field's value) and fails the comparison.
#pragma once
#include "ywb/train_events.h"

namespace ywb::test {

inline EpochMetrics sampleEpoch() {
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

}  // namespace ywb::test
