// Python operator semantics for the core types (int64 ints with overflow errors, floats, str,
// tuple, list), and dispatch to library objects: left operand first, then the reflected right one.
#include <cmath>

#include <fmt/core.h>

#include "nki/core_ops.h"
#include "nki/interp_impl.h"
#include "nki/nesting.h"

namespace nki::core {
// "%d rows of %-8s" % (n, name): printf-style formatting of a str's `%` operator (format.cpp).
std::string percent_format(Interpreter& in, const std::string& fmt, const Value& args);
}  // namespace nki::core

namespace nki::detail {

namespace {

[[noreturn]] void overflow(BinOp op) {
  throw NkiError(ErrorKind::Value, fmt::format("integer overflow in '{}': the result does not fit in 64 bits", symbol(op)));
}

[[noreturn]] void unsupported_operands(const char* op, const Value& a, const Value& b) {
  throw NkiError(ErrorKind::Type,
                 fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", op, a.type_name(), b.type_name()));
}

int64_t int_pow(int64_t base, int64_t exp) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1)
      if (__builtin_mul_overflow(result, base, &result)) overflow(BinOp::Pow);
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) {
      if (result != 0) overflow(BinOp::Pow);
    }
  }
  return result;
}

Value int_binary(BinOp op, int64_t a, int64_t b, bool both_bool) {
  int64_t c;
  switch (op) {
    case BinOp::Add: if (__builtin_add_overflow(a, b, &c)) overflow(op); return Value::from_int(c);
    case BinOp::Sub: if (__builtin_sub_overflow(a, b, &c)) overflow(op); return Value::from_int(c);
    case BinOp::Mul: if (__builtin_mul_overflow(a, b, &c)) overflow(op); return Value::from_int(c);
    case BinOp::Div:
      if (b == 0) throw NkiError(ErrorKind::Value, "ZeroDivisionError", "division by zero");
      return Value::from_float(double(a) / double(b));
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      if (b == 0) throw NkiError(ErrorKind::Value, "ZeroDivisionError", "integer division or modulo by zero");
      if (a == INT64_MIN && b == -1) {
        if (op == BinOp::Mod) return Value::from_int(0);
        overflow(op);
      }
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
      }
      return Value::from_int(op == BinOp::FloorDiv ? q : r);
    }
    case BinOp::Pow:
      if (b < 0) return Value::from_float(std::pow(double(a), double(b)));
      return Value::from_int(int_pow(a, b));
    case BinOp::LShift:
      if (b < 0) throw NkiError(ErrorKind::Value, "negative shift count");
      if (a == 0) return Value::from_int(0);
      if (b >= 63 || (a > 0 ? a > (INT64_MAX >> b) : a < (INT64_MIN >> b))) overflow(op);
      return Value::from_int(a * (int64_t(1) << b));
    case BinOp::RShift:
      if (b < 0) throw NkiError(ErrorKind::Value, "negative shift count");
      return Value::from_int(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
    case BinOp::BitAnd: return both_bool ? Value::from_bool(a & b) : Value::from_int(a & b);
    case BinOp::BitOr: return both_bool ? Value::from_bool(a | b) : Value::from_int(a | b);
    case BinOp::BitXor: return both_bool ? Value::from_bool(a ^ b) : Value::from_int(a ^ b);
    case BinOp::MatMul: break;
  }
  throw NkiError(ErrorKind::Type, fmt::format("unsupported operand type(s) for {}: 'int' and 'int'", symbol(op)));
}

Value float_binary(BinOp op, double a, double b, const Value& va, const Value& vb) {
  switch (op) {
    case BinOp::Add: return Value::from_float(a + b);
    case BinOp::Sub: return Value::from_float(a - b);
    case BinOp::Mul: return Value::from_float(a * b);
    case BinOp::Div:
      if (b == 0) throw NkiError(ErrorKind::Value, "ZeroDivisionError", "float division by zero");
      return Value::from_float(a / b);
    case BinOp::FloorDiv:
      if (b == 0) throw NkiError(ErrorKind::Value, "ZeroDivisionError", "float floor division by zero");
      return Value::from_float(std::floor(a / b));
    case BinOp::Mod: {
      if (b == 0) throw NkiError(ErrorKind::Value, "ZeroDivisionError", "float modulo by zero");
      double r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return Value::from_float(r);
    }
    case BinOp::Pow:
      if (a == 0 && b < 0) throw NkiError(ErrorKind::Value, "0.0 cannot be raised to a negative power");
      if (a < 0 && b != std::floor(b)) throw NkiError(ErrorKind::Value, "negative number raised to a fractional power (complex result)");
      return Value::from_float(std::pow(a, b));
    default: unsupported_operands(symbol(op), va, vb);
  }
}

