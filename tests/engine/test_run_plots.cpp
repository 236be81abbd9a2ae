// The plots of a run folder (plots=true): each picture is read back and its content checked against numbers
// worked out here by hand: tick positions, a smoothed spike, a confusion matrix's shares per true class, a
// precision-recall curve's height at known recalls, a batch grid's tiles and boxes, labels.jpg's bars,
// outlines and histogram colours. Then a real `ywb train` and `ywb val` write them under Ultralytics' names
// (labels, train_batch, val_batch, results, confusion matrices, curves), and plots=false writes none.
#include <ATen/ATen.h>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <opencv2/core.hpp>

#include "cli_runner.h"
#include "data/batch_plot.h"
#include "data/box_drawing.h"
#include "data/image_io.h"
#include "data/labels_plot.h"
#include "eval/metric_plots.h"
#include "eval/plot_canvas.h"
#include "eval/results_plot.h"
#include "ywb/results_csv.h"

namespace {

const QString kData = QString(YW_SHARED_DIR) + "/fixtures/ultralytics/shapes/data.yaml";

// Whether two BGR colours differ by at most `tol` in every channel.
bool near(const cv::Vec3b& a, const cv::Scalar& b, int tol) {
  for (int k = 0; k < 3; ++k)
    if (std::abs(int(a[k]) - int(std::lround(b[k]))) > tol) return false;
  return true;
}

QStringList files(const QString& dir, const QStringList& patterns) {
  return QDir(dir).entryList(patterns, QDir::Files, QDir::Name);
}

}  // namespace

class TestRunPlots : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void ticksAndSmoothing();
  void confusionCellsHoldTheirShares();
  void prCurveReadsBack();
  void batchGridLayout();
  void labelsPlotReadsBack();
  void trainAndValWritePlots();

 private:
  QTemporaryDir tmp_;
};

void TestRunPlots::ticksAndSmoothing() {
  using ywb::plot::niceTicks;
  // [0, 1] in about 6 steps: 0.2 (1, 2 or 5 x 10^k, the first at least 1/6).
  const std::vector<double> unit = niceTicks({0, 1}, 6);
  QCOMPARE(unit.size(), size_t(6));
  for (size_t i = 0; i < unit.size(); ++i) QVERIFY(std::abs(unit[i] - 0.2 * double(i)) < 1e-12);
  // Epochs 1 to 3 with whole steps only: 1, 2, 3 (0.5 would be the nice step otherwise).
  QCOMPARE(niceTicks({0.94, 3.06, 1}, 6), (std::vector<double>{1, 2, 3}));
  // A range around zero holds 0 exactly.
  const std::vector<double> z = niceTicks({-0.001, 0.001}, 6);
  QVERIFY(std::find(z.begin(), z.end(), 0.0) != z.end());
  // A unit spike smoothed with sigma 1 (radius 4, as scipy truncates): its peak is
  // 1 / sum_{d=-4..4} exp(-d^2 / 2) = 1 / 2.506628 = 0.398943, its neighbours exp(-1/2) of that.
  std::vector<double> spike(21, 0.0);
  spike[10] = 1;
  const std::vector<double> s = ywb::smoothSeries(spike, 1.0);
  QVERIFY(std::abs(s[10] - 0.398943) < 1e-5);
  QVERIFY(std::abs(s[9] - 0.398943 * std::exp(-0.5)) < 1e-5);
  QVERIFY(std::abs(s[9] - s[11]) < 1e-12);
  // A constant stays itself (edges reflected); a missing value stays missing and is left out of the others.
  std::vector<double> flat(7, 2.5);
  flat[3] = NAN;
  const std::vector<double> f = ywb::smoothSeries(flat, 3.0);
  QVERIFY(std::isnan(f[3]));
  for (size_t i = 0; i < f.size(); ++i)
    if (i != 3) QVERIFY(std::abs(f[i] - 2.5) < 1e-12);
}

