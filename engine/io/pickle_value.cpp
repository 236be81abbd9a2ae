#include "io/pickle_value.h"

namespace ywb::pickle {
namespace {

// Python's dict equality for the keys a checkpoint uses: str, and int (with bool equal to 0/1).
bool keyCode(const Value* key, std::string* code) {
  if (!key) return false;
  if (key->kind == Kind::Str) {
    *code = "s" + key->s;
    return true;
  }
  if (key->kind == Kind::Int || key->kind == Kind::Bool) {
    *code = "i" + std::to_string(key->kind == Kind::Bool ? int64_t(key->b) : key->i);
    return true;
  }
  return false;
}

}  // namespace

const char* kindName(Kind k) {
  switch (k) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return "str";
    case Kind::Bytes:
      return "bytes";
    case Kind::List:
      return "list";
    case Kind::Tuple:
      return "tuple";
    case Kind::Set:
      return "set";
    case Kind::Dict:
      return "dict";
    case Kind::Global:
      return "global";
    case Kind::Object:
      return "object";
    case Kind::Storage:
      return "storage";
    case Kind::Tensor:
      return "tensor";
  }
  return "?";
}

int64_t TensorDesc::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;  // sizes were checked against the storage: no overflow
  return n;
}

const Value* Value::get(const std::string& key) const {
  auto it = index.find("s" + key);
  return it == index.end() ? nullptr : entries[it->second].second;
}

void Value::set(Value* key, Value* value) {
  std::string code;
  if (keyCode(key, &code)) {
    auto [it, fresh] = index.emplace(code, entries.size());
    if (!fresh) {
      entries[it->second].second = value;
      return;
    }
  }
  entries.emplace_back(key, value);
}

Value* PickleData::make(Kind k) {
  arena.push_back(std::make_unique<Value>());
  arena.back()->kind = k;
  return arena.back().get();
}

}  // namespace ywb::pickle
