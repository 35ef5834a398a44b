// Indexing, slicing, iteration and membership of the core containers.
#include "nki/core_ops.h"

#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "nki/core_types.h"
#include "tensor/array.h"

namespace nki::core {

namespace {

constexpr uint64_t kDefaultContainerBytes = 4ull << 30;  // without a budget, still refuse absurd sizes

int64_t slice_part(const Value& v, int64_t fallback) {
  if (v.is_none()) return fallback;
  return to_int(v, "slice indices");
}

const std::vector<Value>* sequence_items(const Object& self) {
  if (self.type() == ObjType::Tuple) return &static_cast<const TupleObj&>(self).items;
  if (self.type() == ObjType::List) return &static_cast<const ListObj&>(self).items;
  return nullptr;
}

template <class Seq>
Seq take_slice(const Seq& items, const SliceBounds& b) {
  Seq out;
  out.reserve(static_cast<size_t>(b.count));
  for (int64_t i = 0, pos = b.start; i < b.count; ++i, pos += b.step) out.push_back(items[static_cast<size_t>(pos)]);
  return out;
}

std::string str_slice(const std::string& s, const SliceBounds& b) {
  std::string out;
  for (int64_t i = 0, pos = b.start; i < b.count; ++i, pos += b.step) out += s[static_cast<size_t>(pos)];
  return out;
}

[[noreturn]] void key_error(const Value& key) {
  throw NkiError(ErrorKind::Index, "KeyError", fmt::format("key {} is not in the dict", key.repr()));
}

Value range_item(const RangeObj& r, const Value& index) {
  if (auto* s = index.as<SliceObj>()) {
    SliceBounds b = resolve_slice(*s, r.size());
    int64_t step = r.step * b.step;
    return Value(std::make_shared<RangeObj>(r.start + b.start * r.step, r.start + b.stop * r.step, step));
  }
  return Value::from_int(r.start + sequence_index(index, r.size(), "range object") * r.step);
}

void set_list_slice(ListObj& list, const SliceObj& s, const Value& value, Interpreter& in) {
  std::vector<Value> replacement;
  auto it = value.is_object() ? value.object()->iter(in) : nullptr;
  if (!it) throw NkiError(ErrorKind::Type, "can only assign an iterable to a slice");
  for (Value v; it->next(v);) replacement.push_back(v);
  SliceBounds b = resolve_slice(s, int64_t(list.items.size()));
  if (b.step == 1) {
    int64_t stop = std::max(b.start, b.stop);
    list.items.erase(list.items.begin() + b.start, list.items.begin() + stop);
    list.items.insert(list.items.begin() + b.start, replacement.begin(), replacement.end());
    list.meter();
    return;
  }
  if (int64_t(replacement.size()) != b.count)
    throw NkiError(ErrorKind::Value, fmt::format("attempt to assign sequence of size {} to extended slice of size {}",
                                                 replacement.size(), b.count));
  for (int64_t i = 0, pos = b.start; i < b.count; ++i, pos += b.step) list.items[size_t(pos)] = replacement[size_t(i)];
}

class SequenceIterator : public Iterator {
 public:
  explicit SequenceIterator(ObjectPtr seq) : seq_(std::move(seq)) {}
  bool next(Value& out) override {
    const auto& items = *sequence_items(*seq_);  // re-read: lists may grow while iterated
    if (pos_ >= items.size()) return false;
    out = items[pos_++];
    return true;
  }

 private:
  ObjectPtr seq_;
  size_t pos_ = 0;
};

class RangeIterator : public Iterator {
 public:
  RangeIterator(int64_t start, int64_t step, int64_t count) : value_(start), step_(step), left_(count) {}
  bool next(Value& out) override {
    if (left_ <= 0) return false;
    out = Value::from_int(value_);
    value_ += step_;
    --left_;
    return true;
  }

