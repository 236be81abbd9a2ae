// Reading and writing named tensors as safetensors files: the format of exported weights and of the
// trainer's checkpoints (model, EMA, optimizer state + JSON metadata). Bit-exact round trip.
// Thread rules: free functions without shared state; call from any thread.
#pragma once
#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/safetensors_view.h"

namespace ywb {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

/// The content of a safetensors file: tensors in file order (owned CPU tensors) and the metadata.
struct SafetensorsFile {
  NamedTensors tensors;
  std::map<std::string, std::string> metadata;
  /// The tensor called `name`; throws ywb::Error naming the file when there is none.
  const at::Tensor& at(const std::string& name) const;
  /// Whether a tensor called `name` exists.
  bool contains(const std::string& name) const;
  std::string source;        ///< the path read (for messages)
  bool checksummed = false;  ///< the file carried checksums and they matched (false: it had none)
};

/// safetensors dtype name of a torch dtype (F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL);
/// throws ywb::Error for dtypes the format cannot hold.
std::string safetensorsDtypeOf(c10::ScalarType type);

/// Torch dtype of a safetensors dtype name; throws ywb::Error naming `tensor` when this LibTorch has none.
c10::ScalarType torchDtypeOf(const std::string& dtype, const std::string& tensor);

/// Writes the tensors (any device, any layout: copied to contiguous CPU) in the given order with the
/// metadata, atomically. The header is padded with spaces so the data section starts 8-byte aligned.
/// `checksums` adds the header and data CRC-32s (kHeaderCrcKey, kDataCrcKey) that readers verify; checksum
/// keys in `metadata` are dropped either way. Throws ywb::Error on repeated/empty names, unsupported dtypes,
/// or FileWriteError (core/atomic_file.h) when the file cannot be written.
void writeSafetensors(const std::string& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata, bool checksums = false);

/// The bytes writeSafetensors would write (for tests and in-memory use).
std::string encodeSafetensors(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata,
                              bool checksums = false);

/// The size in bytes of the file writeSafetensors would write (reads no tensor data).
uint64_t safetensorsFileSize(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata,
                             bool checksums = false);

/// Reads and validates a safetensors file (memory-mapped), verifying its checksums when it has them; every
/// tensor is copied into its own CPU tensor.
SafetensorsFile readSafetensors(const std::string& path);

/// Decodes a safetensors file held in memory; `source` names it in error messages.
SafetensorsFile decodeSafetensors(const uint8_t* data, size_t size, const std::string& source);

}  // namespace ywb
