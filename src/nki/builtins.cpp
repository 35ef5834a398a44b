// Python builtins available to kernels and references, and the names the sandbox refuses.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "nki/core_ops.h"
#include "nki/classes.h"
#include "nki/interp_impl.h"
#include "nki/type_object.h"

namespace nki {

Value TypeObj::call(Interpreter& in, CallArgs& args) {
  if (!construct) throw NkiError(ErrorKind::Type, fmt::format("cannot create '{}' instances", name));
  return construct(in, args);
}

namespace detail {

namespace {

constexpr size_t kMaxOutputBytes = 16u << 20;

struct ForbiddenName {
  const char* name;
  const char* reason;
};
const ForbiddenName kForbidden[] = {
    {"open", "file access is not allowed"},
    {"eval", "dynamic code execution is not allowed"},
    {"exec", "dynamic code execution is not allowed"},
    {"compile", "dynamic code execution is not allowed"},
    {"__import__", "dynamic imports are not allowed"},
    {"globals", "reflection is not allowed"},
    {"locals", "reflection is not allowed"},
    {"vars", "reflection is not allowed"},
    {"dir", "reflection is not allowed"},
    {"type", "reflection is not allowed"},
    {"object", "reflection is not allowed"},
    {"super", "reflection is not allowed"},
    {"id", "reflection is not allowed"},
    {"setattr", "modifying attributes is not allowed"},
    {"delattr", "modifying attributes is not allowed"},
    {"input", "reading input is not allowed"},
    {"breakpoint", "debuggers are not allowed"},
    {"help", "interactive help is not allowed"},
    {"exit", "exiting the process is not allowed"},
    {"quit", "exiting the process is not allowed"},
    {"memoryview", "raw memory access is not allowed"},
    {"bytearray", "raw memory access is not allowed"},
    {"bytes", "raw memory access is not allowed"},
};

InterpState& state(Interpreter& in) { return in.state(); }

void expect_count(const CallArgs& a, size_t min, size_t max, const char* name) {
  if (a.args.size() < min || a.args.size() > max) {
    std::string expected = min == max ? fmt::format("exactly {}", min)
                           : a.args.size() < min ? fmt::format("at least {}", min)
                                                 : fmt::format("at most {}", max);
    throw NkiError(ErrorKind::Type, fmt::format("{}() takes {} argument{} ({} given)", name, expected,
                                                (a.args.size() < min ? min : max) == 1 ? "" : "s", a.args.size()));
  }
}

void no_kwargs(const CallArgs& a, const char* name) {
  if (!a.kwargs.empty()) throw NkiError(ErrorKind::Type, fmt::format("{}() takes no keyword arguments", name));
}

const Value* kwarg(const CallArgs& a, std::string_view name) {
  for (auto& [k, v] : a.kwargs)
    if (k == name) return &v;
  return nullptr;
}

void only_kwargs(const CallArgs& a, std::initializer_list<std::string_view> allowed, const char* name) {
  for (auto& [k, v] : a.kwargs)
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      throw unknown_keyword(name, k, fmt::format("{}", fmt::join(allowed, ", ")));
}

// Materialises an iterable, charging one step per item so huge iterables hit the step limit.
std::vector<Value> collect(Interpreter& in, const Value& iterable) {
  std::vector<Value> out;
  if (auto* t = iterable.as<TupleObj>()) return t->items;
  if (auto* l = iterable.as<ListObj>()) return l->items;
  auto it = in.iterate(iterable);
  for (Value v; it->next(v);) {
    state(in).charge(1);
    core::check_container_size(out.size() + 1, sizeof(Value));
    out.push_back(std::move(v));
  }
  return out;
}

Value call1(Interpreter& in, const Value& fn, const Value& arg) {
  CallArgs a;
  a.args.push_back(arg);
  return call_value(state(in), fn, a);
}

bool less_than(Interpreter& in, const Value& a, const Value& b) {
  return compare_op(state(in), CmpKind::Lt, a, b).truthy();
}

// ---- iterators returned by zip/enumerate/map/filter ----
class ZipIterator : public Iterator {
 public:
  std::vector<std::unique_ptr<Iterator>> parts;
  bool next(Value& out) override {
    if (parts.empty()) return false;
    std::vector<Value> items(parts.size());
    for (size_t i = 0; i < parts.size(); ++i)
      if (!parts[i]->next(items[i])) return false;
    out = make_tuple(std::move(items));
    return true;
  }
};

class EnumerateIterator : public Iterator {
 public:
  EnumerateIterator(std::unique_ptr<Iterator> it, int64_t start) : it_(std::move(it)), index_(start) {}
  bool next(Value& out) override {
    Value v;
    if (!it_->next(v)) return false;
    out = make_tuple({Value::from_int(index_++), std::move(v)});
    return true;
  }

