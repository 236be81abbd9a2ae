#include "export/onnx_serializer.h"

#include "core/error.h"
#include "ywb/version.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#ifdef YW_HAVE_ONNX
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#endif

namespace ywb::onnx_export {

float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  float v = 0;
  if (exp == 0) {
    v = std::ldexp(float(mant), -24);  // zero and subnormals: mant x 2^-24
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(float(mant | 0x400u), exp - 25);  // (1024 + mant) x 2^(exp - 15 - 10)
  }
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  bits |= sign;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

#ifdef YW_HAVE_ONNX
namespace {

void fillAttribute(const OnnxAttribute& a, onnx::AttributeProto* p) {
  p->set_name(a.name);
  switch (a.kind) {
    case OnnxAttribute::Kind::Int:
      p->set_type(onnx::AttributeProto::INT);
      p->set_i(a.i);
      break;
    case OnnxAttribute::Kind::Ints:
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : a.ints) p->add_ints(v);
      break;
    case OnnxAttribute::Kind::Float:
      p->set_type(onnx::AttributeProto::FLOAT);
      p->set_f(a.f);
      break;
    case OnnxAttribute::Kind::String:
      p->set_type(onnx::AttributeProto::STRING);
      p->set_s(a.s);
      break;
  }
}

void fillValue(const OnnxValue& v, onnx::ValueInfoProto* p) {
  p->set_name(v.name);
  auto* tensor = p->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  for (size_t i = 0; i < v.dims.size(); ++i) {
    auto* d = shape->add_dim();
    if (v.dims[i] >= 0)
      d->set_dim_value(v.dims[i]);
    else
      d->set_dim_param(i < v.params.size() && !v.params[i].empty() ? v.params[i] : "dim" + std::to_string(i));
  }
}

}  // namespace

bool onnxAvailable() {
  return true;
}

std::string onnxLibraryVersion() {
#ifdef YW_ONNX_VERSION
  return YW_ONNX_VERSION;
#else
  return "unknown";
#endif
}

std::string serializeOnnx(const OnnxGraph& g) {
  onnx::ModelProto model;
  model.set_ir_version(7);  // IR 7 goes with opset 12/13 (ONNX 1.7/1.8) and is read by every runtime since
  model.set_producer_name("YOLO Workbench");
  model.set_producer_version(kVersion);
  model.set_domain("");
  model.set_model_version(1);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(g.opset);
  for (const auto& [k, v] : g.metadata) {
    auto* prop = model.add_metadata_props();
    prop->set_key(k);
    prop->set_value(v);
  }
  auto* graph = model.mutable_graph();
  graph->set_name(g.name);
  for (const auto& init : g.initializers) {
    auto* t = graph->add_initializer();
    t->set_name(init.name);
    for (int64_t d : init.dims) t->add_dims(d);
    if (init.is_int64) {
      t->set_data_type(onnx::TensorProto::INT64);
      for (int64_t v : init.ints) t->add_int64_data(v);
    } else if (init.is_float16) {
      // FLOAT16 raw_data: little-endian binary16 bit patterns, 2 bytes per value.
      t->set_data_type(onnx::TensorProto::FLOAT16);
      t->set_raw_data(std::string(reinterpret_cast<const char*>(init.halves.data()),
                                  init.halves.size() * sizeof(uint16_t)));
    } else {
      t->set_data_type(onnx::TensorProto::FLOAT);
      // raw_data is little-endian float32, what every reader expects (and far smaller than float_data).
      t->set_raw_data(
          std::string(reinterpret_cast<const char*>(init.floats.data()), init.floats.size() * sizeof(float)));
    }
  }
  for (const auto& n : g.nodes) {
    auto* p = graph->add_node();
    p->set_op_type(n.op);
    p->set_name(n.name);
    for (const auto& i : n.inputs) p->add_input(i);
    for (const auto& o : n.outputs) p->add_output(o);
    for (const auto& a : n.attributes) fillAttribute(a, p->add_attribute());
  }
  for (const auto& v : g.inputs) fillValue(v, graph->add_input());
  for (const auto& v : g.outputs) fillValue(v, graph->add_output());
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    fail("ONNX: serialising the model failed (larger than protobuf's 2 GB limit?)");
  return bytes;
}

