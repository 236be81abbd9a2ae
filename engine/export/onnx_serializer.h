// Turns an OnnxGraph into ONNX ModelProto bytes with the ONNX protobuf definitions and runs the ONNX
// checker on them. Without ONNX in the build every call throws a ywb::Error saying how to get it.
// Thread rules: free functions without shared state.
#pragma once
#include <string>

#include "export/onnx_graph.h"

namespace ywb::onnx_export {

/// Whether this build has the ONNX protobuf definitions (libonnx-dev) and can write .onnx files.
bool onnxAvailable();

/// Version of the ONNX library used ("1.12.0"), or "" without ONNX.
std::string onnxLibraryVersion();

/// Serialised ModelProto of `graph` (IR version 7, producer "YOLO Workbench"). Throws ywb::Error.
std::string serializeOnnx(const OnnxGraph& graph);

/// Runs onnx::checker::check_model (full check) on serialised model bytes; throws ywb::Error with the
/// checker's message when the model is invalid.
void checkOnnx(const std::string& bytes);

}  // namespace ywb::onnx_export