 private:
  std::unique_ptr<Iterator> it_;
  int64_t index_;
};

class MapIterator : public Iterator {
 public:
  MapIterator(Interpreter& in, Value fn, std::vector<std::unique_ptr<Iterator>> its)
      : in_(in), fn_(std::move(fn)), its_(std::move(its)) {}
  bool next(Value& out) override {
    CallArgs args;
    for (auto& it : its_) {
      Value v;
      if (!it->next(v)) return false;
      args.args.push_back(std::move(v));
    }
    out = call_value(state(in_), fn_, args);
    return true;
  }

 private:
  Interpreter& in_;
  Value fn_;
  std::vector<std::unique_ptr<Iterator>> its_;
};

class FilterIterator : public Iterator {
 public:
  FilterIterator(Interpreter& in, Value fn, std::unique_ptr<Iterator> it) : in_(in), fn_(std::move(fn)), it_(std::move(it)) {}
  bool next(Value& out) override {
    for (Value v; it_->next(v);) {
      state(in_).charge(1);
      bool keep = fn_.is_none() ? v.truthy() : call1(in_, fn_, v).truthy();
      if (keep) {
        out = std::move(v);
        return true;
      }
    }
    return false;
  }

 private:
  Interpreter& in_;
  Value fn_;
  std::unique_ptr<Iterator> it_;
};

Value make_iterator(std::string name, std::unique_ptr<Iterator> it) {
  return Value(std::make_shared<IteratorObj>(std::move(name), std::move(it)));
}

// ---- builtin functions ----
Value b_len(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "len");
  expect_count(a, 1, 1, "len");
  const Value& v = a.args[0];
  if (v.is_object())
    if (auto n = v.object()->length()) return Value::from_int(*n);
  throw NkiError(ErrorKind::Type, fmt::format("object of type '{}' has no len()", v.type_name()));
}

Value b_range(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "range");
  expect_count(a, 1, 3, "range");
  int64_t start = 0, stop, step = 1;
  if (a.args.size() == 1) {
    stop = to_int(a.args[0], "range() argument");
  } else {
    start = to_int(a.args[0], "range() argument");
    stop = to_int(a.args[1], "range() argument");
    if (a.args.size() == 3) step = to_int(a.args[2], "range() argument");
  }
  if (step == 0) throw NkiError(ErrorKind::Value, "range() arg 3 must not be zero");
  // Keep sizes representable: |stop - start| must fit in int64.
  __int128 span = __int128(stop) - __int128(start);
  if (span > INT64_MAX || span < -INT64_MAX) throw NkiError(ErrorKind::Value, "range() is too large");
  return Value(std::make_shared<RangeObj>(start, stop, step));
}

Value b_zip(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "zip");
  auto it = std::make_unique<ZipIterator>();
  for (const Value& v : a.args) it->parts.push_back(in.iterate(v));
  return make_iterator("zip", std::move(it));
}

Value b_enumerate(Interpreter& in, CallArgs& a) {
  only_kwargs(a, {"start"}, "enumerate");
  expect_count(a, 1, 2, "enumerate");
  int64_t start = 0;
  if (a.args.size() > 1) start = to_int(a.args[1], "enumerate() start");
  if (const Value* s = kwarg(a, "start")) start = to_int(*s, "enumerate() start");
  return make_iterator("enumerate", std::make_unique<EnumerateIterator>(in.iterate(a.args[0]), start));
}

Value b_map(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "map");
  if (a.args.size() < 2) throw NkiError(ErrorKind::Type, "map() must have at least two arguments");
  std::vector<std::unique_ptr<Iterator>> its;
  for (size_t i = 1; i < a.args.size(); ++i) its.push_back(in.iterate(a.args[i]));
  return make_iterator("map", std::make_unique<MapIterator>(in, a.args[0], std::move(its)));
}

