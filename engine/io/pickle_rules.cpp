#include "io/pickle_rules.h"

#include <cstring>
#include <utility>

namespace ywb::pickle {

// Modules whose globals can run code or touch the system. A checkpoint never names them; a pickle that
// does is refused at the GLOBAL opcode, before anything else is read.
bool deniedModule(const std::string& m) {
  // clang-format off
  static const char* const kDenied[] = {
      "os", "posix", "nt", "subprocess", "sys", "builtins", "__builtin__", "importlib", "runpy", "shutil",
      "socket", "pickle", "_pickle", "marshal", "ctypes", "code", "codeop", "pty", "webbrowser",
      "multiprocessing", "signal", "operator", "functools", "types", "io", "_io", "tempfile", "asyncio",
      "threading", "platform", "inspect", "pdb", "commands", "timeit", "trace", "cProfile", "profile", "bdb",
      "site", "sysconfig", "zipimport", "pkgutil", "imp", "eval", "exec", "glob"};
  // clang-format on
  for (const char* d : kDenied) {
    const size_t n = std::strlen(d);
    if (m.compare(0, n, d) == 0 && (m.size() == n || m[n] == '.')) return true;
  }
  return false;
}

G classifyGlobal(const std::string& module, const std::string& name) {
  if (module == "torch._utils") {
    if (name == "_rebuild_tensor_v2") return G::RebuildTensorV2;
    if (name == "_rebuild_tensor") return G::RebuildTensor;
    if (name == "_rebuild_parameter") return G::RebuildParameter;
    if (name == "_rebuild_parameter_with_state") return G::RebuildParameterWithState;
  }
  if (module == "torch._tensor" && name == "_rebuild_from_type_v2") return G::RebuildFromTypeV2;
  if (module == "collections" && name == "OrderedDict") return G::OrderedDict;
  if ((module == "__builtin__" || module == "builtins") && name == "set") return G::Set;
  if ((module == "__builtin__" || module == "builtins") && name == "frozenset") return G::FrozenSet;
  if (module == "torch" && name == "Size") return G::Size;
  if (module == "_codecs" && name == "encode") return G::CodecsEncode;
  if (module == "types" && name == "SimpleNamespace") return G::Inert;
  // numpy scalars and dtypes appear in the metrics of older checkpoints: kept as inert data.
  if (module.rfind("numpy", 0) == 0 && (name == "scalar" || name == "dtype" || name == "_reconstruct"))
    return G::Inert;
  if (deniedModule(module)) return G::Function;  // refused at GLOBAL already; kept for completeness
  return !name.empty() && name[0] >= 'A' && name[0] <= 'Z' ? G::Inert : G::Function;
}

// Storage class name -> dtype (legacy typed storages, as torch.save names them in persistent ids).
const char* storageDtype(const std::string& global) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {"HalfStorage", "F16"}, {"FloatStorage", "F32"}, {"DoubleStorage", "F64"}, {"BFloat16Storage", "BF16"},
      {"LongStorage", "I64"}, {"IntStorage", "I32"},   {"ShortStorage", "I16"},  {"CharStorage", "I8"},
      {"ByteStorage", "U8"},  {"BoolStorage", "BOOL"}, {"UntypedStorage", "U8"}};
  for (const char* prefix : {"torch.", "torch.cuda."}) {
    if (global.rfind(prefix, 0) != 0) continue;
    const std::string name = global.substr(std::strlen(prefix));
    for (const auto& [n, d] : kTypes)
      if (name == n) return d;
  }
  return nullptr;
}

const char* opName(uint8_t op) {
  // clang-format off
  static const std::pair<int, const char*> kNames[] = {
      {'(', "MARK"}, {'.', "STOP"}, {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"}, {'F', "FLOAT"},
      {'I', "INT"}, {'J', "BININT"}, {'K', "BININT1"}, {'L', "LONG"}, {'M', "BININT2"}, {'N', "NONE"},
      {'P', "PERSID"}, {'Q', "BINPERSID"}, {'R', "REDUCE"}, {'S', "STRING"}, {'T', "BINSTRING"},
      {'U', "SHORT_BINSTRING"}, {'V', "UNICODE"}, {'X', "BINUNICODE"}, {'a', "APPEND"}, {'b', "BUILD"},
      {'c', "GLOBAL"}, {'d', "DICT"}, {'}', "EMPTY_DICT"}, {'e', "APPENDS"}, {'g', "GET"}, {'h', "BINGET"},
      {'i', "INST"}, {'j', "LONG_BINGET"}, {'l', "LIST"}, {']', "EMPTY_LIST"}, {'o', "OBJ"}, {'p', "PUT"},
      {'q', "BINPUT"}, {'r', "LONG_BINPUT"}, {'s', "SETITEM"}, {'t', "TUPLE"}, {')', "EMPTY_TUPLE"},
      {'u', "SETITEMS"}, {'G', "BINFLOAT"}, {'B', "BINBYTES"}, {'C', "SHORT_BINBYTES"}, {0x80, "PROTO"},
      {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"}, {0x85, "TUPLE1"}, {0x86, "TUPLE2"},
      {0x87, "TUPLE3"}, {0x88, "NEWTRUE"}, {0x89, "NEWFALSE"}, {0x8a, "LONG1"}, {0x8b, "LONG4"},
      {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"}, {0x8e, "BINBYTES8"}, {0x8f, "EMPTY_SET"},
      {0x90, "ADDITEMS"}, {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"}, {0x93, "STACK_GLOBAL"}, {0x94, "MEMOIZE"},
      {0x95, "FRAME"}, {0x96, "BYTEARRAY8"}, {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"}};
  // clang-format on
  for (const auto& [code, name] : kNames)
    if (code == op) return name;
  return "unknown";
}

}  // namespace ywb::pickle