Value repeat(const Value& seq, int64_t times) {
  if (times < 0) times = 0;
  if (auto* s = seq.as<StrObj>()) {
    core::check_container_size(uint64_t(times) * s->s.size(), 1);
    std::string out;
    out.reserve(s->s.size() * size_t(times));
    for (int64_t i = 0; i < times; ++i) out += s->s;
    return make_str(std::move(out));
  }
  const std::vector<Value>& items = seq.is(ObjType::List) ? seq.as<ListObj>()->items : seq.as<TupleObj>()->items;
  if (!items.empty() && uint64_t(times) > UINT64_MAX / items.size()) core::check_container_size(UINT64_MAX, 1);
  core::check_container_size(uint64_t(times) * items.size(), sizeof(Value));
  std::vector<Value> out;
  out.reserve(items.size() * size_t(times));
  for (int64_t i = 0; i < times; ++i) out.insert(out.end(), items.begin(), items.end());
  return seq.is(ObjType::List) ? make_list(std::move(out)) : make_tuple(std::move(out));
}

bool is_sequence(const Value& v) { return v.is(ObjType::Str) || v.is(ObjType::List) || v.is(ObjType::Tuple); }

std::optional<Value> core_binary(BinOp op, const Value& a, const Value& b) {
  if (op == BinOp::Add) {
    if (auto* sa = a.as<StrObj>(); sa && b.is(ObjType::Str)) {
      core::check_container_size(sa->s.size() + b.as<StrObj>()->s.size(), 1);
      return make_str(sa->s + b.as<StrObj>()->s);
    }
    bool lists = a.is(ObjType::List) && b.is(ObjType::List), tuples = a.is(ObjType::Tuple) && b.is(ObjType::Tuple);
    if (lists || tuples) {
      const auto& x = lists ? a.as<ListObj>()->items : a.as<TupleObj>()->items;
      const auto& y = lists ? b.as<ListObj>()->items : b.as<TupleObj>()->items;
      core::check_container_size(x.size() + y.size(), sizeof(Value));
      std::vector<Value> out(x);
      out.insert(out.end(), y.begin(), y.end());
      return lists ? make_list(std::move(out)) : make_tuple(std::move(out));
    }
  }
  if (op == BinOp::Mul) {
    if (is_sequence(a) && (b.is_int() || b.is_bool())) return repeat(a, b.as_int());
    if (is_sequence(b) && (a.is_int() || a.is_bool())) return repeat(b, a.as_int());
  }
  return std::nullopt;
}

int compare_numbers(const Value& a, const Value& b) {
  if (a.is_float() || b.is_float()) {
    double x = a.as_float(), y = b.as_float();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  int64_t x = a.as_int(), y = b.as_int();
  return x < y ? -1 : x > y ? 1 : 0;
}

bool ordered(CmpOp op, int c) {
  switch (op) {
    case CmpOp::Lt: return c < 0;
    case CmpOp::Le: return c <= 0;
    case CmpOp::Gt: return c > 0;
    case CmpOp::Ge: return c >= 0;
    case CmpOp::Eq: return c == 0;
    case CmpOp::Ne: return c != 0;
  }
  return false;
}

std::optional<int> core_order(InterpState& st, const Value& a, const Value& b);

// Lexicographic order of two sequences (tuples, lists), Python's way.
std::optional<int> sequence_order(InterpState& st, const std::vector<Value>& x, const std::vector<Value>& y) {
  NestingGuard depth("in comparison");
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (values_equal(x[i], y[i])) continue;
    return core_order(st, x[i], y[i]);
  }
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

std::optional<int> core_order(InterpState& st, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if ((a.is_float() && std::isnan(a.as_float())) || (b.is_float() && std::isnan(b.as_float()))) return std::nullopt;
    return compare_numbers(a, b);
  }
  if (auto* sa = a.as<StrObj>(); sa && b.is(ObjType::Str)) return sa->s.compare(b.as<StrObj>()->s) < 0 ? -1 : sa->s == b.as<StrObj>()->s ? 0 : 1;
  if (a.is(ObjType::Tuple) && b.is(ObjType::Tuple)) return sequence_order(st, a.as<TupleObj>()->items, b.as<TupleObj>()->items);
  if (a.is(ObjType::List) && b.is(ObjType::List)) return sequence_order(st, a.as<ListObj>()->items, b.as<ListObj>()->items);
  return std::nullopt;
}

bool is_core(const Value& v) {
  if (!v.is_object()) return true;
  switch (v.object()->type()) {
    case ObjType::Str: case ObjType::Tuple: case ObjType::List: case ObjType::Dict: case ObjType::Range:
    case ObjType::Function: case ObjType::Builtin: case ObjType::Module: case ObjType::Slice: case ObjType::Ellipsis:
      return true;
    default: return false;
  }
}

