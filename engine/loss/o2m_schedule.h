// The weight of the end-to-end loss's one-to-many branch over a run: while training (0-based) epoch e,
// max(1 - e/max(epochs-1, 1), 0) * (0.8 - 0.1) + 0.1: 0.8 at epoch 0, 0.1 at the last epoch, updated after
// every epoch; the one-to-one branch gets max(1 - o2m, 0). The arithmetic is Ultralytics 8.4.52's, to the bit
// (fixture loss-yolo26n-trained-e17: o2m 0.3896551724137932 at epoch 17 of 30). The weight is a function of
// the epoch, so a resumed run gets the weight of the epoch it resumes at.
// Thread rules: a plain value; not synchronised.
#pragma once

namespace ywb::loss {

class O2mSchedule {
 public:
  /// The schedule of a run of `epochs` epochs, at the start of (0-based) `epoch`.
  explicit O2mSchedule(int epochs, int epoch = 0);

  /// The weights in force while training the current epoch.
  double o2m() const { return o2m_; }
  double o2o() const { return o2o_; }
  int epoch() const { return epoch_; }
  int epochs() const { return epochs_; }

  /// Called after every epoch: moves to the next epoch's weights.
  void update();

  /// The one-to-many weight in force while training (0-based) `epoch` of `epochs`.
  static double o2mAt(int epoch, int epochs);
  /// The one-to-one weight that goes with a one-to-many weight: max(1 - o2m, 0).
  static double o2oFor(double o2m);

  static constexpr double kStart = 0.8;  ///< o2m while training epoch 0
  static constexpr double kFinal = 0.1;  ///< o2m at the last epoch

 private:
  int epochs_;
  int epoch_;
  double o2m_, o2o_;
};

}  // namespace ywb::loss
