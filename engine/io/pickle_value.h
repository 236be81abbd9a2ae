// The values a restricted unpickler rebuilds from a PyTorch data.pkl: plain data, inert objects and tensor
// descriptors. Nothing here refers to torch, so the unpickler and its fuzzer stay cheap.
// Values live in an arena owned by PickleData and point at each other with raw pointers, so the shared and
// even cyclic references a pickle may build (memo) cost nothing to free and never leak.
// Thread rules: immutable after unpickling; read from any thread while the PickleData lives.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ywb::pickle {

enum class Kind : uint8_t {
  None,
  Bool,
  Int,
  Float,
  Str,
  Bytes,
  List,
  Tuple,
  Set,
  Dict,
  Global,   ///< a reference to module.name, never resolved
  Object,   ///< an instance of a class we do not know: its constructor arguments and BUILD state as data
  Storage,  ///< a torch storage named by a persistent id (its bytes are data/<key> in the archive)
  Tensor,   ///< a strided view of a storage
};

/// Name of a kind for messages ("dict", "tensor", ...).
const char* kindName(Kind k);

/// A tensor or storage as described by the pickle: nothing is read from the archive here.
struct TensorDesc {
  std::string dtype;  ///< safetensors-style dtype name: F16, BF16, F32, F64, I64, I32, I16, I8, U8, BOOL
  std::string storage_key;
  std::string location;       ///< "cpu", "cuda:0", ...
  int64_t storage_numel = 0;  ///< elements in the storage
  int64_t offset = 0;         ///< storage offset (elements)
  std::vector<int64_t> sizes, strides;
  bool parameter = false;  ///< rebuilt through _rebuild_parameter
  int64_t numel() const;
};

struct Value {
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;                                   ///< Str, Bytes; Global and Object: "module.name"
  std::vector<Value*> items;                       ///< List, Tuple, Set; Object: constructor arguments
  std::vector<std::pair<Value*, Value*>> entries;  ///< Dict (insertion order); Object: items set on it
  std::vector<Value*> appended;                    ///< Object: items appended to it (a list subclass)
  Value* state = nullptr;                          ///< Object, Dict: the BUILD state
  TensorDesc tensor;                               ///< Storage, Tensor
  std::map<std::string, size_t> index;             ///< Dict/Object: entry position of Str/Int keys

  bool is(Kind k) const { return kind == k; }
  /// Dict (or Object items) lookup by string key; nullptr when absent.
  const Value* get(const std::string& key) const;
  /// Sets key -> value like Python's dict (replaces an equal Str/Int key, keeps the first position).
  void set(Value* key, Value* value);
};

/// The result of unpickling: the arena of values and the root (the object before STOP).
struct PickleData {
  std::vector<std::unique_ptr<Value>> arena;
  const Value* root = nullptr;
  Value* make(Kind k);
};

}  // namespace ywb::pickle