 private:
  int64_t value_, step_, left_;
};

class StrIterator : public Iterator {
 public:
  explicit StrIterator(std::string s) : s_(std::move(s)) {}
  bool next(Value& out) override {
    if (pos_ >= s_.size()) return false;
    out = make_str(std::string(1, s_[pos_++]));
    return true;
  }

 private:
  std::string s_;
  size_t pos_ = 0;
};

// Continues a shared one-pass iterator (iter(zip(...)) is the zip itself).
class SharedIterator : public Iterator {
 public:
  explicit SharedIterator(std::shared_ptr<Object> owner, Iterator* it) : owner_(std::move(owner)), it_(it) {}
  bool next(Value& out) override { return it_ && it_->next(out); }

 private:
  std::shared_ptr<Object> owner_;
  Iterator* it_;
};

}  // namespace

SliceBounds resolve_slice(const SliceObj& s, int64_t len) {
  SliceBounds b;
  b.step = slice_part(s.step, 1);
  if (b.step == 0) throw NkiError(ErrorKind::Value, "slice step cannot be zero");
  bool forward = b.step > 0;
  auto clamp = [&](const Value& v, int64_t fallback) {
    if (v.is_none()) return fallback;
    int64_t i = slice_part(v, 0);
    if (i < 0) i += len;
    if (forward) return std::clamp<int64_t>(i, 0, len);
    return std::clamp<int64_t>(i, -1, len - 1);
  };
  b.start = clamp(s.start, forward ? 0 : len - 1);
  b.stop = clamp(s.stop, forward ? len : -1);
  if (forward) b.count = b.stop > b.start ? (b.stop - b.start + b.step - 1) / b.step : 0;
  else b.count = b.start > b.stop ? (b.start - b.stop - b.step - 1) / -b.step : 0;
  return b;
}

int64_t sequence_index(const Value& index, int64_t len, std::string_view what) {
  std::optional<Value> scalar = to_python_scalar(index);
  if (!scalar || scalar->is_float())
    throw NkiError(ErrorKind::Type, fmt::format("{} indices must be integers or slices, not {}",
                                                what.substr(0, what.find(' ')), index.type_name()));
  int64_t i = scalar->as_int();
  if (i < 0) i += len;
  if (i < 0 || i >= len) throw NkiError(ErrorKind::Index, fmt::format("{} index out of range", what));
  return i;
}

Value get_item(Interpreter& in, Object& self, const Value& index) {
  switch (self.type()) {
    case ObjType::Tuple:
    case ObjType::List: {
      const auto& items = *sequence_items(self);
      bool is_tuple = self.type() == ObjType::Tuple;
      if (auto* s = index.as<SliceObj>()) {
        auto part = take_slice(items, resolve_slice(*s, int64_t(items.size())));
        return is_tuple ? make_tuple(std::move(part)) : make_list(std::move(part));
      }
      return items[size_t(sequence_index(index, int64_t(items.size()), is_tuple ? "tuple" : "list"))];
    }
    case ObjType::Str: {
      const std::string& s = static_cast<StrObj&>(self).s;
      if (auto* sl = index.as<SliceObj>()) return make_str(str_slice(s, resolve_slice(*sl, int64_t(s.size()))));
      return make_str(std::string(1, s[size_t(sequence_index(index, int64_t(s.size()), "string"))]));
    }
    case ObjType::Dict: {
      if (Value* v = static_cast<DictObj&>(self).find(index)) return *v;
      key_error(index);
    }
    case ObjType::Range: return range_item(static_cast<RangeObj&>(self), index);
    default: break;
  }
  throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not subscriptable", self.type_name()));
}

void set_item(Interpreter& in, Object& self, const Value& index, const Value& value) {
  if (self.type() == ObjType::List) {
    auto& list = static_cast<ListObj&>(self);
    if (auto* s = index.as<SliceObj>()) return set_list_slice(list, *s, value, in);
    list.items[size_t(sequence_index(index, int64_t(list.items.size()), "list assignment"))] = value;
    return;
  }
  if (self.type() == ObjType::Dict) {
    auto& dict = static_cast<DictObj&>(self);
    if (index.is_object() && index.object()->type() == ObjType::List)
      throw NkiError(ErrorKind::Type, "unhashable type: 'list'");
    if (Value* v = dict.find(index)) {
      *v = value;
    } else {
      check_container_size(dict.items.size() + 1, 2 * sizeof(Value));
      dict.items.emplace_back(index, value);
      dict.meter();
    }
    return;
  }
  throw NkiError(ErrorKind::Type, fmt::format("'{}' object does not support item assignment", self.type_name()));
}

void del_item(Interpreter& in, Object& self, const Value& index) {
  if (self.type() == ObjType::List) {
    auto& items = static_cast<ListObj&>(self).items;
    if (auto* s = index.as<SliceObj>()) {
      SliceBounds b = resolve_slice(*s, int64_t(items.size()));
      std::vector<Value> kept;
      int64_t i = 0;
      std::vector<bool> drop(items.size(), false);
      for (int64_t k = 0, pos = b.start; k < b.count; ++k, pos += b.step) drop[size_t(pos)] = true;
      for (auto& v : items)
        if (!drop[size_t(i++)]) kept.push_back(std::move(v));
      items = std::move(kept);
      return;
    }
    items.erase(items.begin() + sequence_index(index, int64_t(items.size()), "list assignment"));
    return;
  }
  if (self.type() == ObjType::Dict) {
    auto& dict = static_cast<DictObj&>(self);
    if (size_t i = dict.position(index); i != KeyIndex::npos) {
      dict.erase(i);
      return;
    }
    key_error(index);
  }
  throw NkiError(ErrorKind::Type, fmt::format("'{}' object doesn't support item deletion", self.type_name()));
}

std::unique_ptr<Iterator> iter(Interpreter& in, Object& self) {
  switch (self.type()) {
    case ObjType::Tuple:
    case ObjType::List: return std::make_unique<SequenceIterator>(self.shared_from_this());
    case ObjType::Str: return std::make_unique<StrIterator>(static_cast<StrObj&>(self).s);
    case ObjType::Dict: {
      std::vector<Value> keys;
      for (auto& [k, v] : static_cast<DictObj&>(self).items) keys.push_back(k);
      return std::make_unique<VectorIterator>(std::move(keys));
    }
    case ObjType::Range: {
      auto& r = static_cast<RangeObj&>(self);
      return std::make_unique<RangeIterator>(r.start, r.step, r.size());
    }
    default: break;
  }
  throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not iterable", self.type_name()));
}

bool contains(Interpreter& in, Object& self, const Value& v) {
  switch (self.type()) {
    case ObjType::Str: {
      auto* needle = v.as<StrObj>();
      if (!needle)
        throw NkiError(ErrorKind::Type,
                       fmt::format("'in <string>' requires string as left operand, not {}", v.type_name()));
      return static_cast<StrObj&>(self).s.find(needle->s) != std::string::npos;
    }
    case ObjType::Tuple:
    case ObjType::List:
      for (const Value& item : *sequence_items(self))
        if (values_equal(item, v)) return true;
      return false;
    case ObjType::Dict: return static_cast<DictObj&>(self).find(v) != nullptr;
    case ObjType::Range: {
      auto& r = static_cast<RangeObj&>(self);
      if (!v.is_int() && !v.is_bool()) return false;
      int64_t x = v.as_int();
      bool inside = r.step > 0 ? (x >= r.start && x < r.stop) : (x <= r.start && x > r.stop);
      return inside && (x - r.start) % r.step == 0;
    }
    default: break;
  }
  std::unique_ptr<Iterator> it;
  try {
    it = self.iter(in);
  } catch (const NkiError&) {
    throw NkiError(ErrorKind::Type, fmt::format("argument of type '{}' is not iterable", self.type_name()));
  }
  for (Value item; it->next(item);)
    if (values_equal(item, v)) return true;
  return false;
}

size_t hash_value(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None: return 0x9e3779b9;
    case Value::Kind::Bool:
    case Value::Kind::Int: return std::hash<int64_t>()(v.as_int());
    case Value::Kind::Float: {
      double d = v.as_float();
      if (d == std::floor(d) && std::abs(d) < 9e18) return std::hash<int64_t>()(int64_t(d));
      return std::hash<double>()(d);
    }
    case Value::Kind::Object: return v.object()->hash();
  }
  return 0;
}