Value b_filter(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "filter");
  expect_count(a, 2, 2, "filter");
  return make_iterator("filter", std::make_unique<FilterIterator>(in, a.args[0], in.iterate(a.args[1])));
}

// iter(x): an iterator of x (an iterator is its own); next(it[, default]): its next item, else the
// default or StopIteration. Used by trace-time Python that walks a list by hand (`it = iter(tiles)`,
// pairing `zip(it, it)`, `next(t for t in tiles if ...)`).
Value b_iter(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "iter");
  expect_count(a, 1, 1, "iter");
  if (a.args[0].is(ObjType::Iterator)) return a.args[0];
  return make_iterator("iterator", in.iterate(a.args[0]));
}

Value b_next(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "next");
  expect_count(a, 1, 2, "next");
  auto* it = a.args[0].is(ObjType::Iterator) ? static_cast<IteratorObj*>(a.args[0].object().get()) : nullptr;
  if (!it) throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not an iterator", a.args[0].type_name()));
  Value v;
  in.charge_steps(1);
  if (it->it && it->it->next(v)) return v;
  if (a.args.size() == 2) return a.args[1];
  throw NkiError(ErrorKind::Value, "StopIteration", "");
}

Value b_reversed(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "reversed");
  expect_count(a, 1, 1, "reversed");
  if (a.args[0].is(ObjType::Dict) || a.args[0].is(ObjType::Iterator))
    throw NkiError(ErrorKind::Type, fmt::format("'{}' object is not reversible", a.args[0].type_name()));
  std::vector<Value> items = collect(in, a.args[0]);
  std::reverse(items.begin(), items.end());
  return make_iterator("reversed", std::make_unique<VectorIterator>(std::move(items)));
}

Value b_sorted(Interpreter& in, CallArgs& a) {
  only_kwargs(a, {"key", "reverse"}, "sorted");
  expect_count(a, 1, 1, "sorted");
  std::vector<Value> items = collect(in, a.args[0]);
  const Value* key = kwarg(a, "key");
  bool reverse = kwarg(a, "reverse") && kwarg(a, "reverse")->truthy();
  std::vector<Value> keys;
  if (key && !key->is_none())
    for (const Value& v : items) keys.push_back(call1(in, *key, v));
  else
    keys = items;
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return reverse ? less_than(in, keys[y], keys[x]) : less_than(in, keys[x], keys[y]);
  });
  std::vector<Value> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(items[i]);
  return make_list(std::move(out));
}

Value min_max(Interpreter& in, CallArgs& a, bool is_max) {
  const char* name = is_max ? "max" : "min";
  only_kwargs(a, {"key", "default"}, name);
  if (a.args.empty()) throw NkiError(ErrorKind::Type, fmt::format("{} expected at least 1 argument, got 0", name));
  std::vector<Value> items = a.args.size() == 1 ? collect(in, a.args[0]) : a.args;
  if (items.empty()) {
    if (const Value* d = kwarg(a, "default")) return *d;
    throw NkiError(ErrorKind::Value, fmt::format("{}() arg is an empty sequence", name));
  }
  const Value* key = kwarg(a, "key");
  auto key_of = [&](const Value& v) { return key && !key->is_none() ? call1(in, *key, v) : v; };
  Value best = items[0], best_key = key_of(items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = key_of(items[i]);
    if (is_max ? less_than(in, best_key, k) : less_than(in, k, best_key)) {
      best = items[i];
      best_key = k;
    }
  }
  return best;
}
Value b_min(Interpreter& in, CallArgs& a) { return min_max(in, a, false); }
Value b_max(Interpreter& in, CallArgs& a) { return min_max(in, a, true); }

Value b_sum(Interpreter& in, CallArgs& a) {
  only_kwargs(a, {"start"}, "sum");
  expect_count(a, 1, 2, "sum");
  Value total = a.args.size() > 1 ? a.args[1] : Value::from_int(0);
  if (const Value* s = kwarg(a, "start")) total = *s;
  if (total.is(ObjType::Str)) throw NkiError(ErrorKind::Type, "sum() can't sum strings [use ''.join(seq) instead]");
  auto it = in.iterate(a.args[0]);
  for (Value v; it->next(v);) {
    state(in).charge(1);
    total = binary_op(state(in), BinOp::Add, total, v);
  }
  return total;
}

