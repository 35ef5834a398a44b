// The `math` module: the functions kernels and references use, with Python's domain errors.
#include <cmath>
#include <numeric>

#include <fmt/core.h>

#include "nki/interpreter.h"
#include "nki/lib/modules.h"

namespace nki::lib {

namespace {

using UnaryFn = double (*)(double);

void add(ModuleObj& m, const char* name, NativeFn fn) {
  m.attrs[name] = Value(std::make_shared<BuiltinObj>(std::string("math.") + name, std::move(fn)));
}

void expect(const CallArgs& a, size_t min, size_t max, const char* name) {
  if (!a.kwargs.empty() && std::string_view(name) != "isclose")
    throw NkiError(ErrorKind::Type, fmt::format("math.{}() takes no keyword arguments", name));
  if (a.args.size() < min || a.args.size() > max)
    throw NkiError(ErrorKind::Type, fmt::format("math.{}() takes {} argument{} ({} given)", name,
                                                min == max ? std::to_string(min) : fmt::format("{} to {}", min, max),
                                                max == 1 ? "" : "s", a.args.size()));
}

[[noreturn]] void domain_error() { throw NkiError(ErrorKind::Value, "math domain error"); }

double checked(double result, double x) {
  if (std::isnan(result) && !std::isnan(x)) domain_error();
  if (std::isinf(result) && std::isfinite(x)) throw NkiError(ErrorKind::Value, "math range error");
  return result;
}

// A float function of one argument where NaN from a non-NaN input is a domain error.
void add_unary(ModuleObj& m, const char* name, UnaryFn fn) {
  add(m, name, [name, fn](Interpreter&, CallArgs& a) {
    expect(a, 1, 1, name);
    double x = to_float(a.args[0], std::string("math.") + name + "() argument");
    return Value::from_float(checked(fn(x), x));
  });
}

Value to_integral(double r, const char* name) {
  if (!std::isfinite(r)) throw NkiError(ErrorKind::Value, fmt::format("cannot convert float {} to integer", r > 0 ? "infinity" : "NaN"));
  if (std::fabs(r) >= 9.2e18) throw NkiError(ErrorKind::Value, fmt::format("integer overflow in math.{}()", name));
  return Value::from_int(int64_t(r));
}

void add_rounding(ModuleObj& m, const char* name, UnaryFn fn) {
  add(m, name, [name, fn](Interpreter&, CallArgs& a) {
    expect(a, 1, 1, name);
    if (a.args[0].is_int() || a.args[0].is_bool()) return Value::from_int(a.args[0].as_int());
    return to_integral(fn(to_float(a.args[0], std::string("math.") + name + "() argument")), name);
  });
}

Value math_log(Interpreter&, CallArgs& a) {
  expect(a, 1, 2, "log");
  double x = to_float(a.args[0], "math.log() argument");
  if (x <= 0) domain_error();
  if (a.args.size() == 1) return Value::from_float(std::log(x));
  double base = to_float(a.args[1], "math.log() base");
  if (base <= 0 || base == 1) domain_error();
  return Value::from_float(std::log(x) / std::log(base));
}

Value math_isclose(Interpreter&, CallArgs& a) {
  expect(a, 2, 2, "isclose");
  double rel = 1e-9, abs_tol = 0;
  for (auto& [k, v] : a.kwargs) {
    if (k == "rel_tol") rel = to_float(v, "rel_tol");
    else if (k == "abs_tol") abs_tol = to_float(v, "abs_tol");
    else throw unknown_keyword("math.isclose", k, "rel_tol, abs_tol");
  }
  if (rel < 0 || abs_tol < 0) throw NkiError(ErrorKind::Value, "tolerances must be non-negative");
  double x = to_float(a.args[0], "math.isclose() argument"), y = to_float(a.args[1], "math.isclose() argument");
  if (x == y) return Value::from_bool(true);
  if (std::isinf(x) || std::isinf(y)) return Value::from_bool(false);
  double diff = std::fabs(x - y);
  return Value::from_bool(diff <= std::fabs(rel * y) || diff <= std::fabs(rel * x) || diff <= abs_tol);
}

Value math_prod(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 1) throw NkiError(ErrorKind::Type, fmt::format("math.prod() takes exactly 1 positional argument ({} given)", a.args.size()));
  Value result = Value::from_int(1);
  for (auto& [k, v] : a.kwargs) {
    if (k != "start") throw unknown_keyword("math.prod", k, "start");
    result = v;
  }
  auto it = in.iterate(a.args[0]);
  for (Value v; it->next(v);) {
    in.charge_steps(1);
    result = in.binary(BinOp::Mul, result, v);
  }
  return result;
}

Value math_gcd(Interpreter&, CallArgs& a) {
  if (!a.kwargs.empty()) throw NkiError(ErrorKind::Type, "math.gcd() takes no keyword arguments");
  int64_t g = 0;
  for (const Value& v : a.args) {
    int64_t x = to_int(v, "math.gcd() argument");
    if (x == INT64_MIN) throw NkiError(ErrorKind::Value, "integer overflow in math.gcd()");
    g = std::gcd(g, x < 0 ? -x : x);
  }
  return Value::from_int(g);
}

// math.factorial: Python's, for the non-negative integers whose factorial fits the interpreter's
// 64-bit int (20! is the largest); a float argument is refused as Python 3.10 does.
Value math_factorial(Interpreter&, CallArgs& a) {
  expect(a, 1, 1, "factorial");
  if (a.args[0].is_float()) throw NkiError(ErrorKind::Type, "'float' object cannot be interpreted as an integer");
  int64_t n = to_int(a.args[0], "math.factorial() argument");
  if (n < 0) throw NkiError(ErrorKind::Value, "factorial() not defined for negative values");
  if (n > 20) throw NkiError(ErrorKind::Value, fmt::format("integer overflow in math.factorial({}): the result does not fit in 64 bits", n));
  int64_t r = 1;
  for (int64_t k = 2; k <= n; ++k) r *= k;
  return Value::from_int(r);
}

Value math_isqrt(Interpreter&, CallArgs& a) {
  expect(a, 1, 1, "isqrt");
  int64_t n = to_int(a.args[0], "math.isqrt() argument");
  if (n < 0) throw NkiError(ErrorKind::Value, "isqrt() argument must be nonnegative");
  int64_t r = int64_t(std::sqrt(double(n)));
  while (r > 0 && (__int128(r) * r > n)) --r;
  while (__int128(r + 1) * (r + 1) <= n) ++r;
  return Value::from_int(r);
}

Value math_pow(Interpreter&, CallArgs& a) {
  expect(a, 2, 2, "pow");
  double x = to_float(a.args[0], "math.pow() argument"), y = to_float(a.args[1], "math.pow() argument");
  if (x == 0 && y < 0) domain_error();
  return Value::from_float(checked(std::pow(x, y), x));
}

Value float_predicate(const CallArgs& a, const char* name, bool (*pred)(double)) {
  expect(a, 1, 1, name);
  return Value::from_bool(pred(to_float(a.args[0], std::string("math.") + name + "() argument")));
}

}  // namespace

