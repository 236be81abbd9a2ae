// The restricted unpickler's reader (internal to engine/io): the stack machine in unpickler.cpp, what a
// global builds when it is called in pickle_globals.cpp. The rules it applies are documented in unpickler.h.
// Thread rules: one Reader per pickle, on one thread.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "io/pickle_rules.h"
#include "io/pickle_value.h"

namespace ywb::pickle {

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

  // What a global builds when called (pickle_globals.cpp): data, tensors and inert objects only.
  Value* global(const std::string& module, const std::string& name);
  static bool isTupleOf(const Value* v, size_t lo, size_t hi);
  std::vector<int64_t> intTuple(const Value* v, const char* what);
  Value* rebuildTensor(const Value* args, size_t lo, size_t hi);
  Value* call(const Value* fn, Value* args, bool newobj);
  Value* latin1(const std::vector<Value*>& a);
  Value* persistent(const Value* pid);

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

}  // namespace ywb::pickle