Value b_abs(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "abs");
  expect_count(a, 1, 1, "abs");
  const Value& v = a.args[0];
  if (v.is_float()) return Value::from_float(std::fabs(v.as_float()));
  if (v.is_int() || v.is_bool()) {
    if (v.as_int() == INT64_MIN) throw NkiError(ErrorKind::Value, "integer overflow in abs()");
    return Value::from_int(std::llabs(v.as_int()));
  }
  if (v.is_object() && (v.is(ObjType::NdArray) || v.is(ObjType::NkiTensor))) {
    // Arrays and numpy scalars: numpy's abs keeps the dtype rules in one place. A tile's
    // __abs__ is the element-wise nl.abs, as its other operators are the nl functions (7.9).
    CallArgs args;
    args.args.push_back(v);
    const char* module = v.is(ObjType::NkiTensor) ? "neuronxcc.nki.language" : "numpy";
    return call_value(state(in), in.get_attr(in.import_module(module), "abs"), args);
  }
  throw NkiError(ErrorKind::Type, fmt::format("bad operand type for abs(): '{}'", v.type_name()));
}

Value b_round(Interpreter& in, CallArgs& a) {
  only_kwargs(a, {"ndigits"}, "round");
  expect_count(a, 1, 2, "round");
  Value nd = a.args.size() > 1 ? a.args[1] : Value();
  if (const Value* k = kwarg(a, "ndigits")) nd = *k;
  std::optional<Value> num = to_python_scalar(a.args[0]);
  if (!num) throw NkiError(ErrorKind::Type, fmt::format("type {} doesn't define __round__ method", a.args[0].type_name()));
  if (num->is_int() || num->is_bool()) return Value::from_int(num->as_int());
  double x = num->as_float();
  if (nd.is_none()) {
    if (!std::isfinite(x)) throw NkiError(ErrorKind::Value, "cannot convert float infinity or NaN to integer");
    double r = std::nearbyint(x);  // round half to even, like Python
    if (std::fabs(r) >= 9.2e18) throw NkiError(ErrorKind::Value, "integer overflow in round()");
    return Value::from_int(int64_t(r));
  }
  int64_t digits = to_int(nd, "round() ndigits");
  if (digits > 300 || digits < -300) return Value::from_float(digits > 0 ? x : 0.0);
  double scale = std::pow(10.0, double(digits));
  return Value::from_float(std::nearbyint(x * scale) / scale);
}

Value b_divmod(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "divmod");
  expect_count(a, 2, 2, "divmod");
  return make_tuple({binary_op(state(in), BinOp::FloorDiv, a.args[0], a.args[1]),
                     binary_op(state(in), BinOp::Mod, a.args[0], a.args[1])});
}

Value b_pow(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "pow");
  expect_count(a, 2, 3, "pow");
  if (a.args.size() == 2 || a.args[2].is_none()) return binary_op(state(in), BinOp::Pow, a.args[0], a.args[1]);
  int64_t base = to_int(a.args[0], "pow() base"), exp = to_int(a.args[1], "pow() exponent"), mod = to_int(a.args[2], "pow() modulus");
  if (mod == 0) throw NkiError(ErrorKind::Value, "pow() 3rd argument cannot be 0");
  if (exp < 0) throw NkiError(ErrorKind::Value, "pow() negative exponent with a modulus is not supported");
  __int128 result = 1, b = ((base % mod) + mod) % mod;
  for (; exp > 0; exp >>= 1, b = b * b % mod)
    if (exp & 1) result = result * b % mod;
  int64_t r = int64_t(result);
  if (r != 0 && ((r < 0) != (mod < 0))) r += mod;
  return Value::from_int(r);
}

Value b_any_all(Interpreter& in, CallArgs& a, bool is_all) {
  no_kwargs(a, is_all ? "all" : "any");
  expect_count(a, 1, 1, is_all ? "all" : "any");
  auto it = in.iterate(a.args[0]);
  for (Value v; it->next(v);) {
    state(in).charge(1);
    if (v.truthy() != is_all) return Value::from_bool(!is_all);
  }
  return Value::from_bool(is_all);
}
Value b_any(Interpreter& in, CallArgs& a) { return b_any_all(in, a, false); }
Value b_all(Interpreter& in, CallArgs& a) { return b_any_all(in, a, true); }