std::string widenFloat16Initializers(const std::string& bytes, int* widened) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) fail("ONNX: the bytes are not an ONNX ModelProto");
  auto* graph = model.mutable_graph();
  std::map<std::string, int> halves;  // float16 initializer -> index
  for (int i = 0; i < graph->initializer_size(); ++i)
    if (graph->initializer(i).data_type() == onnx::TensorProto::FLOAT16)
      halves[graph->initializer(i).name()] = i;
  // Every use of a float16 initializer must be a Cast to FLOAT.
  std::set<int> casts;
  for (int n = 0; n < graph->node_size(); ++n) {
    const auto& node = graph->node(n);
    for (const auto& in : node.input()) {
      if (!halves.count(in)) continue;
      bool to_float = node.op_type() == "Cast" && node.input_size() == 1;
      for (const auto& a : node.attribute())
        if (a.name() == "to" && a.i() != onnx::TensorProto::FLOAT) to_float = false;
      if (!to_float)
        fail("ONNX: float16 initializer '", in, "' feeds a ", node.op_type(), " node, not a Cast to float");
      casts.insert(n);
    }
  }
  onnx::GraphProto out;
  out.set_name(graph->name());
  for (const auto& init : graph->initializer())
    if (!halves.count(init.name())) *out.add_initializer() = init;
  int count = 0;
  for (int n = 0; n < graph->node_size(); ++n) {
    const auto& node = graph->node(n);
    if (!casts.count(n)) {
      *out.add_node() = node;
      continue;
    }
    const auto& src = graph->initializer(halves.at(node.input(0)));
    const std::string& raw = src.raw_data();
    std::vector<float> values;
    if (!raw.empty()) {
      if (raw.size() % 2) fail("ONNX: float16 initializer '", src.name(), "' has an odd byte count");
      values.resize(raw.size() / 2);
      for (size_t i = 0; i < values.size(); ++i) {
        uint16_t b = 0;
        std::memcpy(&b, raw.data() + 2 * i, 2);  // little-endian, as ONNX stores raw_data
        values[i] = halfBitsToFloat(b);
      }
    } else {
      for (int32_t b : src.int32_data()) values.push_back(halfBitsToFloat(uint16_t(b)));  // ONNX's packing
    }
    auto* t = out.add_initializer();
    t->set_name(node.output(0));
    *t->mutable_dims() = src.dims();
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    ++count;
  }
  *out.mutable_input() = graph->input();
  *out.mutable_output() = graph->output();
  *out.mutable_value_info() = graph->value_info();
  graph->Swap(&out);
  if (widened) *widened = count;
  std::string result;
  if (!model.SerializeToString(&result)) fail("ONNX: serialising the widened model failed");
  return result;
}

namespace {

std::string elementTypeName(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return "float32";
    case onnx::TensorProto::FLOAT16:
      return "float16";
    case onnx::TensorProto::UINT8:
      return "uint8";
    case onnx::TensorProto::INT64:
      return "int64";
    default:
      return "type " + std::to_string(t);
  }
}

OnnxValue valueOf(const onnx::ValueInfoProto& v, std::string* type) {
  OnnxValue out;
  out.name = v.name();
  *type = v.type().has_tensor_type() ? elementTypeName(v.type().tensor_type().elem_type()) : "not a tensor";
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    const bool fixed = d.has_dim_value();
    out.dims.push_back(fixed ? d.dim_value() : -1);
    out.params.push_back(fixed ? "" : d.dim_param());
  }
  return out;
}

}  // namespace

OnnxSignature readOnnxSignature(const std::string& bytes, const std::string& where) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph())
    fail(where,
         ": not an ONNX model (the bytes do not parse as an ONNX ModelProto; truncated or another format?)");
  OnnxSignature s;
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  for (const auto& v : model.graph().input()) {
    if (initializers.count(v.name())) continue;
    s.input_types.emplace_back();
    s.inputs.push_back(valueOf(v, &s.input_types.back()));
  }
  for (const auto& v : model.graph().output()) {
    s.output_types.emplace_back();
    s.outputs.push_back(valueOf(v, &s.output_types.back()));
  }
  for (const auto& p : model.metadata_props()) s.metadata[p.key()] = p.value();
  return s;
}

void checkOnnx(const std::string& bytes) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) fail("ONNX checker: the bytes are not an ONNX ModelProto");
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    fail("ONNX checker rejected the model: ", e.what());
  }
}

#else  // !YW_HAVE_ONNX

namespace {
[[noreturn]] void noOnnx() {
  fail(
      "ONNX is not available in this build (writing and reading .onnx files): install Debian's libonnx-dev "
      "and libprotobuf-dev (installer/install-deps.sh) and reconfigure; safetensors export still works "
      "(format=safetensors)");
}
}  // namespace

bool onnxAvailable() {
  return false;
}
std::string onnxLibraryVersion() {
  return "";
}
std::string serializeOnnx(const OnnxGraph&) {
  noOnnx();
}
std::string widenFloat16Initializers(const std::string&, int*) {
  noOnnx();
}
void checkOnnx(const std::string&) {
  noOnnx();
}
OnnxSignature readOnnxSignature(const std::string&, const std::string&) {
  noOnnx();
}

#endif

}  // namespace ywb::onnx_export
