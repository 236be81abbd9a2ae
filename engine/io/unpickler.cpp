#include "io/unpickler.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "core/error.h"
#include "io/pickle_rules.h"

namespace ywb::pickle {
namespace {

class Reader {
 public:
  Reader(const uint8_t* data, size_t size, const std::string& source)
      : data_(data), size_(size), src_(source) {}

  PickleData run() {
    while (true) {
      op_pos_ = pos_;
      if (pos_ >= size_) fail(src_, ": truncated pickle (ends at byte ", size_, " without STOP)");
      op_ = data_[pos_++];
      if (op_ == '.') break;
      step();
    }
    if (stack_.empty()) error("empty stack at STOP");
    out_.root = stack_.back();
    return std::move(out_);
  }

 private:
  template <typename... Parts>
  [[noreturn]] void error(Parts&&... parts) const {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op_);
    fail(src_, ": byte ", op_pos_, " (opcode ", hex, " ", opName(op_), "): ", std::forward<Parts>(parts)...);
  }

  const uint8_t* take(uint64_t n) {
    if (n > size_ - pos_) error("truncated pickle: needs ", n, " more bytes, ", size_ - pos_, " left");
    const uint8_t* p = data_ + pos_;
    pos_ += size_t(n);
    return p;
  }
  uint64_t le(int bytes) {
    const uint8_t* p = take(uint64_t(bytes));
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
    return v;
  }
  std::string line() {
    const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
    if (!nl) error("truncated pickle: line without end");
    const size_t n = size_t(static_cast<const uint8_t*>(nl) - (data_ + pos_));
    std::string s(reinterpret_cast<const char*>(take(n)), n);
    ++pos_;
    return s;
  }

