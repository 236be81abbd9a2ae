// The one place where differences between Debian's LibTorch 1.13 and upstream LibTorch 2.x live.
// Include this instead of sprinkling version checks through the engine.
#pragma once
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#define YWB_TORCH_VERSION_NUMBER \
  (TORCH_VERSION_MAJOR * 10000 + TORCH_VERSION_MINOR * 100 + TORCH_VERSION_PATCH)
#define YWB_STR2(x) #x
#define YWB_STR(x) YWB_STR2(x)
#define YWB_TORCH_VERSION_STRING \
  YWB_STR(TORCH_VERSION_MAJOR) "." YWB_STR(TORCH_VERSION_MINOR) "." YWB_STR(TORCH_VERSION_PATCH)

namespace ywb::compat {

/// Enables or disables autocast for a device type ("cpu" or "cuda") with the given low-precision dtype.
inline void setAutocast(c10::DeviceType device, bool enabled, c10::ScalarType dtype) {
#if YWB_TORCH_VERSION_NUMBER >= 20400
  at::autocast::set_autocast_enabled(device, enabled);
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

/// Whether autocast is on for the device type.
inline bool autocastEnabled(c10::DeviceType device) {
#if YWB_TORCH_VERSION_NUMBER >= 20400
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

/// Autocast on `device` with `dtype` while the scope lives (when `enabled`); leaving it, also through an
/// exception, turns autocast off again and drops autocast's cache of low-precision weight copies.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, bool enabled, c10::ScalarType dtype)
      : device_(device), enabled_(enabled), dtype_(dtype) {
    if (enabled_) setAutocast(device_, true, dtype_);
  }
  ~AutocastScope() {
    if (!enabled_) return;
    setAutocast(device_, false, dtype_);
    at::autocast::clear_cache();
  }
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool enabled_;
  c10::ScalarType dtype_;
};

/// `ts` times the one-element tensor `factor`, as new tensors (no host read; see foreachMulByScalarTensor).
inline std::vector<at::Tensor> foreachTimesScalarTensor(const std::vector<at::Tensor>& ts,
                                                        const at::Tensor& factor) {
#if YWB_TORCH_VERSION_NUMBER >= 20100
  return at::_foreach_mul(ts, factor);
#else
  std::vector<at::Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(t * factor);
  return out;
#endif
}

}  // namespace ywb::compat

#include <torch/optim/optimizer.h>

#include <sstream>
#include <string>
#include <type_traits>

namespace ywb::compat {

/// The key of parameter `p` in Optimizer::state(): LibTorch 1.13 keys it by the TensorImpl address as a
/// string, LibTorch 2.x by the address itself.
template <typename StateMap>
auto optimizerStateKey(const StateMap&, const at::Tensor& p) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;  // what LibTorch 1.13's c10::guts::to_string(TensorImpl*) writes
    key << p.unsafeGetTensorImpl();
    return key.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace ywb::compat

#include <ATen/ATen.h>

namespace ywb::compat {

/// Multiplies every tensor of `ts` in place by the one-element tensor `factor` without reading it on the
/// host: one multi-tensor kernel in LibTorch >= 2.1 (_foreach_mul_.Tensor), one kernel per tensor before.
inline void foreachMulByScalarTensor(std::vector<at::Tensor>& ts, const at::Tensor& factor) {
#if YWB_TORCH_VERSION_NUMBER >= 20100
  at::_foreach_mul_(ts, factor);
#else
  for (auto& t : ts) t.mul_(factor);
#endif
}

/// selves[i].lerp_(ends[i], weight) for every i. On CUDA with LibTorch >= 2.1 one multi-tensor kernel per
/// chunk (_foreach_lerp_; 1.13 has none); elsewhere one lerp_ per tensor, the reference's arithmetic on a
/// CPU.
inline void foreachLerp_(std::vector<at::Tensor>& selves, const std::vector<at::Tensor>& ends,
                         double weight) {
#if YWB_TORCH_VERSION_NUMBER >= 20100
  if (!selves.empty() && selves.front().is_cuda()) {
    at::_foreach_lerp_(selves, ends, weight);
    return;
  }
#endif
  for (size_t i = 0; i < selves.size(); ++i) selves[i].lerp_(ends[i], weight);
}

/// starts[i].lerp(ends[i], weight) for every i, as new tensors; devices and versions as foreachLerp_.
inline std::vector<at::Tensor> foreachLerp(const std::vector<at::Tensor>& starts,
                                           const std::vector<at::Tensor>& ends, double weight) {
#if YWB_TORCH_VERSION_NUMBER >= 20100
  if (!starts.empty() && starts.front().is_cuda()) return at::_foreach_lerp(starts, ends, weight);
#endif
  std::vector<at::Tensor> out;
  out.reserve(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) out.push_back(starts[i].lerp(ends[i], weight));
  return out;
}

}  // namespace ywb::compat

namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace ywb::compat {

/// The c10d class whose allreduce/broadcast/barrier engine/dist calls on a concrete process group: in
/// LibTorch 2.x ProcessGroupGloo and ProcessGroupNCCL derive from c10d::Backend (a ProcessGroup dispatches
/// to them), in 1.13 they derive from c10d::ProcessGroup directly. Include YWB_C10D_COLLECTIVES_HEADER.
#if YWB_TORCH_VERSION_NUMBER >= 20000
using C10dCollectives = c10d::Backend;
#define YWB_C10D_COLLECTIVES_HEADER <torch/csrc/distributed/c10d/Backend.hpp>
#else
using C10dCollectives = c10d::ProcessGroup;
#define YWB_C10D_COLLECTIVES_HEADER <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

}  // namespace ywb::compat
