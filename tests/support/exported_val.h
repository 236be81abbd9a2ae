// `ywb val` of weights or an exported model on the shapes fixture, and the comparison of an export's numbers
// with its weights' (test_onnx_val, test_export_torchscript). An export differs from its weights only by
// rounding (BatchNorm folded into the convolutions, another runtime's kernels: scores within ~1e-5), so the
// COCO numbers agree to 1e-3, precision and recall to 5e-3.
#pragma once
#include <QtTest>
#include <cmath>
#include <string>

#include "ywb/inference.h"

constexpr double kTol = 1e-3;  // rounding of a second runtime (see the file comment)

inline ywb::ValReport val(const std::string& data, const std::string& weights, bool rect = true,
                          int imgsz = 0) {
  ywb::ValOptions o;
  o.data = data;
  o.weights = weights;
  o.imgsz = imgsz;
  o.batch = 32;
  o.workers = 1;
  o.rect = rect;
  return ywb::validateWeights(o);
}

inline void compareMetrics(const ywb::ValReport& got, const ywb::ValReport& ref) {
  qInfo("%s: mAP50-95 %.5f mAP50 %.5f P %.4f R %.4f | %s: %.5f %.5f %.4f %.4f", got.runtime.c_str(),
        got.metrics.map, got.metrics.map50, got.metrics.precision, got.metrics.recall, ref.runtime.c_str(),
        ref.metrics.map, ref.metrics.map50, ref.metrics.precision, ref.metrics.recall);
  QCOMPARE(got.metrics.images, ref.metrics.images);
  QCOMPARE(got.metrics.instances, ref.metrics.instances);
  QVERIFY(ref.metrics.map > 0.05);  // a trained model: the comparison means something
  QVERIFY(std::fabs(got.metrics.map - ref.metrics.map) <= kTol);
  QVERIFY(std::fabs(got.metrics.map50 - ref.metrics.map50) <= kTol);
  QVERIFY(std::fabs(got.metrics.precision - ref.metrics.precision) <= 5 * kTol);
  QVERIFY(std::fabs(got.metrics.recall - ref.metrics.recall) <= 5 * kTol);
}