void check_container_size(uint64_t items, uint64_t item_bytes) {
  uint64_t available = kDefaultContainerBytes;
  if (auto* budget = tensor::AllocationBudget::current())
    available = budget->limit() > budget->used() ? budget->limit() - budget->used() : 0;
  available = std::min(available, kDefaultContainerBytes);
  if (item_bytes != 0 && items > available / item_bytes)
    throw NkiError(LimitKind::Memory, fmt::format("a container of {} items exceeds the memory limit", items));
}

}  // namespace nki::core

namespace nki {

int64_t RangeObj::size() const {
  if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / -step : 0;
}

std::string RangeObj::repr() const {
  if (step == 1) return fmt::format("range({}, {})", start, stop);
  return fmt::format("range({}, {}, {})", start, stop, step);
}

bool RangeObj::equals(const Object& o) const {
  if (o.type() != ObjType::Range) return false;
  auto& r = static_cast<const RangeObj&>(o);
  return r.start == start && r.stop == stop && r.step == step;
}

std::unique_ptr<Iterator> IteratorObj::iter(Interpreter& in) {
  return std::make_unique<core::SharedIterator>(shared_from_this(), it.get());
}

}  // namespace nki

namespace nki {

std::string SetObj::repr() const {
  if (items.empty()) return frozen ? "frozenset()" : "set()";
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].repr();
  return frozen ? "frozenset(" + out + "})" : out + "}";
}

