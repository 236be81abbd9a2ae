// The CPU stand-in for CUDA graph capture (test_graph_ready_loss): every ATen op dispatched on the calling
// thread while a body runs (autograd's backward of a CPU graph included), observed through LibTorch's
// RecordFunction callbacks, with its inputs' shapes, and the ops among them that a captured graph cannot
// hold: those that read data back to the host (item, is_nonzero) or size their output by the data (nonzero,
// masked_select, unique, boolean index / index_put).
#pragma once
#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace aten_op_log {

struct OpLog {
  std::vector<std::string> ops;         // "name(shape, shape, ...)"
  std::vector<std::string> violations;  // ops that read data back or make data-dependent shapes
};
inline OpLog* g_log = nullptr;  // the log being written (the tests run one at a time)

inline bool isBoolTensor(const c10::IValue& v) {
  return v.isTensor() && v.toTensor().defined() &&
         (v.toTensor().scalar_type() == at::kBool || v.toTensor().scalar_type() == at::kByte);
}

inline void describe(const c10::IValue& v, std::ostream& os) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (t.defined())
      os << t.scalar_type() << t.sizes();
    else
      os << "undef";
  } else if (v.isTensorList()) {
    os << "[";
    for (const at::Tensor& t : v.toTensorVector()) os << t.scalar_type() << t.sizes() << " ";
    os << "]";
  } else if (v.isList()) {
    os << "[";
    for (const c10::IValue& e : v.toListRef()) describe(e, os), os << " ";
    os << "]";
  } else if (v.isNone() || v.isInt() || v.isBool() || v.isIntList() || v.isDouble() || v.isScalar() ||
             v.isString() || v.isDevice()) {
    os << v;
  } else {
    os << v.tagKind();
  }
}

inline std::unique_ptr<at::ObserverContext> onOp(const at::RecordFunction& fn) {
  if (!g_log) return nullptr;
  const std::string name = fn.name();
  std::ostringstream os;
  os << name << "(";
  bool bool_index = false;
  for (const c10::IValue& v : fn.inputs()) {
    describe(v, os), os << ", ";
    if (v.isList())
      for (const c10::IValue& e : v.toListRef()) bool_index = bool_index || isBoolTensor(e);
  }
  os << ")";
  g_log->ops.push_back(os.str());
  static const char* kHostReads[] = {"aten::nonzero",
                                     "aten::nonzero_numpy",
                                     "aten::argwhere",
                                     "aten::masked_select",
                                     "aten::_local_scalar_dense",
                                     "aten::item",
                                     "aten::is_nonzero",
                                     "aten::_unique2",
                                     "aten::unique_consecutive"};
  for (const char* h : kHostReads)
    if (name == h) g_log->violations.push_back(os.str());
  const bool indexing = name == "aten::index" || name == "aten::index_put_" || name == "aten::index_put" ||
                        name == "aten::_index_put_impl_";
  if (indexing && bool_index) g_log->violations.push_back("boolean " + os.str());
  return nullptr;
}

/// Runs `body` and returns the ops it dispatched on this thread, in order.
inline OpLog observe(const std::function<void()>& body) {
  OpLog log;
  g_log = &log;
  const at::CallbackHandle h =
      at::addThreadLocalCallback(at::RecordFunctionCallback(&onOp).needsInputs(true));
  body();
  at::removeCallback(h);
  g_log = nullptr;
  return log;
}

}  // namespace aten_op_log