void TestRunPlots::confusionCellsHoldTheirShares() {
  // Two classes and background; rows predicted, columns true.
  //            true c0  c1  bg
  //   pred c0      6    1   2
  //   pred c1      2    3   0
  //   pred bg      2    0   0
  // Column sums 10, 4, 2: normalised c0 column 0.6/0.2/0.2, c1 column 0.25/0.75/0, bg column 1/0/0.
  ywb::ConfusionMatrix m;
  m.num_classes = 2;
  m.counts = {6, 1, 2, 2, 3, 0, 2, 0, 0};
  const std::vector<std::string> names = {"cat", "dog"};
  const double shares[3][3] = {{0.6, 0.25, 1.0}, {0.2, 0.75, 0.0}, {0.2, 0.0, 0.0}};
  for (const bool normalized : {true, false}) {
    const cv::Mat img = ywb::renderConfusionMatrix(m, names, normalized);
    const ywb::ConfusionLayout l = ywb::confusionLayout(m, names);
    QCOMPARE(img.cols, l.image.width);
    QCOMPARE(img.rows, l.image.height);
    for (int row = 0; row < 3; ++row) {
      for (int col = 0; col < 3; ++col) {
        // a pixel in the cell's corner: its fill, clear of the number printed in its middle
        const cv::Rect c = l.cellRect(row, col);
        const cv::Vec3b px = img.at<cv::Vec3b>(c.y + 3, c.x + 3);
        const double v =
            normalized ? shares[row][col] : double(m.at(row, col)) / 6.0;  // counts: over the largest
        if (v == 0)
          QVERIFY2(near(px, cv::Scalar::all(255), 0),
                   qPrintable(QString("cell %1,%2 not blank").arg(row).arg(col)));
        else
          QVERIFY2(near(px, ywb::plot::blues(v), 2),
                   qPrintable(QString("cell %1,%2 (%3)").arg(row).arg(col).arg(v)));
      }
    }
  }
  // The colour map darkens with the value (the invariant a reader relies on).
  double prev = 1e9;
  for (double v = 0; v <= 1.0; v += 0.125) {
    const cv::Scalar c = ywb::plot::blues(v);
    QVERIFY(c[0] + c[1] + c[2] < prev);
    prev = c[0] + c[1] + c[2];
  }
}

void TestRunPlots::prCurveReadsBack() {
  // A mean curve precision = 1 - recall^2 over COCO's 101 recall points, one class that is its own mean.
  ywb::DetectionResults r;
  ywb::MetricCurves& k = r.curves;
  for (int i = 0; i <= 100; ++i) k.recall.push_back(i / 100.0);
  for (const double x : k.recall) k.pr_mean.push_back(1 - x * x);
  k.pr = {k.pr_mean};
  r.per_class.resize(1);
  const cv::Mat img = ywb::renderPrCurve(r, {"shape"});
  QCOMPARE(img.cols, ywb::curvePlotSize().width);
  const cv::Rect area = ywb::plot::Chart::plotArea(ywb::curveFrame());
  for (const double x : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    // the column of recall x; the mean curve's pixels there, averaged, give its height
    const int px = int(std::lround(area.x + x * (area.width - 1)));
    double sum = 0;
    int n = 0;
    for (int y = area.y; y < area.br().y; ++y)
      if (near(img.at<cv::Vec3b>(y, px), ywb::meanCurveColour(), 30)) sum += y, ++n;
    QVERIFY2(n >= 2, qPrintable(QString("no curve at recall %1").arg(x)));
    const double precision = 1 - (sum / n - area.y) / (area.height - 1);
    QVERIFY2(
        std::abs(precision - (1 - x * x)) < 0.01,
        qPrintable(QString("recall %1: precision %2, expected %3").arg(x).arg(precision).arg(1 - x * x)));
  }
}

