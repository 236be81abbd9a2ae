// Turns an OnnxGraph into ONNX ModelProto bytes with the ONNX protobuf definitions and runs the ONNX
// checker on them. Without ONNX in the build every call throws a ywb::Error saying how to get it.
// Thread rules: free functions without shared state.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "export/onnx_graph.h"

namespace ywb::onnx_export {

/// Whether this build has the ONNX protobuf definitions (libonnx-dev) and can write .onnx files.
bool onnxAvailable();

/// Version of the ONNX library used ("1.12.0"), or "" without ONNX.
std::string onnxLibraryVersion();

/// Serialised ModelProto of `graph` (IR version 7, producer "YOLO Workbench"). Throws ywb::Error.
std::string serializeOnnx(const OnnxGraph& graph);

/// The same model with every float16 initializer that feeds only Cast(to=FLOAT) nodes turned into a
/// float32 initializer named like the Cast's output, and those Casts removed: what a runtime without
/// float16 support (OpenCV DNN 4.6: "Unsupported data type: FLOAT16") can load. The float16 values are
/// decoded exactly (binary16 -> binary32 is lossless). `widened` receives the number of tensors
/// converted. Throws ywb::Error when the bytes do not parse or a float16 initializer is used otherwise.
std::string widenFloat16Initializers(const std::string& bytes, int* widened = nullptr);

/// binary16 bit pattern -> float (exact; subnormals, infinities and NaN included).
float halfBitsToFloat(uint16_t bits);

/// What a serialised model declares to its users: the graph's inputs and outputs (initializers that are
/// also listed as inputs are left out) with their element types, and its metadata_props (where Ultralytics
/// and our export keep names, imgsz, stride, batch, end2end).
struct OnnxSignature {
  std::vector<OnnxValue> inputs, outputs;
  std::vector<std::string> input_types, output_types;  ///< "float32", "float16", ... ("type N" otherwise)
  std::map<std::string, std::string> metadata;
};

/// Reads the signature of serialised model bytes. Throws ywb::Error when they are not an ONNX ModelProto
/// (`where` names them in the message) or when this build has no ONNX.
OnnxSignature readOnnxSignature(const std::string& bytes, const std::string& where);

/// Runs onnx::checker::check_model (full check) on serialised model bytes; throws ywb::Error with the
/// checker's message when the model is invalid.
void checkOnnx(const std::string& bytes);

}  // namespace ywb::onnx_export