  void push(Value* v) { stack_.push_back(v); }
  Value* pop() {
    if (stack_.size() <= floor()) error("stack underflow");
    Value* v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Value* top() {
    if (stack_.size() <= floor()) error("stack underflow");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<Value*> popMark() {
    if (marks_.empty()) error("no MARK on the stack");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Value*> items(stack_.begin() + std::ptrdiff_t(m), stack_.end());
    stack_.resize(m);
    return items;
  }

  Value* make(Kind k) { return out_.make(k); }
  Value* makeInt(int64_t v) {
    Value* x = make(Kind::Int);
    x->i = v;
    return x;
  }
  Value* makeStr(Kind k, const uint8_t* p, uint64_t n) {
    Value* x = make(k);
    x->s.assign(reinterpret_cast<const char*>(p), size_t(n));
    return x;
  }
  Value* tuple(std::vector<Value*> items) {
    Value* t = make(Kind::Tuple);
    t->items = std::move(items);
    return t;
  }
  Value* longInt(uint64_t n) {
    if (n > 8) error("integer of ", n, " bytes does not fit 64 bits");
    const uint8_t* p = take(n);
    uint64_t v = 0;
    for (uint64_t k = n; k-- > 0;) v = (v << 8) | p[k];
    if (n > 0 && n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t(0) << (8 * n);  // sign-extend
    int64_t s;
    std::memcpy(&s, &v, sizeof s);
    return makeInt(s);
  }

  void memoPut(uint64_t idx) { memo_[idx] = top(); }
  void memoGet(uint64_t idx) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) error("memo entry ", idx, " was never stored");
    push(it->second);
  }

  Value* global(const std::string& module, const std::string& name) {
    if (deniedModule(module) && classifyGlobal(module, name) == G::Function)
      error("refuses global '", module, ".", name,
            "': a PyTorch checkpoint never needs it (this pickle may be crafted to run code)");
    Value* g = make(Kind::Global);
    g->s = module + "." + name;
    g->i = int64_t(classifyGlobal(module, name));
    return g;
  }

  static bool isTupleOf(const Value* v, size_t lo, size_t hi) {
    return v->kind == Kind::Tuple && v->items.size() >= lo && v->items.size() <= hi;
  }
  std::vector<int64_t> intTuple(const Value* v, const char* what) {
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
  Value* rebuildTensor(const Value* args, size_t lo, size_t hi) {
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

  Value* call(const Value* fn, Value* args, bool newobj) {
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
  Value* latin1(const std::vector<Value*>& a) {
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

  Value* persistent(const Value* pid) {
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

  void setItems(Value* target, const std::vector<Value*>& kv) {
    if (kv.size() % 2) error("odd number of items for a dict");
    if (target->kind != Kind::Dict && target->kind != Kind::Object)
      error("sets items on a ", kindName(target->kind));
    for (size_t k = 0; k < kv.size(); k += 2) target->set(kv[k], kv[k + 1]);
  }
  void appendItems(Value* target, const std::vector<Value*>& items) {
    if (target->kind == Kind::List) {
      target->items.insert(target->items.end(), items.begin(), items.end());
    } else if (target->kind == Kind::Object) {
      target->appended.insert(target->appended.end(), items.begin(), items.end());
    } else {
      error("appends to a ", kindName(target->kind));
    }
  }

  void step();

  const uint8_t* data_;
  size_t size_;
  const std::string& src_;
  size_t pos_ = 0, op_pos_ = 0;
  uint8_t op_ = 0;
  std::vector<Value*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Value*> memo_;
  PickleData out_;
};

void Reader::step() {
  switch (op_) {
    case 0x80: {  // PROTO n
      const uint8_t v = *take(1);
      if (v > 4) error("pickle protocol ", int(v), " is not supported (torch.save writes 2)");
      return;
    }
    case 0x95:
      take(8);
      return;  // FRAME: a length hint only
    case '(':
      marks_.push_back(stack_.size());
      return;
    case '0':
      pop();
      return;
    case '1':
      popMark();
      return;
    case '2':
      push(top());
      return;
    case 'N':
      push(make(Kind::None));
      return;
    case 0x88:
    case 0x89: {
      Value* b = make(Kind::Bool);
      b->b = op_ == 0x88;
      push(b);
      return;
    }
    case 'J': {
      const uint32_t u = uint32_t(le(4));
      int32_t s;
      std::memcpy(&s, &u, sizeof s);
      push(makeInt(s));
      return;
    }
    case 'K':
      push(makeInt(int64_t(le(1))));
      return;
    case 'M':
      push(makeInt(int64_t(le(2))));
      return;
    case 0x8a:
      push(longInt(le(1)));
      return;
    case 0x8b: {
      const uint64_t n = le(4);
      if (n > 0x7FFFFFFF) error("negative LONG4 length");
      push(longInt(n));
      return;
    }
    case 'G': {
      const uint8_t* p = take(8);
      uint64_t u = 0;
      for (int k = 0; k < 8; ++k) u = (u << 8) | p[k];  // big-endian
      Value* f = make(Kind::Float);
      std::memcpy(&f->f, &u, sizeof u);
      push(f);
      return;
    }
    case 'X':
    case 'T':
    case 'B': {
      const uint64_t n = le(4);
      push(makeStr(op_ == 'B' ? Kind::Bytes : Kind::Str, take(n), n));
      return;
    }
    case 'U':
    case 'C':
    case 0x8c: {
      const uint64_t n = le(1);
      push(makeStr(op_ == 'C' ? Kind::Bytes : Kind::Str, take(n), n));
      return;
    }
    case 0x8d:
    case 0x8e: {
      const uint64_t n = le(8);
      push(makeStr(op_ == 0x8e ? Kind::Bytes : Kind::Str, take(n), n));
      return;
    }
    case ']':
      push(make(Kind::List));
      return;
    case '}':
      push(make(Kind::Dict));
      return;
    case ')':
      push(make(Kind::Tuple));
      return;
    case 0x8f:
      push(make(Kind::Set));
      return;
    case 'l': {
      Value* l = make(Kind::List);
      l->items = popMark();
      push(l);
      return;
    }
    case 't':
      push(tuple(popMark()));
      return;
    case 0x91: {
      Value* s = make(Kind::Set);
      s->items = popMark();
      push(s);
      return;
    }
    case 0x85:
    case 0x86:
    case 0x87: {
      const size_t n = size_t(op_ - 0x84);
      std::vector<Value*> items(n);
      for (size_t k = n; k-- > 0;) items[k] = pop();
      push(tuple(std::move(items)));
      return;
    }
    case 'd': {
      const std::vector<Value*> kv = popMark();
      Value* d = make(Kind::Dict);
      setItems(d, kv);
      push(d);
      return;
    }
    case 'a': {
      Value* v = pop();
      appendItems(top(), {v});
      return;
    }
    case 'e': {
      const std::vector<Value*> items = popMark();
      appendItems(top(), items);
      return;
    }
    case 0x90: {  // ADDITEMS
      const std::vector<Value*> items = popMark();
      Value* s = top();
      if (s->kind != Kind::Set) error("adds items to a ", kindName(s->kind));
      s->items.insert(s->items.end(), items.begin(), items.end());
      return;
    }
    case 's': {
      Value* v = pop();
      Value* k = pop();
      setItems(top(), {k, v});
      return;
    }
    case 'u': {
      const std::vector<Value*> kv = popMark();
      setItems(top(), kv);
      return;
    }
    case 'h':
      memoGet(le(1));
      return;
    case 'j':
      memoGet(le(4));
      return;
    case 'q':
      memoPut(le(1));
      return;
    case 'r':
      memoPut(le(4));
      return;
    case 0x94:
      memoPut(memo_.size());
      return;  // MEMOIZE
    case 'c': {
      const std::string module = line();
      const std::string name = line();
      push(global(module, name));
      return;
    }
    case 0x93: {  // STACK_GLOBAL
      Value* name = pop();
      Value* module = pop();
      if (module->kind != Kind::Str || name->kind != Kind::Str) error("module and name must be strings");
      push(global(module->s, name->s));
      return;
    }
    case 'Q':
      push(persistent(pop()));
      return;
    case 'R': {
      Value* args = pop();
      Value* fn = pop();
      push(call(fn, args, false));
      return;
    }
    case 0x81: {  // NEWOBJ: cls.__new__(cls, *args)
      Value* args = pop();
      Value* cls = pop();
      push(call(cls, args, true));
      return;
    }
    case 0x92: {  // NEWOBJ_EX: keyword arguments are kept only as data of an inert object
      Value* kwargs = pop();
      Value* args = pop();
      Value* cls = pop();
      Value* o = call(cls, args, true);
      if (o->kind == Kind::Object) o->state = kwargs;
      push(o);
      return;
    }
    case 'b': {  // BUILD: the state becomes data of the object; nothing's __setstate__ runs
      Value* state = pop();
      Value* target = top();
      if (target->kind == Kind::Object || target->kind == Kind::Dict) {
        target->state = state;
      } else if (target->kind != Kind::Tensor) {
        error("BUILD on a ", kindName(target->kind));
      }
      return;
    }
    default:
      error("unsupported opcode (torch.save pickles use protocol 2 opcodes only; is this a PyTorch file?)");
  }
}

}  // namespace

size_t dtypeSize(const std::string& d) {
  if (d == "F64" || d == "I64") return 8;
  if (d == "F32" || d == "I32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL") return 1;
  return 0;
}

PickleData unpickle(const uint8_t* data, size_t size, const std::string& source) {
  return Reader(data, size, source).run();
}

}  // namespace ywb::pickle
