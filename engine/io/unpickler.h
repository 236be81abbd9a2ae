// A restricted unpickler for the pickles torch.save writes (protocol 2; the few protocol 3-4 opcodes that
// a pickle_protocol=4 save adds are read too). It rebuilds data only and never imports or calls anything:
// - dict, list, tuple, str, bytes, int, float, None, bool; collections.OrderedDict -> dict; set; torch.Size;
//   _codecs.encode(str, "latin1") -> bytes (how protocol 2 writes Python 3 bytes);
// - tensors: torch._utils._rebuild_tensor_v2 / _rebuild_tensor / _rebuild_parameter(_with_state),
//   torch._tensor._rebuild_from_type_v2, over storages named by ('storage', torch.<T>Storage, key,
//   location, numel) persistent ids; sizes, strides and offsets checked against the storage;
// - any other class (a global whose name starts with an upper-case letter, e.g.
//   ultralytics.nn.tasks.DetectionModel, torch.nn.modules.conv.Conv2d, types.SimpleNamespace,
//   pathlib.PosixPath) becomes an inert Object holding its arguments and BUILD state as data.
// Refused with an error naming them: globals of modules that can run code (os, subprocess, builtins other
// than set/frozenset, importlib, ...), lower-case globals we do not know being called (functions), and
// opcodes outside that set. Nothing would be executed either way; the refusal says early that the file is
// not a checkpoint.
// Thread rules: pure function; call from any thread.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/pickle_value.h"

namespace ywb::pickle {

/// Unpickles `size` bytes at `data`. `source` names the pickle in messages ("model.pt: data.pkl").
/// Throws ywb::Error with the byte offset, the opcode or global and the problem.
PickleData unpickle(const uint8_t* data, size_t size, const std::string& source);

/// Element size of a TensorDesc dtype name (F16 -> 2, ...), 0 when unknown.
size_t dtypeSize(const std::string& dtype);

}  // namespace ywb::pickle
