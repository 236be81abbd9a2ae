#include "io/unpickler.h"

#include "io/pickle_reader.h"

namespace ywb::pickle {

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
