// The training precision: Ultralytics' check_amp idea (autocast outputs must agree with fp32's on a real
// image) plus, on a CPU, a measured speed test: bf16 autocast is kept only where it is faster than fp32.
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/torch_compat.h"
#include "cuda/cuda_runtime.h"
#include "data/image_io.h"
#include "data/letterbox.h"
#include "data/loader.h"
#include "train/amp_speed.h"
#include "train/train_session.h"

namespace ywb {

namespace {

// Largest difference of the autocast outputs from fp32's on x, boxes relative to their range, scores
// absolute; empty when they agree (within 5%), else the reason.
std::string outputsDisagree(TrainSession& s, const at::Tensor& x, at::ScalarType dtype,
                            std::string* figures) {
  torch::NoGradGuard no_grad;
  // Each pass timed to its end on the device: on a GPU the first use of every kernel (and of cuBLAS, by
  // YOLO11's and YOLO26's attention) lands here, 2.5-4 s for those models on the H200 (issue 33: to split).
  using Clock = std::chrono::steady_clock;
  auto seconds = [&](Clock::time_point t0) {
    if (s.device.is_cuda()) torch::cuda::synchronize(s.device.index());
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  s.model->eval();
  auto t0 = Clock::now();
  at::Tensor ref = s.model->predict(x);
  const double fp32_s = seconds(t0);
  at::Tensor low;
  t0 = Clock::now();
  {
    const compat::AutocastScope amp(s.device.type(), true, dtype);
    low = s.model->predict(x).to(at::kFloat);
  }
  const double low_s = seconds(t0);
  s.model->train();
  // Boxes are in pixels and scores in [0, 1]: compare each part relative to its own range.
  const int64_t nb = 4;
  const double box_err = (low.narrow(1, 0, nb) - ref.narrow(1, 0, nb)).abs().max().item<double>() /
                         std::max(1.0, ref.narrow(1, 0, nb).abs().max().item<double>());
  const double cls_err =
      (low.narrow(1, nb, ref.size(1) - nb) - ref.narrow(1, nb, ref.size(1) - nb)).abs().max().item<double>();
  std::ostringstream os;
  os.precision(3);
  os << "box error " << box_err << " of range, score error " << cls_err << "; fp32 pass " << fp32_s << " s, "
     << (dtype == at::kHalf ? "fp16" : "bf16") << " pass " << low_s << " s";
  *figures = os.str();
  const bool bad = !std::isfinite(box_err) || !std::isfinite(cls_err) || box_err > 0.05 || cls_err > 0.05;
  return bad ? *figures : std::string();
}

// The check's image, read directly: the first validation image (the first training image where validation
// has none), resized as the loader resizes and letterboxed to a square imgsz, as uint8 [1, 3, imgsz, imgsz]
// RGB. It used to be the validation loader's first batch: 2 x batch images decoded for one, and the loader's
// workers went on decoding the rest of the split while the check timed the model. Undefined when neither
// split has an image; throws naming the file when it cannot be read.
at::Tensor checkImage(const TrainSession& s) {
  const ScannedSplit* split = s.val_split && !s.val_split->images.empty() ? s.val_split.get() : nullptr;
  if (!split && s.train_split && !s.train_split->images.empty()) split = s.train_split.get();
  if (!split) return {};
  const int side = s.args.imgsz;
  const cv::Mat img = loadImage(split->images.front().image, side);
  const cv::Mat boxed = letterbox(img, {side, side}, /*auto_mode=*/false, /*scaleup=*/false, 32, nullptr);
  at::Tensor t = at::empty({1, 3, side, side}, at::kByte);
  collateImage(boxed, /*rgb=*/false, t[0]);
  return t;
}

}  // namespace

void ampCheck(TrainSession& s) {
  const RunTiming::Scope timed(&s.timing, RunSegment::AmpCheck);
  s.autocast = false;
  s.amp_note = "off (amp=false)";
  if (!s.args.amp) return;
  s.phase(TrainPhase::AmpCheck, "comparing mixed-precision and fp32 outputs and speed");
  const bool cuda = s.device.is_cuda();
  const bool asked = s.args.amp_dtype != "auto";
  const std::string want = asked ? s.args.amp_dtype : cuda ? "fp16" : "bf16";
  const at::ScalarType dtype = want == "fp16" ? at::kHalf : at::kBFloat16;
  if (!cuda && dtype == at::kHalf) {
    s.amp_note = "off (fp16 autocast needs CUDA; use amp_dtype=bf16 on CPU)";
    s.log("AMP: " + s.amp_note);
    return;
  }
  // A resumed run keeps the precision its first session chose on speed: timing is not repeatable, and a
  // run must continue bit-identical.
  const bool kept_fp32 = s.resumed_amp.rfind(kFp32ChosenNote, 0) == 0;
  if (kept_fp32 || s.resumed_amp == want) {
    s.autocast = !kept_fp32;
    if (s.autocast) s.amp_dtype = dtype;
    s.amp_note = s.resumed_amp;
    s.log("AMP: " + s.amp_note + ", as this run chose when it started");
    return;
  }
  at::Tensor image;
  try {
    image = checkImage(s);
  } catch (...) {
    s.amp_note = "off (the check's image cannot be read: " + describeCurrentException() + ")";
    s.log("AMP check: " + s.amp_note + "; training in fp32");
    return;
  }
  if (!image.defined()) {
    s.amp_note = "off (no image to check it on)";
    s.log("AMP: " + s.amp_note);
    return;
  }
  // Heuristic algorithms for the check's one-image passes: the autotuner would search every convolution of a
  // shape no training step has (issue 33: the check took 3.8 s of an H200 run's start).
  const cuda::CudnnBenchmarkScope heuristics(false);

  // On a CPU, speed first: where bf16 is slower (no native bf16: 10-20x) or does not run, the accuracy check
  // is moot.
  std::string speed;
  if (!cuda) {
    PrecisionSpeed sp;
    const CpuBf16 cpu = cpuBf16Support();
    try {
      // The run's batch size where it is below the probe's (a batch of one takes its own kernels); AutoBatch
      // (batch < 1) chooses more.
      const int64_t images = s.args.batch >= 1 ? std::min<int64_t>(kProbeImages, s.args.batch) : kProbeImages;
      sp = timePrecisions(
          *s.model, precisionProbeInput(image, s.device, s.args.channels_last, cpuProbeSide(cpu), images),
          dtype);
    } catch (...) {
      s.amp_note = "off (fp32 timing failed: " + describeCurrentException() + ")";
      s.log("AMP check: " + s.amp_note + "; training in fp32");
      return;
    }
    const CpuAmpDecision d = decideCpuAmp(sp, want, asked, cpu);
    if (!d.log.empty()) s.log(d.log);
    if (!d.use_low) {
      s.amp_note = d.note;
      return;
    }
    speed = describeSpeed(sp, want);
  }

  const at::Tensor x = image.to(s.device).to(at::kFloat).div_(255.0);
  std::string figures, disagree;
  try {
    disagree = outputsDisagree(s, x, dtype, &figures);
  } catch (...) {
    s.model->train();
    s.amp_note = "off (autocast failed: " + describeCurrentException() + ")";
    s.log("AMP check: " + s.amp_note + "; training in fp32");
    return;
  }
  if (!disagree.empty()) {
    s.amp_note = "off (" + want + " outputs disagree with fp32: " + disagree + ")";
    s.log("AMP check failed: " + s.amp_note + "; training in fp32");
    return;
  }
  s.autocast = true;
  s.amp_dtype = dtype;
  s.amp_note = want;
  s.log("AMP check passed: training in " + want + " (" + figures + (speed.empty() ? "" : "; " + speed) + ")");
}

}  // namespace ywb
