#include "train/amp_speed.h"

#include <torch/autograd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "core/error.h"
#include "core/torch_compat.h"
#include "sys/host_info.h"

namespace ywb {

namespace {

// oneDNN's ISA limit (its 2.x reads ONEDNN_MAX_CPU_ISA, then DNNL_MAX_CPU_ISA), upper-cased; empty if unset.
std::pair<std::string, std::string> onednnIsaLimit() {
  for (const char* var : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    if (const char* v = std::getenv(var); v && *v) {
      std::string s = v;
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
      return {var, s};
    }
  }
  return {};
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double forwardBackwardMs(model::DetectionModelImpl& m, const at::Tensor& x, bool low, at::ScalarType dtype) {
  const auto t0 = std::chrono::steady_clock::now();
  at::Tensor total;
  {
    const compat::AutocastScope amp(x.device().type(), low, dtype);
    for (const at::Tensor& f : m.forward(x)) {
      const at::Tensor part = f.to(at::kFloat).square().mean();
      total = total.defined() ? total + part : part;
    }
  }
  total.backward();
  (void)total.item<double>();  // the pass has finished (a sync on CUDA)
  return msSince(t0);
}

}  // namespace

CpuBf16 cpuBf16Support() {
  const std::set<std::string> flags = cpuFlags();
  std::string found;
  for (const char* f : {"avx512_bf16", "amx_bf16"})
    if (flags.count(f)) found += std::string(found.empty() ? "" : ", ") + f;
  CpuBf16 r;
  if (found.empty()) {
    const std::string isa = flags.count("avx512f") ? "AVX-512" : flags.count("avx2") ? "AVX2" : "no AVX2";
    r.summary = "not native (" + isa + ", no avx512_bf16 or amx_bf16)";
    return r;
  }
  const auto [var, limit] = onednnIsaLimit();
  // The limits that stop below oneDNN's bf16 instructions (AVX512_CORE_BF16 and up).
  static const char* const kBelowBf16[] = {
      "SSE41",           "AVX", "AVX2", "AVX2_VNNI", "AVX512_MIC", "AVX512_MIC_4OPS", "AVX512_CORE",
      "AVX512_CORE_VNNI"};
  for (const char* l : kBelowBf16) {
    if (limit == l) {
      r.summary =
          "not native (the CPU has " + found + ", but oneDNN is limited to " + limit + " by " + var + ")";
      return r;
    }
  }
  r.native = true;
  r.summary = "native (" + found + ")";
  return r;
}

PrecisionSpeed timePrecisions(model::DetectionModelImpl& m, const at::Tensor& x, at::ScalarType dtype) {
  const bool was_training = m.is_training();
  m.eval();  // BatchNorm uses, and does not update, its running statistics
  auto restore = [&] {
    for (auto& p : m.parameters()) p.mutable_grad().reset();
    m.train(was_training);
  };
  PrecisionSpeed s;
  double fp32_first = 0;
  try {
    fp32_first = forwardBackwardMs(m, x, false, dtype);  // warm-up: allocations, oneDNN primitives
    s.fp32_ms = std::min(forwardBackwardMs(m, x, false, dtype), forwardBackwardMs(m, x, false, dtype));
  } catch (...) {
    restore();
    throw;
  }
  try {
    const double low_first = forwardBackwardMs(m, x, true, dtype);  // its warm-up
    if (low_first > 3 * fp32_first) {
      // Slower beyond doubt even against fp32's own first pass, which has the same kinds of one-time costs.
      s.low_ms = low_first;
      s.low_first_pass = true;
    } else {
      s.low_ms = forwardBackwardMs(m, x, true, dtype);
      if (s.low_ms < 2 * s.fp32_ms) s.low_ms = std::min(s.low_ms, forwardBackwardMs(m, x, true, dtype));
    }
  } catch (...) {
    s.low_ms = -1;
    s.low_error = describeCurrentException();
  }
  restore();
  return s;
}

int64_t cpuProbeSide(const CpuBf16& cpu) {
  return cpu.native ? 256 : 128;
}

at::Tensor precisionProbeInput(const at::Tensor& batch, c10::Device device, bool channels_last,
                               int64_t max_side, int64_t images) {
  if (images < 1) fail("the AMP check needs at least one image");
  at::Tensor x = batch.narrow(0, 0, std::min(images, batch.size(0))).to(device).to(at::kFloat);
  // Fewer images than asked: mirrored copies (different pixels, same statistics).
  while (x.size(0) < images)
    x = at::cat({x, x.narrow(0, 0, std::min(images - x.size(0), x.size(0))).flip({3})});
  if (batch.scalar_type() == at::kByte) x.div_(255.0);
  const int64_t side = std::max(x.size(2), x.size(3));
  if (side > max_side) {
    const double f = double(max_side) / double(side);
    // Multiples of 32 (the largest stride), as the model requires.
    const int64_t h = std::max<int64_t>(32, (int64_t(double(x.size(2)) * f) / 32) * 32);
    const int64_t w = std::max<int64_t>(32, (int64_t(double(x.size(3)) * f) / 32) * 32);
    x = at::upsample_bilinear2d(x, {h, w}, false);
  }
  if (channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast);
  return x;
}

std::string describeSpeed(const PrecisionSpeed& s, const std::string& low_name) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  const double r = s.ratio();
  if (r <= 0) return low_name + " not timed";
  if (r < 1)
    os << low_name << " " << 1 / r << "x faster than fp32";
  else
    os << low_name << " " << r << "x slower than fp32";
  os.precision(1);
  os << " (" << s.low_ms << " vs " << s.fp32_ms << " ms per forward+backward"
     << (s.low_first_pass ? "; " + low_name + " timed once, first pass" : std::string()) << ")";
  return os.str();
}

CpuAmpDecision decideCpuAmp(const PrecisionSpeed& s, const std::string& want, bool asked,
                            const CpuBf16& cpu) {
  CpuAmpDecision d;
  if (!s.low_error.empty() || s.low_ms <= 0) {
    d.note = "off (" + want + " autocast does not run on this CPU)";
    d.log = std::string(asked ? "AMP warning: amp_dtype=" + want + " asked, but " : "AMP: ") +
            "training in fp32: " + want + " autocast fails here (" + s.low_error + "; bf16 " + cpu.summary +
            ")";
    return d;
  }
  const std::string speed = describeSpeed(s, want);
  if (s.ratio() < 1.0) {
    d.use_low = true;
    return d;
  }
  if (asked) {
    d.use_low = true;
    d.log = "AMP warning: amp_dtype=" + want + " kept as asked, but " + speed + " on this CPU (bf16 " +
            cpu.summary + "); amp_dtype=auto or amp=false trains faster";
    return d;
  }
  std::ostringstream note;
  note.setf(std::ios::fixed);
  note.precision(1);
  note << kFp32ChosenNote << ": " << want << " " << s.ratio() << "x slower on this CPU)";
  d.note = note.str();
  d.log = "AMP: training in fp32: " + speed + " on this CPU (bf16 " + cpu.summary + "); amp_dtype=" + want +
          " forces it";
  return d;
}

std::string cpuAmpChoice() {
  model::DetectionModel m = model::buildModel("yolov8n.yaml", 80);
  m->train();
  const at::Tensor x = at::rand({kProbeImages, 3, 128, 128});
  const PrecisionSpeed sp = timePrecisions(*m, x, at::kBFloat16);
  if (!sp.low_error.empty()) return "fp32 (bf16 autocast fails here: " + sp.low_error + ")";
  return std::string(sp.ratio() < 1.0 ? "bf16" : "fp32") + " (" + describeSpeed(sp, "bf16") + ")";
}

}  // namespace ywb
