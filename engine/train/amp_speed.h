// Whether mixed precision pays on this CPU: what the CPU runs natively (its bf16 flags and oneDNN's ISA
// limit) and a measured forward+backward of a real model in fp32 and under bf16 autocast. bf16 on a CPU
// without avx512_bf16/AMX runs through conversion paths: measured 10-20x slower than fp32 for YOLOv8n on an
// AVX2 EPYC (docs/PERFORMANCE.md "bf16 on CPUs without native bf16").
// Thread rules: call from the thread that owns the model; the CPU-flag functions are reentrant.
#pragma once
#include <ATen/ATen.h>

#include <string>

#include "model/detection_model.h"
#include "ywb/doctor.h"  // CpuBf16, cpuBf16Support, cpuAmpChoice

namespace ywb {

/// Milliseconds of one forward+backward pass in fp32 and under autocast with `dtype` (the best of the timed
/// passes after one warm-up each). The model runs in eval mode so that BatchNorm statistics stay untouched;
/// gradients it leaves are cleared, so training that follows is unaffected. Each low-precision pass on a CPU
/// without native bf16 costs many fp32 passes, so the low precision is timed no more than its answer needs:
/// when its first pass (warm-up included) already takes 3x fp32's first pass, that pass is the figure
/// (low_first_pass); when its first timed pass is twice fp32's, it is not timed again. `x` is the input as
/// the training step sees it (float, [N,3,H,W], its memory format).
struct PrecisionSpeed {
  double fp32_ms = -1;
  double low_ms = -1;           ///< -1 when the low precision failed to run (low_error says why)
  bool low_first_pass = false;  ///< low_ms is the first pass's, its one-time costs included
  std::string low_error;  ///< e.g. oneDNN without kernels for bf16 here: "could not create a primitive ..."
  /// low_ms / fp32_ms (> 1: the low precision is slower).
  double ratio() const { return fp32_ms > 0 ? low_ms / fp32_ms : 0; }
};
PrecisionSpeed timePrecisions(model::DetectionModelImpl& m, const at::Tensor& x, at::ScalarType dtype);

/// How many images the check times: two. LibTorch picks its convolution kernels by the batch too, and a
/// batch of one takes paths no training batch takes: LibTorch 2.6 sends a one-image fp32 convolution on small
/// maps to its slow reference kernels, so that under oneDNN's AVX2 limit fp32 timed 1,658 ms per pass at
/// 128 px against 52 ms for two images, bf16 looked 7x faster, and training then ran bf16 at 7.7 s per step
/// instead of fp32's ~1 s (docs/PERFORMANCE.md, "The AMP check on LibTorch 2.6").
inline constexpr int64_t kProbeImages = 2;

/// The input timePrecisions uses for the training step: the first `images` images of `batch` (uint8 or float
/// [N,3,H,W]; mirrored copies where it holds fewer; min(kProbeImages, batch size) for a run), scaled to [0,1]
/// and, where the longer side exceeds `max_side` (on a CPU: cpuProbeSide), resized to it (multiples of 32),
/// on `device`, channels-last if asked. The ratio of the two precisions hardly depends on the size, and a
/// slow bf16 pass at 640 px costs seconds.
at::Tensor precisionProbeInput(const at::Tensor& batch, c10::Device device, bool channels_last,
                               int64_t max_side, int64_t images = kProbeImages);

/// The probe's longest side on a CPU: 256 px where bf16 is native (its gain shows at a real size), 128 px
/// where it is not (bf16 there runs 7-12x slower than fp32 at any size: measured 6.9x at 128 px and 10.2x at
/// 256 px on an AVX2 EPYC, where the check at 256 px took 3.9 s of every run's start).
int64_t cpuProbeSide(const CpuBf16& cpu);

/// "bf16 1.31x faster than fp32" / "bf16 12.4x slower than fp32", with the two times in ms.
std::string describeSpeed(const PrecisionSpeed& s, const std::string& low_name);

/// The CPU's choice from a measurement: the low precision `want` ("bf16") is used when it ran and is faster,
/// or when the user asked for it (`asked`: amp_dtype given) and it runs at all. `note` is the run's short AMP
/// note ("off (fp32 chosen: bf16 12.3x slower on this CPU)"); `log` the line that says why (empty when the
/// low precision is simply faster: the accuracy check that follows logs it).
/// How the note of a measured fp32 choice begins (a resumed run recognises its first session's choice by it).
inline constexpr const char* kFp32ChosenNote = "off (fp32 chosen";
struct CpuAmpDecision {
  bool use_low = false;
  std::string note;
  std::string log;
};
CpuAmpDecision decideCpuAmp(const PrecisionSpeed& s, const std::string& want, bool asked, const CpuBf16& cpu);

}  // namespace ywb
