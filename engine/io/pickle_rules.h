// The rules of the restricted unpickler (unpickler.h): what each global a pickle names means to us, which
// modules are refused outright, storage class names, and opcode names for messages. Torch-free.
// Thread rules: pure functions; call from any thread.
#pragma once
#include <cstdint>
#include <string>

namespace ywb::pickle {

// What a global means to us. Everything not listed is either an inert class or refused.
enum class G : int64_t {
  Inert,
  Function,  // a lower-case global we do not know: refused when called
  RebuildTensorV2,
  RebuildTensor,
  RebuildParameter,
  RebuildParameterWithState,
  RebuildFromTypeV2,
  OrderedDict,
  Set,
  FrozenSet,
  Size,
  CodecsEncode,
};

/// Whether globals of `module` are refused at the GLOBAL opcode (modules that can run code or touch the
/// system).
bool deniedModule(const std::string& module);

/// What module.name means: a known data builder, an inert class (upper-case name), or a function (refused
/// when called).
G classifyGlobal(const std::string& module, const std::string& name);

/// dtype name of a storage class ("torch.HalfStorage" -> "F16"), nullptr when not a storage we read.
const char* storageDtype(const std::string& global);

/// Name of a pickle opcode ("BINPUT"), "unknown" for bytes that are none.
const char* opName(uint8_t op);

}  // namespace ywb::pickle