Value plain_compare(InterpState& st, CmpOp op, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (op == CmpOp::Eq || op == CmpOp::Ne) return Value::from_bool(values_equal(a, b) == (op == CmpOp::Eq));
  }
  if (auto c = core_order(st, a, b)) return Value::from_bool(ordered(op, *c));
  if (op == CmpOp::Eq) return Value::from_bool(values_equal(a, b));
  if (op == CmpOp::Ne) return Value::from_bool(!values_equal(a, b));
  if (a.is_number() && b.is_number()) return Value::from_bool(false);  // NaN orderings
  throw NkiError(ErrorKind::Type, fmt::format("'{}' not supported between instances of '{}' and '{}'", symbol(op),
                                              a.type_name(), b.type_name()));
}

}  // namespace

Value binary_op(InterpState& st, BinOp op, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return float_binary(op, a.as_float(), b.as_float(), a, b);
    return int_binary(op, a.as_int(), b.as_int(), a.is_bool() && b.is_bool());
  }
  if (is_core(a) && is_core(b))
    if (auto r = core_binary(op, a, b)) return *r;
  if (a.is_object() && !is_core(a))
    if (auto r = a.object()->binary_op(st.in, op, b, false)) return *r;
  if (b.is_object() && !is_core(b))
    if (auto r = b.object()->binary_op(st.in, op, a, true)) return *r;
  if (auto r = core_binary(op, a, b)) return *r;
  if (op == BinOp::Mod && a.is(ObjType::Str)) return make_str(core::percent_format(st.in, a.as<StrObj>()->s, b));
  unsupported_operands(symbol(op), a, b);
}

Value compare_op(InterpState& st, CmpKind op, const Value& a, const Value& b) {
  switch (op) {
    case CmpKind::Is:
    case CmpKind::IsNot: {
      bool same = a.kind() == b.kind() &&
                  (a.is_object() ? a.object() == b.object() : a.is_none() || values_equal(a, b));
      return Value::from_bool(same == (op == CmpKind::Is));
    }
    case CmpKind::In:
    case CmpKind::NotIn: {
      if (!b.is_object()) throw NkiError(ErrorKind::Type, fmt::format("argument of type '{}' is not iterable", b.type_name()));
      bool found = b.object()->contains(st.in, a);
      return Value::from_bool(found == (op == CmpKind::In));
    }
    default: break;
  }
  CmpOp cmp = static_cast<CmpOp>(static_cast<int>(op));  // Eq..Ge share their order with CmpOp
  if (a.is_object() && !is_core(a))
    if (auto r = a.object()->compare(st.in, cmp, b, false)) return *r;
  if (b.is_object() && !is_core(b))
    if (auto r = b.object()->compare(st.in, cmp, a, true)) return *r;
  return plain_compare(st, cmp, a, b);
}

Value unary_op(InterpState& st, UnOp op, const Value& v) {
  if (op == UnOp::Not) return Value::from_bool(!v.truthy());
  if (v.is_float()) {
    if (op == UnOp::Neg) return Value::from_float(-v.as_float());
    if (op == UnOp::Pos) return v;
  } else if (v.is_int() || v.is_bool()) {
    int64_t i = v.as_int();
    if (op == UnOp::Neg) {
      if (i == INT64_MIN) throw NkiError(ErrorKind::Value, "integer overflow in unary '-': the result does not fit in 64 bits");
      return Value::from_int(-i);
    }
    if (op == UnOp::Pos) return Value::from_int(i);
    if (op == UnOp::Invert) return Value::from_int(~i);
  } else if (v.is_object()) {
    if (auto r = v.object()->unary_op(st.in, op)) return *r;
  }
  throw NkiError(ErrorKind::Type, fmt::format("bad operand type for unary {}: '{}'", symbol(op), v.type_name()));
}

std::optional<Value> inplace_op(InterpState& st, BinOp op, const Value& target, const Value& v) {
  if (!target.is_object()) return std::nullopt;
  if (auto* list = target.as<ListObj>()) {
    if (op != BinOp::Add) return std::nullopt;
    std::vector<Value> more;
    auto it = iterate(st, v);
    for (Value x; it->next(x);) more.push_back(std::move(x));
    core::check_container_size(list->items.size() + more.size(), sizeof(Value));
    list->items.insert(list->items.end(), more.begin(), more.end());
    list->meter();
    return target;
  }
  if (is_core(target)) return std::nullopt;
  return target.object()->inplace_op(st.in, op, v);
}

}  // namespace nki::detail