ObjectPtr make_math_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("math");
  m->attrs["pi"] = Value::from_float(M_PI);
  m->attrs["e"] = Value::from_float(M_E);
  m->attrs["tau"] = Value::from_float(2 * M_PI);
  m->attrs["inf"] = Value::from_float(INFINITY);
  m->attrs["nan"] = Value::from_float(NAN);
  add_unary(*m, "sqrt", [](double x) { return std::sqrt(x); });
  add_unary(*m, "exp", [](double x) { return std::exp(x); });
  add_unary(*m, "log2", [](double x) { return x <= 0 ? NAN : std::log2(x); });
  add_unary(*m, "log10", [](double x) { return x <= 0 ? NAN : std::log10(x); });
  add_unary(*m, "tanh", [](double x) { return std::tanh(x); });
  add_unary(*m, "cos", [](double x) { return std::cos(x); });
  add_unary(*m, "sin", [](double x) { return std::sin(x); });
  add_unary(*m, "tan", [](double x) { return std::tan(x); });
  add_unary(*m, "atan", [](double x) { return std::atan(x); });
  add_unary(*m, "fabs", [](double x) { return std::fabs(x); });
  add_unary(*m, "erf", [](double x) { return std::erf(x); });
  add_rounding(*m, "ceil", [](double x) { return std::ceil(x); });
  add_rounding(*m, "floor", [](double x) { return std::floor(x); });
  add_rounding(*m, "trunc", [](double x) { return std::trunc(x); });
  add(*m, "log", math_log);
  add(*m, "isclose", math_isclose);
  add(*m, "prod", math_prod);
  add(*m, "gcd", math_gcd);
  add(*m, "isqrt", math_isqrt);
  add(*m, "factorial", math_factorial);
  add(*m, "pow", math_pow);
  add(*m, "isfinite", [](Interpreter&, CallArgs& a) { return float_predicate(a, "isfinite", [](double x) { return bool(std::isfinite(x)); }); });
  add(*m, "isinf", [](Interpreter&, CallArgs& a) { return float_predicate(a, "isinf", [](double x) { return bool(std::isinf(x)); }); });
  add(*m, "isnan", [](Interpreter&, CallArgs& a) { return float_predicate(a, "isnan", [](double x) { return bool(std::isnan(x)); }); });
  return m;
}

}  // namespace nki::lib
