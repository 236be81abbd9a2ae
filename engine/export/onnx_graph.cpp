#include "export/onnx_graph.h"

#include "core/error.h"

namespace ywb::onnx_export {

std::string OnnxGraph::unique(const std::string& base) {
  const int n = used_[base]++;
  return n == 0 ? base : base + "_" + std::to_string(n);
}

OnnxInitializer& OnnxGraph::newInitializer(const std::string& prefix, std::vector<int64_t> dims,
                                           size_t values) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count != int64_t(values))
    fail("ONNX constant '", prefix, "': ", values, " values for ", count, " elements");
  OnnxInitializer init;
  init.name = unique(prefix);
  init.dims = std::move(dims);
  initializers.push_back(std::move(init));
  return initializers.back();
}

std::string OnnxGraph::constant(const std::string& prefix, std::vector<int64_t> dims,
                                std::vector<float> values) {
  OnnxInitializer& init = newInitializer(prefix, std::move(dims), values.size());
  init.floats = std::move(values);
  return init.name;
}

std::string OnnxGraph::constantHalf(const std::string& prefix, std::vector<int64_t> dims,
                                    std::vector<uint16_t> bits) {
  OnnxInitializer& init = newInitializer(prefix, std::move(dims), bits.size());
  init.halves = std::move(bits);
  init.is_float16 = true;
  return init.name;
}

std::string OnnxGraph::constantInt64(const std::string& prefix, std::vector<int64_t> dims,
                                     std::vector<int64_t> values) {
  OnnxInitializer& init = newInitializer(prefix, std::move(dims), values.size());
  init.ints = std::move(values);
  init.is_int64 = true;
  return init.name;
}

std::vector<std::string> OnnxGraph::add(const std::string& op_type, const std::string& node_name,
                                        std::vector<std::string> in, std::vector<OnnxAttribute> attributes,
                                        int n_out) {
  OnnxNode node;
  node.op = op_type;
  node.name = unique(node_name);
  node.inputs = std::move(in);
  node.attributes = std::move(attributes);
  for (int i = 0; i < n_out; ++i)
    node.outputs.push_back(n_out == 1 ? node.name + "_out" : node.name + "_out" + std::to_string(i));
  nodes.push_back(std::move(node));
  return nodes.back().outputs;
}

std::string OnnxGraph::op(const std::string& op_type, const std::string& node_name,
                          std::vector<std::string> in, std::vector<OnnxAttribute> attributes) {
  return add(op_type, node_name, std::move(in), std::move(attributes), 1)[0];
}

void OnnxGraph::renameOutput(const std::string& value, const std::string& new_name) {
  for (auto& n : nodes) {
    for (auto& o : n.outputs)
      if (o == value) o = new_name;
    for (auto& i : n.inputs)
      if (i == value) i = new_name;
  }
}

int64_t OnnxGraph::parameterCount() const {
  int64_t n = 0;
  for (const auto& i : initializers)
    if (!i.is_int64) n += int64_t(i.is_float16 ? i.halves.size() : i.floats.size());
  return n;
}

OnnxAttribute OnnxGraph::attrInt(const std::string& name, int64_t v) {
  OnnxAttribute a;
  a.name = name;
  a.kind = OnnxAttribute::Kind::Int;
  a.i = v;
  return a;
}

OnnxAttribute OnnxGraph::attrInts(const std::string& name, std::vector<int64_t> v) {
  OnnxAttribute a;
  a.name = name;
  a.kind = OnnxAttribute::Kind::Ints;
  a.ints = std::move(v);
  return a;
}

OnnxAttribute OnnxGraph::attrFloat(const std::string& name, float v) {
  OnnxAttribute a;
  a.name = name;
  a.kind = OnnxAttribute::Kind::Float;
  a.f = v;
  return a;
}

OnnxAttribute OnnxGraph::attrStr(const std::string& name, const std::string& v) {
  OnnxAttribute a;
  a.name = name;
  a.kind = OnnxAttribute::Kind::String;
  a.s = v;
  return a;
}

}  // namespace ywb::onnx_export