Value b_print(Interpreter& in, CallArgs& a) {
  only_kwargs(a, {"sep", "end", "flush"}, "print");
  std::string sep = " ", end = "\n";
  if (const Value* s = kwarg(a, "sep"); s && !s->is_none()) sep = s->str();
  if (const Value* e = kwarg(a, "end"); e && !e->is_none()) end = e->str();
  std::string line;
  for (size_t i = 0; i < a.args.size(); ++i) line += (i ? sep : "") + a.args[i].str();
  std::string& out = in.output();
  if (out.size() + line.size() + end.size() > kMaxOutputBytes)
    throw NkiError(LimitKind::Output, fmt::format("output limit of {} bytes exceeded", kMaxOutputBytes));
  out += line + end;
  return Value();
}

Value b_repr(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "repr");
  expect_count(a, 1, 1, "repr");
  return make_str(a.args[0].repr());
}

const std::string& attr_name(const Value& v, const char* fn) {
  auto* s = v.as<StrObj>();
  if (!s) throw NkiError(ErrorKind::Type, fmt::format("{}(): attribute name must be string", fn));
  if (s->s.size() >= 4 && s->s.rfind("__", 0) == 0 && s->s.substr(s->s.size() - 2) == "__")
    throw NkiError(ErrorKind::Sandbox, fmt::format("attribute '{}' is not available in kernels: dunder attributes are not allowed", s->s));
  return s->s;
}

bool has_attribute(Interpreter& in, const Value& obj, const std::string& name) {
  if (!obj.is_object()) return false;
  if (obj.object()->has_attr(name) || core::has_method(*obj.object(), name)) return true;
  try {
    obj.object()->get_attr(in, name);
    return true;
  } catch (const NkiError& e) {
    if (e.diag.kind == ErrorKind::Name) return false;
    throw;
  }
}

Value b_hasattr(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "hasattr");
  expect_count(a, 2, 2, "hasattr");
  return Value::from_bool(has_attribute(in, a.args[0], attr_name(a.args[1], "hasattr")));
}

Value b_getattr(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "getattr");
  expect_count(a, 2, 3, "getattr");
  const std::string& name = attr_name(a.args[1], "getattr");
  if (a.args.size() == 3 && !has_attribute(in, a.args[0], name)) return a.args[2];
  return get_attribute(state(in), a.args[0], name);
}

Value b_callable(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "callable");
  expect_count(a, 1, 1, "callable");
  const Value& v = a.args[0];
  bool yes = v.is(ObjType::Function) || v.is(ObjType::Builtin) || v.is(ObjType::BoundMethod) || v.is(ObjType::DType) ||
             (v.is_object() && v.object()->type_name() == "type");
  return Value::from_bool(yes);
}

Value b_isinstance(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "isinstance");
  expect_count(a, 2, 2, "isinstance");
  std::vector<Value> types = a.args[1].is(ObjType::Tuple) ? a.args[1].as<TupleObj>()->items : std::vector<Value>{a.args[1]};
  for (const Value& t : types) {
    auto* type = t.is_object() ? dynamic_cast<TypeObj*>(t.object().get()) : nullptr;
    if (!type) throw NkiError(ErrorKind::Type, "isinstance() arg 2 must be a type or tuple of types");
    if (type->instance_check(a.args[0])) return Value::from_bool(true);
  }
  return Value::from_bool(false);
}

// ---- constructors of the builtin types ----
Value c_int(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "int");
  expect_count(a, 0, 2, "int");
  if (a.args.empty()) return Value::from_int(0);
  const Value& v = a.args[0];
  if (auto* s = v.as<StrObj>()) {
    int base = a.args.size() > 1 ? int(to_int(a.args[1], "int() base")) : 10;
    std::string text = s->s;
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    size_t b = text.find_first_not_of(" \t\n"), e = text.find_last_not_of(" \t\n");
    if (b == std::string::npos || base < 2 || base > 36)
      throw NkiError(ErrorKind::Value, fmt::format("invalid literal for int() with base {}: {}", base, v.repr()));
    text = text.substr(b, e - b + 1);
    errno = 0;
    char* end = nullptr;
    long long r = std::strtoll(text.c_str(), &end, base);
    if (*end != 0 || errno == ERANGE)
      throw NkiError(ErrorKind::Value, fmt::format("invalid literal for int() with base {}: {}", base, v.repr()));
    return Value::from_int(r);
  }
  std::optional<Value> num = to_python_scalar(v);
  if (!num) throw NkiError(ErrorKind::Type, fmt::format("int() argument must be a string or a number, not '{}'", v.type_name()));
  if (!num->is_float()) return Value::from_int(num->as_int());
  double d = num->as_float();
  if (!std::isfinite(d)) throw NkiError(ErrorKind::Value, "cannot convert float infinity or NaN to integer");
  if (std::fabs(d) >= 9.2e18) throw NkiError(ErrorKind::Value, "integer overflow: the value does not fit in 64 bits");
  return Value::from_int(int64_t(d));
}

