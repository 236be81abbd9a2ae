// What a global builds when the pickle calls it (REDUCE, NEWOBJ, persistent ids): containers, tensors over
// checked storages, latin-1 bytes and inert objects; anything else is refused (unpickler.h).
#include "io/pickle_reader.h"

namespace ywb::pickle {

Value* Reader::global(const std::string& module, const std::string& name) {
  if (deniedModule(module) && classifyGlobal(module, name) == G::Function)
    error("refuses global '", module, ".", name,
          "': a PyTorch checkpoint never needs it (this pickle may be crafted to run code)");
  Value* g = make(Kind::Global);
  g->s = module + "." + name;
  g->i = int64_t(classifyGlobal(module, name));
  return g;
}

bool Reader::isTupleOf(const Value* v, size_t lo, size_t hi) {
  return v->kind == Kind::Tuple && v->items.size() >= lo && v->items.size() <= hi;
}
std::vector<int64_t> Reader::intTuple(const Value* v, const char* what) {
  if (v->kind != Kind::Tuple) error(what, " is a ", kindName(v->kind), ", not a tuple of ints");
  if (v->items.size() > 64) error(what, " has ", v->items.size(), " dimensions");
  std::vector<int64_t> out;
  for (const Value* x : v->items) {
    if (x->kind != Kind::Int || x->i < 0 || x->i > (int64_t(1) << 62)) error(what, " holds a bad value");
    out.push_back(x->i);
  }
  return out;
}

// _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata]) and the older
// _rebuild_tensor(storage, offset, size, stride): a strided view, checked to lie inside the storage.
Value* Reader::rebuildTensor(const Value* args, size_t lo, size_t hi) {
  if (!isTupleOf(args, lo, hi)) error("tensor rebuild expects ", lo, "..", hi, " arguments");
  const Value* st = args->items[0];
  if (st->kind != Kind::Storage)
    error("tensor rebuild: first argument is a ", kindName(st->kind), ", not a storage");
  const Value* off = args->items[1];
  if (off->kind != Kind::Int || off->i < 0) error("tensor rebuild: bad storage offset");
  Value* t = make(Kind::Tensor);
  t->tensor = st->tensor;
  t->tensor.offset = off->i;
  t->tensor.sizes = intTuple(args->items[2], "tensor size");
  t->tensor.strides = intTuple(args->items[3], "tensor stride");
  const auto& sz = t->tensor.sizes;
  if (t->tensor.strides.size() != sz.size()) error("tensor size and stride differ in length");
  // The last element's index must lie inside the storage; any overflow means it does not.
  uint64_t numel = 1, last = uint64_t(off->i), step = 0;
  bool overflow = false;
  for (size_t d = 0; d < sz.size(); ++d) {
    overflow = overflow || __builtin_mul_overflow(numel, uint64_t(sz[d]), &numel);
    if (sz[d] == 0) continue;
    overflow = overflow ||
               __builtin_mul_overflow(uint64_t(sz[d] - 1), uint64_t(t->tensor.strides[d]), &step) ||
               __builtin_add_overflow(last, step, &last);
  }
  if (overflow || numel > (uint64_t(1) << 62)) error("tensor size or stride out of range");
  if (numel > 0 && last >= uint64_t(st->tensor.storage_numel))
    error("tensor (offset ", off->i, ") reaches past its storage '", st->tensor.storage_key, "' of ",
          st->tensor.storage_numel, " elements");
  return t;
}

Value* Reader::call(const Value* fn, Value* args, bool newobj) {
  if (fn->kind != Kind::Global) error("calls a ", kindName(fn->kind), ", not a global");
  if (args->kind != Kind::Tuple) error("arguments are a ", kindName(args->kind), ", not a tuple");
  const auto& a = args->items;
  switch (G(fn->i)) {
    case G::RebuildTensorV2:
      return rebuildTensor(args, 6, 7);
    case G::RebuildTensor:
      return rebuildTensor(args, 4, 4);
    case G::RebuildParameter:
    case G::RebuildParameterWithState: {
      if (a.size() < 3 || a.size() > 4 || a[0]->kind != Kind::Tensor)
        error("parameter rebuild expects a tensor");
      Value* t = make(Kind::Tensor);
      t->tensor = a[0]->tensor;
      t->tensor.parameter = true;
      return t;
    }
    case G::RebuildFromTypeV2: {
      if (a.size() != 4 || a[0]->kind != Kind::Global || G(a[0]->i) != G::RebuildTensorV2)
        error("_rebuild_from_type_v2 is only read around _rebuild_tensor_v2");
      return rebuildTensor(a[2], 6, 7);
    }
    case G::OrderedDict: {
      Value* d = make(Kind::Dict);
      if (!a.empty() && !newobj) {
        if (a.size() != 1 || a[0]->kind != Kind::List)
          error("OrderedDict expects no arguments or a list of pairs");
        for (Value* p : a[0]->items) {
          if (!isTupleOf(p, 2, 2)) error("OrderedDict item is not a pair");
          d->set(p->items[0], p->items[1]);
        }
      }
      return d;
    }
    case G::Set:
    case G::FrozenSet: {
      Value* s = make(Kind::Set);
      if (!a.empty() && !newobj) {
        if (a.size() != 1 ||
            (a[0]->kind != Kind::List && a[0]->kind != Kind::Tuple && a[0]->kind != Kind::Set))
          error("set expects one list");
        s->items = a[0]->items;
      }
      return s;
    }
    case G::Size:
      if (a.size() != 1 || a[0]->kind != Kind::Tuple) error("torch.Size expects one tuple");
      return tuple(a[0]->items);
    case G::CodecsEncode:
      return latin1(a);
    case G::Inert: {
      Value* o = make(Kind::Object);
      o->s = fn->s;
      o->items = a;
      return o;
    }
    case G::Function:
      break;
  }
  error("unsupported global '", fn->s, "' (called with ", a.size(),
        " arguments); only data, tensors and inert classes are read");
}

// _codecs.encode(text, "latin1"): protocol 2's spelling of Python 3 bytes. Each code point is one byte.
Value* Reader::latin1(const std::vector<Value*>& a) {
  if (a.size() != 2 || a[0]->kind != Kind::Str || a[1]->kind != Kind::Str ||
      (a[1]->s != "latin1" && a[1]->s != "latin-1"))
    error("_codecs.encode is only read as encode(str, 'latin1')");
  Value* b = make(Kind::Bytes);
  const std::string& s = a[0]->s;
  for (size_t k = 0; k < s.size();) {
    const uint8_t c = uint8_t(s[k]);
    if (c < 0x80) {
      b->s.push_back(char(c));
      k += 1;
    } else if ((c & 0xE0) == 0xC0 && k + 1 < s.size() && c <= 0xC3 && (uint8_t(s[k + 1]) & 0xC0) == 0x80) {
      b->s.push_back(char(((c & 0x1F) << 6) | (uint8_t(s[k + 1]) & 0x3F)));
      k += 2;
    } else {
      error("_codecs.encode: text is not latin-1");
    }
  }
  return b;
}

Value* Reader::persistent(const Value* pid) {
  if (!isTupleOf(pid, 5, 5) || pid->items[0]->kind != Kind::Str || pid->items[0]->s != "storage")
    error("persistent id is not ('storage', type, key, location, numel)");
  const auto& p = pid->items;
  if (p[1]->kind != Kind::Global) error("storage type is a ", kindName(p[1]->kind), ", not a class");
  const char* dtype = storageDtype(p[1]->s);
  if (!dtype) error("unsupported storage type '", p[1]->s, "'");
  if (p[2]->kind != Kind::Str || p[3]->kind != Kind::Str || p[4]->kind != Kind::Int || p[4]->i < 0 ||
      p[4]->i > (int64_t(1) << 60))
    error("storage key, location or size malformed");
  Value* s = make(Kind::Storage);
  s->tensor.dtype = dtype;
  s->tensor.storage_key = p[2]->s;
  s->tensor.location = p[3]->s;
  s->tensor.storage_numel = p[4]->i;
  return s;
}

}  // namespace ywb::pickle
