// Object types of the language core beyond value.h: range objects, one-pass iterators (zip,
// enumerate, map, filter, reversed, generator expressions) and closure cells.
#pragma once

#include <memory>

#include "nki/value.h"

namespace nki {

struct RangeObj : Object {
  static constexpr ObjType kType = ObjType::Range;
  int64_t start, stop, step;
  RangeObj(int64_t b, int64_t e, int64_t s) : start(b), stop(e), step(s) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "range"; }
  std::string repr() const override;
  bool truthy() const override { return size() > 0; }
  std::optional<int64_t> length() const override { return size(); }
  int64_t size() const;
  bool equals(const Object& o) const override;
};

// A one-pass iterator exposed to Python code (what zip(...) returns); iter() of it continues it.
struct IteratorObj : Object {
  static constexpr ObjType kType = ObjType::Iterator;
  std::string name;  // "zip", "enumerate", "generator", ...
  std::unique_ptr<Iterator> it;
  IteratorObj(std::string n, std::unique_ptr<Iterator> i) : name(std::move(n)), it(std::move(i)) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return name; }
  std::unique_ptr<Iterator> iter(Interpreter& in) override;
};

// An iterator over a materialised vector of values.
class VectorIterator : public Iterator {
 public:
  explicit VectorIterator(std::vector<Value> items) : items_(std::move(items)) {}
  bool next(Value& out) override {
    if (pos_ >= items_.size()) return false;
    out = std::move(items_[pos_++]);
    return true;
  }

 private:
  std::vector<Value> items_;
  size_t pos_ = 0;
};

// A set (insertion-ordered, value equality); only what kernels need: literals, in, len, add.
struct SetObj : Object {
  std::vector<Value> items;  // insertion order; change it through add / remove / erase / replace
  MemoryCharge charge;
  bool frozen = false;  // a frozenset: no method changes it, and it is hashable (a set element, a dict key)
  std::string type_name() const override { return frozen ? "frozenset" : "set"; }
  size_t hash() const override;
  std::string repr() const override;
  bool truthy() const override { return !items.empty(); }
  std::optional<int64_t> length() const override { return int64_t(items.size()); }
  bool contains(Interpreter& in, const Value& v) override;
  std::unique_ptr<Iterator> iter(Interpreter& in) override;
  // set_object.cpp: the methods, the operators | & - ^ (and their in-place forms), subset order.
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override;
  std::optional<Value> inplace_op(Interpreter& in, BinOp op, const Value& value) override;
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override;
  bool equals(const Object& other) const override;  // same elements, any order
  void add(const Value& v);
  bool remove(const Value& v);  // false when absent
  void erase(size_t position);
  void replace(std::vector<Value> elements);  // every element at once (the in-place set operators)

 private:
  KeyIndex index;  // over `items`: appends are indexed at the next lookup, removals go through erase()
  size_t position(const Value& v);
};

// The storage of a variable captured by a nested function.
struct CellObj : Object {
  Value value;  // holds the unbound marker until assigned
  std::string type_name() const override { return "cell"; }
};

}  // namespace nki