Value c_float(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "float");
  expect_count(a, 0, 1, "float");
  if (a.args.empty()) return Value::from_float(0.0);
  const Value& v = a.args[0];
  if (auto* s = v.as<StrObj>()) {
    std::string t = s->s;
    t.erase(0, t.find_first_not_of(" \t\n"));
    t.erase(t.find_last_not_of(" \t\n") + 1);
    std::string lower;
    for (char c : t) lower += char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "inf" || lower == "+inf" || lower == "infinity") return Value::from_float(INFINITY);
    if (lower == "-inf" || lower == "-infinity") return Value::from_float(-INFINITY);
    if (lower == "nan" || lower == "+nan" || lower == "-nan") return Value::from_float(NAN);
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (t.empty() || *end != 0 || lower.find_first_of("xp") != std::string::npos)
      throw NkiError(ErrorKind::Value, fmt::format("could not convert string to float: {}", v.repr()));
    return Value::from_float(d);
  }
  std::optional<Value> num = to_python_scalar(v);
  if (!num) throw NkiError(ErrorKind::Type, fmt::format("float() argument must be a string or a number, not '{}'", v.type_name()));
  return Value::from_float(num->as_float());
}

Value c_bool(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "bool");
  expect_count(a, 0, 1, "bool");
  return Value::from_bool(!a.args.empty() && a.args[0].truthy());
}

Value c_str(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "str");
  expect_count(a, 0, 1, "str");
  return make_str(a.args.empty() ? "" : a.args[0].str());
}

Value c_tuple(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "tuple");
  expect_count(a, 0, 1, "tuple");
  if (a.args.empty()) return make_tuple({});
  if (a.args[0].is(ObjType::Tuple)) return a.args[0];
  return make_tuple(collect(in, a.args[0]));
}

Value c_list(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "list");
  expect_count(a, 0, 1, "list");
  return make_list(a.args.empty() ? std::vector<Value>{} : collect(in, a.args[0]));
}

Value c_set(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "set");
  expect_count(a, 0, 1, "set");
  auto set = std::make_shared<SetObj>();
  if (!a.args.empty())
    for (const Value& v : collect(in, a.args[0])) set->add(v);
  return Value(std::move(set));
}

Value c_frozenset(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "frozenset");
  expect_count(a, 0, 1, "frozenset");
  if (!a.args.empty())
    if (auto* s = a.args[0].is_object() ? dynamic_cast<SetObj*>(a.args[0].object().get()) : nullptr; s && s->frozen)
      return a.args[0];
  auto set = std::make_shared<SetObj>();
  if (!a.args.empty())
    for (const Value& v : collect(in, a.args[0])) set->add(v);
  set->frozen = true;
  return Value(std::move(set));
}

Value c_dict(Interpreter& in, CallArgs& a) {
  expect_count(a, 0, 1, "dict");
  auto dict = std::make_shared<DictObj>();
  if (!a.args.empty()) {
    if (auto* d = a.args[0].as<DictObj>()) {
      dict->items = d->items;
    } else {
      for (const Value& pair : collect(in, a.args[0])) {
        std::vector<Value> kv = collect(in, pair);
        if (kv.size() != 2)
          throw NkiError(ErrorKind::Value, fmt::format("dictionary update sequence element has length {}; 2 is required", kv.size()));
        core::set_item(in, *dict, kv[0], kv[1]);
      }
    }
  }
  for (auto& [k, v] : a.kwargs) core::set_item(in, *dict, make_str(k), v);
  return Value(std::move(dict));
}

Value c_slice(Interpreter& in, CallArgs& a) {
  no_kwargs(a, "slice");
  expect_count(a, 1, 3, "slice");
  auto s = std::make_shared<SliceObj>();
  if (a.args.size() == 1) {
    s->stop = a.args[0];
  } else {
    s->start = a.args[0];
    s->stop = a.args[1];
    if (a.args.size() == 3) s->step = a.args[2];
  }
  return Value(std::move(s));
}