void TestRunPlots::batchGridLayout() {
  // Five 64 x 48 samples: cols = ceil(sqrt(5)) = 3, rows 2, no scaling: 192 x 96, sample i at (i % 3, i / 3).
  const at::Tensor images = at::zeros({5, 3, 48, 64}, at::kByte);
  for (int i = 0; i < 5; ++i) {
    images[i][0].fill_(10 * i);  // R
    images[i][1].fill_(100);     // G
    images[i][2].fill_(200);     // B
  }
  // Sample 1 holds one box of class 2 in its middle half: corners (16, 12) and (48, 36) of its tile.
  const at::Tensor targets = at::tensor({1.f, 2.f, 0.5f, 0.5f, 0.5f, 0.5f}).reshape({1, 6});
  const cv::Mat grid =
      ywb::renderBatch(images, targets, {"a.jpg", "b.jpg", "c.jpg", "d.jpg", "e.jpg"}, {"x", "y", "z"});
  QCOMPARE(grid.cols, 192);
  QCOMPARE(grid.rows, 96);
  for (int i = 0; i < 5; ++i) {
    const cv::Vec3b px = grid.at<cv::Vec3b>((i / 3) * 48 + 40, (i % 3) * 64 + 56);  // clear of name and box
    QVERIFY2(near(px, cv::Scalar(200, 100, 10 * i), 0), qPrintable(QString("tile %1").arg(i)));
  }
  QVERIFY(near(grid.at<cv::Vec3b>(24, 64 + 16), ywb::classColour(2), 40));      // the box's left edge
  QVERIFY(near(grid.at<cv::Vec3b>(24, 64 + 48), ywb::classColour(2), 40));      // its right edge
  QVERIFY(near(grid.at<cv::Vec3b>(80, 2 * 64 + 32), cv::Scalar::all(255), 0));  // the empty sixth tile
  // Sixteen 640 x 640 samples: 4 x 4 tiles scaled by 1920 / (4 x 640) = 0.75: 1920 x 1920 (the largest side).
  const cv::Mat big = ywb::renderBatch(at::zeros({20, 3, 640, 640}, at::kByte), at::empty({0, 6}), {}, {});
  QCOMPARE(big.cols, 1920);
  QCOMPARE(big.rows, 1920);
}

void TestRunPlots::labelsPlotReadsBack() {
  // numpy's histogram2d of four points in 2 x 2 bins over [0, 1]: x 0 -> bin 0, 0.5 -> bin 1, 1.0 (the upper
  // edge) -> bin 1; y 0 -> 0, 1 -> 1. So (0,0) 1, (1,0) 2, (1,1) 1, (0,1) 0.
  const ywb::Histogram2d h = ywb::histogram2d({0, 0.5, 1, 1}, {0, 0, 0, 1}, 2);
  QCOMPARE(h.at(0, 0), int64_t(1));
  QCOMPARE(h.at(1, 0), int64_t(2));
  QCOMPARE(h.at(1, 1), int64_t(1));
  QCOMPARE(h.at(0, 1), int64_t(0));
  // seaborn's pmax: counts 40, 30, 20, 10 (of 100) taken densest first reach 1 - pmax of the total at
  // 40 (0.4 >= 0.1, pmax 0.9), 30 (0.7 >= 0.5, pmax 0.5) and 20 (0.9 >= 0.8, pmax 0.2).
  QCOMPARE(ywb::saturationCount({10, 40, 30, 20}, 0.9), int64_t(40));
  QCOMPARE(ywb::saturationCount({10, 40, 30, 20}, 0.5), int64_t(30));
  QCOMPARE(ywb::saturationCount({10, 40, 30, 20}, 0.2), int64_t(20));
  QCOMPARE(ywb::saturationCount({0, 0}, 0.9), int64_t(1));

  // Five cats (0.5 x 0.25, centred at 0.2, 0.3) and two birds (0.8 x 0.6 at 0.7, 0.9) of three classes.
  std::vector<ywb::LabelBox> boxes(5, ywb::LabelBox{0, 0.2f, 0.3f, 0.5f, 0.25f});
  boxes.resize(7, ywb::LabelBox{2, 0.7f, 0.9f, 0.8f, 0.6f});
  const std::vector<std::string> names = {"cat", "dog", "bird"};
  const cv::Mat img = ywb::renderLabelsPlot(boxes, 3, names);
  QCOMPARE(img.cols, 1600);
  QCOMPARE(img.rows, 1600);
  // Bars: x from -0.5 - 5% of 3 classes to 2.5 + 5%, y from 0 to 5 x 1.05 (matplotlib's margins); a bar's
  // top at its count: 5 for cat, none for dog, 2 for bird.
  const cv::Rect bars = ywb::plot::Chart::plotArea(ywb::labelsPanel(0), ywb::labelsBarNames(3, names));
  const auto barX = [&](double c) { return int(std::lround(bars.x + (c + 0.65) / 3.3 * (bars.width - 1))); };
  const auto barTop = [&](double n) { return int(std::lround(bars.y + (1 - n / 5.25) * (bars.height - 1))); };
  QVERIFY(near(img.at<cv::Vec3b>(barTop(5) + 2, barX(0)), ywb::classColour(0), 0));
  QVERIFY(!near(img.at<cv::Vec3b>(barTop(5) - 3, barX(0)), ywb::classColour(0), 40));
  QVERIFY(near(img.at<cv::Vec3b>(barTop(2) + 2, barX(2)), ywb::classColour(2), 0));
  QVERIFY(!near(img.at<cv::Vec3b>(barTop(2) - 3, barX(2)), ywb::classColour(2), 40));
  QVERIFY(!near(img.at<cv::Vec3b>(barTop(1), barX(1)), ywb::classColour(1), 40));
  // Outlines centred on the square: the cat's left edge at 0.5 - 0.25 of the side, the bird's at 0.1;
  // the centre is empty.
  const cv::Rect o = ywb::labelsOutlineArea();
  const double side = o.width - 1;
  const int mid = o.y + int(std::lround(0.5 * side));
  QVERIFY(near(img.at<cv::Vec3b>(mid, o.x + int(std::lround(0.25 * side))), ywb::classColour(0), 0));
  QVERIFY(near(img.at<cv::Vec3b>(mid, o.x + int(std::lround(0.1 * side))), ywb::classColour(2), 0));
  QVERIFY(near(img.at<cv::Vec3b>(mid, o.x + o.width / 2), cv::Scalar::all(255), 0));
  // Centres: x over [0.2, 0.7], y over [0.3, 0.9] in 50 bins; the cats fill bin (0, 0) with 5, the birds
  // bin (49, 49) with 2. Saturation (pmax 0.9): 5 of 7 >= 0.1 at once, so 5: the cats' bin is Blues(1), the
  // birds' Blues(2 / 5).
  const cv::Rect xy = ywb::plot::Chart::plotArea(ywb::labelsPanel(2));
  const auto cell = [&](int ix, int iy) {
    const double fx = (ix + 0.5) / 50.0, fy = (iy + 0.5) / 50.0;
    return img.at<cv::Vec3b>(int(std::lround(xy.y + (1 - fy) * (xy.height - 1))),
                             int(std::lround(xy.x + fx * (xy.width - 1))));
  };
  QVERIFY(near(cell(0, 0), ywb::plot::blues(1.0), 1));
  QVERIFY(near(cell(49, 49), ywb::plot::blues(0.4), 1));
  const cv::Vec3b empty = cell(20, 30);
  QVERIFY2(empty[0] == empty[1] && empty[1] == empty[2], "an empty bin is white or grid grey");
}

