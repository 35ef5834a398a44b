// Python sets beyond add and `in`: the operators | & - ^ (new sets; |= &= -= ^= update the set
// in place, as CPython does), subset/superset comparisons, and the methods (union,
// intersection, difference, symmetric_difference with any iterables, update forms, issubset,
// issuperset, isdisjoint, discard, remove, pop, clear, copy). Elements keep insertion order
// (CPython's order is by hash, which kernels cannot observe portably).
#include <fmt/core.h>

#include "nki/core_ops.h"
#include "nki/core_types.h"
#include "nki/interpreter.h"

namespace nki {

namespace {

std::shared_ptr<SetObj> new_set(const std::vector<Value>& items, bool frozen = false) {
  auto s = std::make_shared<SetObj>();
  for (const Value& v : items) s->add(v);
  s->frozen = frozen;
  return s;
}

// The methods that change a set (absent from a frozenset).
bool mutates(std::string_view name) {
  for (const char* m : {"add", "update", "intersection_update", "difference_update", "symmetric_difference_update",
                        "discard", "remove", "pop", "clear"})
    if (name == m) return true;
  return false;
}

bool has(const SetObj& s, const Value& v) {
  for (const Value& item : s.items)
    if (values_equal(item, v)) return true;
  return false;
}

// The elements of any iterable as a set (the other operand of a method).
std::shared_ptr<SetObj> as_set(Interpreter& in, const Value& v) {
  if (auto* s = dynamic_cast<SetObj*>(v.is_object() ? v.object().get() : nullptr))
    return std::static_pointer_cast<SetObj>(s->shared_from_this());
  auto out = std::make_shared<SetObj>();
  auto it = in.iterate(v);
  for (Value x; it->next(x);) {
    in.charge_steps(1);
    out->add(x);
  }
  return out;
}

// a op b for the four set operators.
std::shared_ptr<SetObj> combine(BinOp op, const SetObj& a, const SetObj& b) {
  auto out = std::make_shared<SetObj>();
  switch (op) {
    case BinOp::BitOr:
      for (const Value& v : a.items) out->add(v);
      for (const Value& v : b.items) out->add(v);
      break;
    case BinOp::BitAnd:
      for (const Value& v : a.items)
        if (has(b, v)) out->add(v);
      break;
    case BinOp::Sub:
      for (const Value& v : a.items)
        if (!has(b, v)) out->add(v);
      break;
    default:  // BitXor
      for (const Value& v : a.items)
        if (!has(b, v)) out->add(v);
      for (const Value& v : b.items)
        if (!has(a, v)) out->add(v);
      break;
  }
  return out;
}

bool is_set_operator(BinOp op) { return op == BinOp::BitOr || op == BinOp::BitAnd || op == BinOp::Sub || op == BinOp::BitXor; }

bool subset(const SetObj& a, const SetObj& b) {
  for (const Value& v : a.items)
    if (!has(b, v)) return false;
  return true;
}

SetObj* set_operand(const Value& v) { return v.is_object() ? dynamic_cast<SetObj*>(v.object().get()) : nullptr; }

void no_kwargs(const CallArgs& a, const std::string& name) {
  if (!a.kwargs.empty()) throw NkiError(ErrorKind::Type, fmt::format("{}() takes no keyword arguments", name));
}

void expect_count(const CallArgs& a, size_t n, const std::string& name) {
  no_kwargs(a, name);
  if (a.args.size() != n)
    throw NkiError(ErrorKind::Type, fmt::format("{}() takes exactly {} argument{} ({} given)", name, n, n == 1 ? "" : "s",
                                                a.args.size()));
}

using SetMethod = Value (*)(Interpreter&, SetObj&, CallArgs&, const std::string&);

// union/intersection/difference/symmetric_difference(*others) and their _update forms.
template <BinOp Op, bool Update>
Value combine_method(Interpreter& in, SetObj& self, CallArgs& a, const std::string& name) {
  no_kwargs(a, name);
  if (Op == BinOp::BitXor && a.args.size() != 1) expect_count(a, 1, name);
  auto acc = new_set(self.items);
  for (const Value& other : a.args) acc = combine(Op, *acc, *as_set(in, other));
  acc->frozen = self.frozen;
  if (!Update) return Value(acc);
  self.replace(acc->items);
  return Value();
}

const std::vector<std::pair<std::string_view, SetMethod>>& set_methods() {
  static const std::vector<std::pair<std::string_view, SetMethod>> table = {
      {"add", [](Interpreter&, SetObj& s, CallArgs& a, const std::string& n) { expect_count(a, 1, n); s.add(a.args[0]); return Value(); }},
      {"union", combine_method<BinOp::BitOr, false>},
      {"intersection", combine_method<BinOp::BitAnd, false>},
      {"difference", combine_method<BinOp::Sub, false>},
      {"symmetric_difference", combine_method<BinOp::BitXor, false>},
      {"update", combine_method<BinOp::BitOr, true>},
      {"intersection_update", combine_method<BinOp::BitAnd, true>},
      {"difference_update", combine_method<BinOp::Sub, true>},
      {"symmetric_difference_update", combine_method<BinOp::BitXor, true>},
      {"issubset", [](Interpreter& in, SetObj& s, CallArgs& a, const std::string& n) {
         expect_count(a, 1, n);
         return Value::from_bool(subset(s, *as_set(in, a.args[0])));
       }},
      {"issuperset", [](Interpreter& in, SetObj& s, CallArgs& a, const std::string& n) {
         expect_count(a, 1, n);
         return Value::from_bool(subset(*as_set(in, a.args[0]), s));
       }},
      {"isdisjoint", [](Interpreter& in, SetObj& s, CallArgs& a, const std::string& n) {
         expect_count(a, 1, n);
         return Value::from_bool(combine(BinOp::BitAnd, s, *as_set(in, a.args[0]))->items.empty());
       }},
      {"discard", [](Interpreter&, SetObj& s, CallArgs& a, const std::string& n) { expect_count(a, 1, n); s.remove(a.args[0]); return Value(); }},
      {"remove", [](Interpreter&, SetObj& s, CallArgs& a, const std::string& n) {
         expect_count(a, 1, n);
         if (!s.remove(a.args[0])) {
           throw NkiError(ErrorKind::Index, "KeyError", a.args[0].repr());
         }
         return Value();
       }},
      {"pop", [](Interpreter&, SetObj& s, CallArgs& a, const std::string& n) {
         expect_count(a, 0, n);
         if (s.items.empty()) {
           throw NkiError(ErrorKind::Index, "KeyError", "'pop from an empty set'");
         }
         Value v = s.items.front();
         s.erase(0);
         return v;
       }},
      {"clear", [](Interpreter&, SetObj& s, CallArgs& a, const std::string& n) { expect_count(a, 0, n); s.replace({}); return Value(); }},
      {"copy", [](Interpreter&, SetObj& s, CallArgs& a, const std::string& n) {
         expect_count(a, 0, n);
         return s.frozen ? Value(s.shared_from_this()) : Value(new_set(s.items));
       }},
  };
  return table;
}

}  // namespace

bool SetObj::remove(const Value& v) {
  size_t i = position(v);
  if (i == KeyIndex::npos) return false;
  erase(i);
  return true;
}

bool SetObj::has_attr(std::string_view name) const {
  if (frozen && mutates(name)) return false;
  for (auto& [n, fn] : set_methods())
    if (n == name) return true;
  return false;
}

Value SetObj::get_attr(Interpreter& in, std::string_view name) {
  for (auto& [n, fn] : set_methods()) {
    if (n != name || (frozen && mutates(name))) continue;
    auto self = std::static_pointer_cast<SetObj>(shared_from_this());
    std::string full = type_name() + "." + std::string(name);
    SetMethod method = fn;
    return Value(std::make_shared<BuiltinObj>(full, [self, method, full](Interpreter& in2, CallArgs& a) {
      return method(in2, *self, a, full);
    }));
  }
  return Object::get_attr(in, name);
}

std::optional<Value> SetObj::binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) {
  SetObj* o = set_operand(other);
  if (!o || !is_set_operator(op)) return std::nullopt;
  auto out = reflected ? combine(op, *o, *this) : combine(op, *this, *o);
  out->frozen = reflected ? o->frozen : frozen;  // the left operand's type
  return Value(out);
}

std::optional<Value> SetObj::inplace_op(Interpreter& in, BinOp op, const Value& value) {
  SetObj* o = set_operand(value);
  if (!o || !is_set_operator(op)) return std::nullopt;
  if (frozen) return binary_op(in, op, value, false);  // `fs |= x` binds a new frozenset
  replace(combine(op, *this, *o)->items);
  return Value(shared_from_this());
}

std::optional<Value> SetObj::compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) {
  SetObj* o = set_operand(other);
  if (!o) return std::nullopt;
  const SetObj& a = reflected ? *o : *this;
  const SetObj& b = reflected ? *this : *o;
  bool same_size = a.items.size() == b.items.size();
  switch (op) {
    case CmpOp::Eq: return Value::from_bool(a.equals(b));
    case CmpOp::Ne: return Value::from_bool(!a.equals(b));
    case CmpOp::Le: return Value::from_bool(subset(a, b));
    case CmpOp::Lt: return Value::from_bool(subset(a, b) && !same_size);
    case CmpOp::Ge: return Value::from_bool(subset(b, a));
    case CmpOp::Gt: return Value::from_bool(subset(b, a) && !same_size);
  }
  return std::nullopt;
}

}  // namespace nki