size_t SetObj::hash() const {
  // Independent of the order of the elements, as equality is.
  size_t h = 0x345678 + items.size();
  for (const Value& v : items) {
    size_t e = core::hash_value(v);
    h ^= (e ^ (e << 16) ^ 89869747) * 3644798167u;
  }
  return h;
}

size_t SetObj::position(const Value& v) {
  return index.find(v, items.size(), [this](size_t p) -> const Value& { return items[p]; });
}

bool SetObj::contains(Interpreter& in, const Value& v) { return position(v) != KeyIndex::npos; }

void SetObj::erase(size_t position) {
  items.erase(items.begin() + long(position));
  index.invalidate();
}

void SetObj::replace(std::vector<Value> elements) {
  items = std::move(elements);
  index.invalidate();
  charge.set(sizeof(SetObj) + items.capacity() * sizeof(Value));
}

std::unique_ptr<Iterator> SetObj::iter(Interpreter& in) { return std::make_unique<VectorIterator>(items); }

bool SetObj::equals(const Object& other) const {
  auto* o = dynamic_cast<const SetObj*>(&other);
  if (!o || o->items.size() != items.size()) return false;
  for (const Value& v : items) {
    bool found = false;
    for (const Value& w : o->items) found = found || values_equal(v, w);
    if (!found) return false;
  }
  return true;
}

void SetObj::add(const Value& v) {
  auto* set = v.is_object() ? dynamic_cast<const SetObj*>(v.object().get()) : nullptr;
  if (v.is(ObjType::List) || v.is(ObjType::Dict) || (set && !set->frozen))
    throw NkiError(ErrorKind::Type, fmt::format("unhashable type: '{}'", v.type_name()));
  if (position(v) != KeyIndex::npos) return;
  core::check_container_size(items.size() + 1, sizeof(Value));
  items.push_back(v);
  charge.set(sizeof(SetObj) + items.capacity() * sizeof(Value));
}

}  // namespace nki
