#include "export/onnx_serializer.h"

#include "core/error.h"
#include "ywb/version.h"

#ifdef YW_HAVE_ONNX
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#endif

namespace ywb::onnx_export {

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
      "ONNX export is not available in this build: install Debian's libonnx-dev and libprotobuf-dev "
      "(installer/install-deps.sh) and reconfigure; safetensors export still works (format=safetensors)");
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
void checkOnnx(const std::string&) {
  noOnnx();
}

#endif

}  // namespace ywb::onnx_export