bool is_int_value(const Value& v) { return v.is_int() || v.is_bool(); }

void add_builtin(InterpState& st, const char* name, NativeFn fn) {
  st.in.set_builtin(name, Value(std::make_shared<BuiltinObj>(name, std::move(fn))));
}

void add_type(InterpState& st, const char* name, std::function<bool(const Value&)> check, NativeFn ctor) {
  st.in.set_builtin(name, Value(std::make_shared<TypeObj>(name, std::move(check), std::move(ctor))));
}

}  // namespace

const char* forbidden_reason(std::string_view name) {
  for (const ForbiddenName& f : kForbidden)
    if (name == f.name) return f.reason;
  return nullptr;
}

void install_builtins(InterpState& st) {
  add_type(st, "int", is_int_value, c_int);
  add_type(st, "float", [](const Value& v) { return v.is_float(); }, c_float);
  add_type(st, "bool", [](const Value& v) { return v.is_bool(); }, c_bool);
  add_type(st, "str", [](const Value& v) { return v.is(ObjType::Str); }, c_str);
  add_type(st, "tuple", [](const Value& v) { return v.is(ObjType::Tuple); }, c_tuple);
  add_type(st, "list", [](const Value& v) { return v.is(ObjType::List); }, c_list);
  add_type(st, "dict", [](const Value& v) { return v.is(ObjType::Dict); }, c_dict);
  add_type(st, "set", [](const Value& v) {
    auto* s = v.is_object() ? dynamic_cast<SetObj*>(v.object().get()) : nullptr;
    return s && !s->frozen;
  }, c_set);
  add_type(st, "frozenset", [](const Value& v) {
    auto* s = v.is_object() ? dynamic_cast<SetObj*>(v.object().get()) : nullptr;
    return s && s->frozen;
  }, c_frozenset);
  add_type(st, "range", [](const Value& v) { return v.is(ObjType::Range); }, b_range);
  add_type(st, "slice", [](const Value& v) { return v.is(ObjType::Slice); }, c_slice);
  add_builtin(st, "len", b_len);
  add_builtin(st, "zip", b_zip);
  add_builtin(st, "enumerate", b_enumerate);
  add_builtin(st, "map", b_map);
  add_builtin(st, "filter", b_filter);
  add_builtin(st, "reversed", b_reversed);
  add_builtin(st, "iter", b_iter);
  add_builtin(st, "next", b_next);
  add_builtin(st, "sorted", b_sorted);
  add_builtin(st, "min", b_min);
  add_builtin(st, "max", b_max);
  add_builtin(st, "sum", b_sum);
  add_builtin(st, "abs", b_abs);
  add_builtin(st, "round", b_round);
  add_builtin(st, "divmod", b_divmod);
  add_builtin(st, "pow", b_pow);
  add_builtin(st, "any", b_any);
  add_builtin(st, "all", b_all);
  add_builtin(st, "print", b_print);
  add_builtin(st, "repr", b_repr);
  add_builtin(st, "hasattr", b_hasattr);
  add_builtin(st, "getattr", b_getattr);
  add_builtin(st, "callable", b_callable);
  add_builtin(st, "isinstance", b_isinstance);
  using Kind = MethodWrapperObj::Kind;
  for (auto [name, kind] : {std::pair{"staticmethod", Kind::Static}, std::pair{"classmethod", Kind::Class},
                            std::pair{"property", Kind::Property}}) {
    add_builtin(st, name, [name = name, kind = kind](Interpreter&, CallArgs& a) {
      // property(fget, fset) may name its setter; the others take the function alone.
      size_t most = kind == Kind::Property ? 2 : 1;
      if (a.args.empty() || a.args.size() > most || !a.kwargs.empty())
        throw NkiError(ErrorKind::Type, fmt::format("{}() takes {} (the function)", name,
                                                    most == 1 ? "exactly one argument" : "fget and optionally fset"));
      return Value(std::make_shared<MethodWrapperObj>(kind, a.args[0], a.args.size() > 1 ? a.args[1] : Value()));
    });
  }
  st.in.set_builtin("Ellipsis", Value(EllipsisObj::instance()));
}

}  // namespace detail
}  // namespace nki
