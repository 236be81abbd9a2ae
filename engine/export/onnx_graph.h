// A torch-free, in-memory ONNX graph: nodes, constant initializers and typed inputs/outputs, built op by op
// with generated unique names. The exporter fills it from a model; OnnxSerializer turns it into a
// ModelProto. Keeping protobuf out of this header lets the engine build (and report clearly) without ONNX.
// Thread rules: plain value type; one thread at a time.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ywb::onnx_export {

/// A constant tensor (float32, float16 or int64), stored row-major.
struct OnnxInitializer {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<float> floats;     ///< used when neither is_int64 nor is_float16
  std::vector<int64_t> ints;     ///< used when is_int64
  std::vector<uint16_t> halves;  ///< IEEE 754 binary16 bit patterns, used when is_float16
  bool is_int64 = false;
  bool is_float16 = false;
};

struct OnnxAttribute {
  enum class Kind { Int, Ints, Float, String };
  std::string name;
  Kind kind = Kind::Int;
  int64_t i = 0;
  std::vector<int64_t> ints;
  float f = 0;
  std::string s;
};

struct OnnxNode {
  std::string op;
  std::string name;
  std::vector<std::string> inputs;  ///< "" = an omitted optional input
  std::vector<std::string> outputs;
  std::vector<OnnxAttribute> attributes;
};

/// A graph input or output: float32 with fixed sizes (>= 0) or named symbolic dimensions.
struct OnnxValue {
  std::string name;
  std::vector<int64_t> dims;        ///< -1 where the dimension is symbolic
  std::vector<std::string> params;  ///< symbolic name per dimension ("" where fixed)
};

class OnnxGraph {
 public:
  std::string name = "graph";
  int64_t opset = 12;
  std::vector<OnnxNode> nodes;
  std::vector<OnnxInitializer> initializers;
  std::vector<OnnxValue> inputs, outputs;
  std::map<std::string, std::string> metadata;  ///< ModelProto.metadata_props

  /// Adds a float32 constant; returns its unique name (prefix + counter).
  std::string constant(const std::string& prefix, std::vector<int64_t> dims, std::vector<float> values);
  /// Adds a float16 constant from binary16 bit patterns; returns its unique name.
  std::string constantHalf(const std::string& prefix, std::vector<int64_t> dims, std::vector<uint16_t> bits);
  /// Adds an int64 constant (shapes, axes); returns its unique name.
  std::string constantInt64(const std::string& prefix, std::vector<int64_t> dims,
                            std::vector<int64_t> values);
  /// Adds a node with `n_out` generated outputs named after `node_name`; returns the output names.
  std::vector<std::string> add(const std::string& op, const std::string& node_name,
                               std::vector<std::string> inputs, std::vector<OnnxAttribute> attributes = {},
                               int n_out = 1);
  /// Single-output form of add().
  std::string op(const std::string& op, const std::string& node_name, std::vector<std::string> inputs,
                 std::vector<OnnxAttribute> attributes = {});
  /// Renames the output of the node that produced `value` (e.g. to the graph's output name).
  void renameOutput(const std::string& value, const std::string& new_name);

  /// Number of floating-point (float32 and float16) values held in initializers.
  int64_t parameterCount() const;

  static OnnxAttribute attrInt(const std::string& name, int64_t v);
  static OnnxAttribute attrInts(const std::string& name, std::vector<int64_t> v);
  static OnnxAttribute attrFloat(const std::string& name, float v);
  static OnnxAttribute attrStr(const std::string& name, const std::string& v);

 private:
  std::string unique(const std::string& base);
  /// Appends an initializer named after `prefix` with shape `dims`, after checking that `values` elements
  /// fill it; the caller stores the values.
  OnnxInitializer& newInitializer(const std::string& prefix, std::vector<int64_t> dims, size_t values);
  std::map<std::string, int> used_;
};

}  // namespace ywb::onnx_export