void TestRunPlots::trainAndValWritePlots() {
  QVERIFY(tmp_.isValid());
  const QString project = tmp_.path() + "/runs";
  // 64 images (fraction 0.25) in batches of 16: 4 steps per epoch; Mosaic closes for the last of 2 epochs,
  // at step 4. Ultralytics' rule gives train_batch0-2 and train_batch4-6.
  CliResult r =
      ywbRun({"train", "data=" + kData, "model=yolov8n.yaml", "epochs=2", "imgsz=64", "batch=16",
              "fraction=0.25", "close_mosaic=1", "device=cpu", "workers=2", "project=" + project, "name=a"});
  QVERIFY2(r.code == 0, r.err.constData());
  const QString run = project + "/a";
  QCOMPARE(files(run, {"train_batch*.jpg"}),
           (QStringList{"train_batch0.jpg", "train_batch1.jpg", "train_batch2.jpg", "train_batch4.jpg",
                        "train_batch5.jpg", "train_batch6.jpg"}));
  const QStringList metric_plots = {"BoxF1_curve.png",      "BoxPR_curve.png",
                                    "BoxP_curve.png",       "BoxR_curve.png",
                                    "confusion_matrix.png", "confusion_matrix_normalized.png"};
  QCOMPARE(files(run, {"*.png"}), QStringList(metric_plots) << "results.png");
  // the best epoch's first validation batches: 64 images in batches of 2 x 16 (Ultralytics' validation
  // batch during training), so two of them
  QCOMPARE(files(run, {"val_batch*.jpg"}), (QStringList{"val_batch0_labels.jpg", "val_batch0_pred.jpg",
                                                        "val_batch1_labels.jpg", "val_batch1_pred.jpg"}));
  // train_batch0: 16 samples of 64 x 64 in a 4 x 4 grid
  const cv::Mat batch0 = ywb::loadImage((run + "/train_batch0.jpg").toStdString(), 0, false);
  QCOMPARE(batch0.cols, 256);
  QCOMPARE(batch0.rows, 256);
  // results.png: two rows of five panels
  const cv::Mat results = ywb::loadImage((run + "/results.png").toStdString(), 0, false);
  QCOMPARE(results.cols, ywb::resultsPanel(4).br().x);
  QCOMPARE(results.rows, ywb::resultsPanel(9).br().y);
  // labels.jpg of the 64 training images' boxes, drawn while the run started, and its log line
  const cv::Mat labels = ywb::loadImage((run + "/labels.jpg").toStdString(), 0, false);
  QCOMPARE(labels.cols, 1600);
  QVERIFY2(QRegularExpression("labels.jpg: \\d+ training boxes of 64 images")
               .match(QString::fromUtf8(r.out))
               .hasMatch(),
           r.out.constData());

  // Resumed to 3 epochs with its pictures removed: the best epoch's are drawn again. When the best is still
  // an epoch of the first session (results.csv says which), its weights are validated again for them.
  for (const QString& f : QDir(run).entryList({"*.png", "*.jpg"}, QDir::Files)) QFile::remove(run + "/" + f);
  r = ywbRun({"train", "resume=" + run, "epochs=3"});
  QVERIFY2(r.code == 0, r.err.constData());
  const auto rows = ywb::readResults((run + "/results.csv").toStdString());
  const int best = ywb::bestResultsRow(rows);
  QVERIFY(best >= 0);
  const QByteArray line = "plots of epoch " + QByteArray::number(rows[size_t(best)].epoch) + " (best" +
                          (rows[size_t(best)].epoch <= 2 ? ", validated again" : "):");
  QVERIFY2(r.out.contains(line), r.out.constData());
  QCOMPARE(files(run, {"confusion_matrix.png"}), QStringList{"confusion_matrix.png"});
  QCOMPARE(files(run, {"labels.jpg"}), QStringList{"labels.jpg"});
  QCOMPARE(files(run, {"val_batch*_pred.jpg"}), (QStringList{"val_batch0_pred.jpg", "val_batch1_pred.jpg"}));

  // plots=false: none of them
  r = ywbRun({"train", "data=" + kData, "model=yolov8n.yaml", "epochs=1", "imgsz=64", "batch=16",
              "fraction=0.25", "device=cpu", "workers=2", "plots=false", "project=" + project, "name=b"});
  QVERIFY2(r.code == 0, r.err.constData());
  QCOMPARE(files(project + "/b", {"*.png", "*.jpg"}), QStringList());

  // ywb val: a new folder with the six metric plots and the first three batches (16 each of shapes' 64
  // validation images) with labels and predictions, named on the last line; plots=false makes no folder,
  // nor does a validation that fails.
  r = ywbRun({"val", "data=" + kData, "weights=" + run + "/weights/best.safetensors", "project=" + project,
              "name=v", "workers=2"});
  QVERIFY2(r.code == 0, r.err.constData());
  QVERIFY(
      r.out.contains("Plots (confusion matrices, curves, val_batch images) in " + (project + "/v").toUtf8()));
  QCOMPARE(files(project + "/v", {"*"}), QStringList(metric_plots) << "val_batch0_labels.jpg"
                                                                   << "val_batch0_pred.jpg"
                                                                   << "val_batch1_labels.jpg"
                                                                   << "val_batch1_pred.jpg"
                                                                   << "val_batch2_labels.jpg"
                                                                   << "val_batch2_pred.jpg");
  r = ywbRun({"val", "data=" + kData, "weights=" + run + "/weights/best.safetensors", "project=" + project,
              "name=w", "plots=false", "workers=2"});
  QVERIFY2(r.code == 0, r.err.constData());
  QVERIFY(!QDir(project + "/w").exists());
  r = ywbRun({"val", "data=" + kData, "weights=" + run + "/weights/missing.safetensors", "project=" + project,
              "name=x"});
  QVERIFY(r.code != 0);
  QVERIFY(!QDir(project + "/x").exists());
}

QTEST_GUILESS_MAIN(TestRunPlots)
#include "test_run_plots.moc"
