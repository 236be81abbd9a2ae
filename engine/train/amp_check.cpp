// The training precision: Ultralytics' check_amp idea (autocast outputs must agree with fp32's on a real
// image) plus, on a CPU, a measured speed test: bf16 autocast is kept only where it is faster than fp32.
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/torch_compat.h"
#include "train/amp_speed.h"
#include "train/train_session.h"

namespace ywb {

namespace {

// Largest difference of the autocast outputs from fp32's on x, boxes relative to their range, scores
// absolute; empty when they agree (within 5%), else the reason.
std::string outputsDisagree(TrainSession& s, const at::Tensor& x, at::ScalarType dtype,
                            std::string* figures) {
  torch::NoGradGuard no_grad;
  s.model->eval();
  at::Tensor ref = s.model->predict(x);
  at::Tensor low;
  {
    const compat::AutocastScope amp(s.device.type(), true, dtype);
    low = s.model->predict(x).to(at::kFloat);
  }
  s.model->train();
  // Boxes are in pixels and scores in [0, 1]: compare each part relative to its own range.
  const int64_t nb = 4;
  const double box_err = (low.narrow(1, 0, nb) - ref.narrow(1, 0, nb)).abs().max().item<double>() /
                         std::max(1.0, ref.narrow(1, 0, nb).abs().max().item<double>());
  const double cls_err =
      (low.narrow(1, nb, ref.size(1) - nb) - ref.narrow(1, nb, ref.size(1) - nb)).abs().max().item<double>();
  std::ostringstream os;
  os.precision(3);
  os << "box error " << box_err << " of range, score error " << cls_err;
  *figures = os.str();
  const bool bad = !std::isfinite(box_err) || !std::isfinite(cls_err) || box_err > 0.05 || cls_err > 0.05;
  return bad ? *figures : std::string();
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
  s.val_loader->startEpoch(0);
  Batch b;
  if (!s.val_loader->next(b)) {
    s.amp_note = "off (no validation image to check it on)";
    s.log("AMP: " + s.amp_note);
    return;
  }

  // On a CPU, speed first: where bf16 is slower (no native bf16: 10-20x) or does not run, the accuracy check
  // is moot.
  std::string speed;
  if (!cuda) {
    PrecisionSpeed sp;
    try {
      sp = timePrecisions(*s.model, precisionProbeInput(b.images, s.device, s.args.channels_last), dtype);
    } catch (...) {
      s.amp_note = "off (fp32 timing failed: " + describeCurrentException() + ")";
      s.log("AMP check: " + s.amp_note + "; training in fp32");
      return;
    }
    const CpuAmpDecision d = decideCpuAmp(sp, want, asked, cpuBf16Support());
    if (!d.log.empty()) s.log(d.log);
    if (!d.use_low) {
      s.amp_note = d.note;
      return;
    }
    speed = describeSpeed(sp, want);
  }

  const at::Tensor x = b.images.narrow(0, 0, 1).to(s.device).to(at::kFloat).div_(255.0);
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
