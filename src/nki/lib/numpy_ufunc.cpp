// numpy 1.24 ufunc semantics on interpreter values: dtype resolution, scalar results, reductions.
#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

using tensor::Array;
using tensor::BinaryOp;
using tensor::DType;

namespace {
int kind_rank(DType t) { return t == DType::Bool ? 0 : tensor::is_float(t) ? 2 : 1; }

double scalar_value(const Array& a) { return a.has_data() ? a.item() : 0.0; }

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
         op == BinaryOp::Ge;
}
bool is_logical(BinaryOp op) {
  return op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr || op == BinaryOp::LogicalXor;
}
bool is_bitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor || op == BinaryOp::LShift ||
         op == BinaryOp::RShift;
}
}  // namespace

DType result_type(const std::vector<Array>& operands) {
  int array_kind = -1, scalar_kind = -1;
  std::optional<DType> arrays, scalars;
  for (const Array& a : operands) {
    DType t = a.dtype();
    if (a.ndim() > 0) {
      array_kind = std::max(array_kind, kind_rank(t));
      arrays = arrays ? tensor::promote(*arrays, t) : t;
    } else {
      scalar_kind = std::max(scalar_kind, kind_rank(t));
      scalars = scalars ? tensor::promote(*scalars, t) : t;
    }
  }
  if (!arrays) return *scalars;
  if (!scalars || scalar_kind > array_kind) return scalars ? tensor::promote(*arrays, *scalars) : *arrays;
  DType r = *arrays;
  for (const Array& a : operands)
    if (a.ndim() == 0) r = tensor::promote_array_scalar(r, a.dtype(), scalar_value(a));
  return r;
}

Value binary_ufunc(Interpreter& in, BinaryOp op, const Value& av, const Value& bv, std::string_view name,
                   std::optional<DType> dtype) {
  Array a = to_array(in, av), b = to_array(in, bv);
  DType common = dtype ? *dtype : result_type({a, b});
  DType compute = common, out = common;
  if (op == BinaryOp::Div && !tensor::is_float(common)) compute = out = DType::Float64;  // true_divide
  if (is_comparison(op) || is_logical(op)) out = DType::Bool;
  if (is_bitwise(op) && tensor::is_float(common))
    throw NkiError(ErrorKind::Type, fmt::format("ufunc '{}' not supported for the input types", name));
  if (op == BinaryOp::Sub && common == DType::Bool)
    throw NkiError(ErrorKind::Type, "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                                    "the `^` operator, or the logical_xor function instead");
  Array r = tensor::binary(op, a, b, compute, out);
  return make_result(std::move(r));
}

Value matmul_values(Interpreter& in, const Value& av, const Value& bv) {
  Array a = to_array(in, av), b = to_array(in, bv);
  if (a.ndim() == 0 || b.ndim() == 0)
    throw NkiError(ErrorKind::Value, "matmul: Input operand does not have enough dimensions");
  DType t = result_type({a, b});
  if (a.dtype() != t) a = tensor::astype(a, t);
  if (b.dtype() != t) b = tensor::astype(b, t);
  return make_result(tensor::matmul(a, b));
}

const std::vector<UnaryUfunc>& unary_ufuncs() {
  using U = tensor::UnaryOp;
  static const std::vector<UnaryUfunc> table = {
      {"exp", U::Exp, true},          {"log", U::Log, true},           {"log2", U::Log2, true},
      {"log10", U::Log10, true},      {"log1p", U::Log1p, true},       {"expm1", U::Expm1, true},
      {"sqrt", U::Sqrt, true},        {"tanh", U::Tanh, true},         {"sin", U::Sin, true},
      {"cos", U::Cos, true},          {"tan", U::Tan, true},           {"arctan", U::Arctan, true},
      {"floor", U::Floor, true},      {"ceil", U::Ceil, true},         {"trunc", U::Trunc, true},
      {"square", U::Square, false},   {"abs", U::Abs, false},          {"absolute", U::Abs, false},
      {"negative", U::Neg, false},    {"sign", U::Sign, false},        {"reciprocal", U::Reciprocal, false},
      {"logical_not", U::LogicalNot, false}, {"invert", U::Invert, false}, {"bitwise_not", U::Invert, false},
      {"positive", std::nullopt, false}, {"isnan", std::nullopt, false}, {"isinf", std::nullopt, false},
      {"isfinite", std::nullopt, false},
  };
  return table;
}

Value unary_ufunc(Interpreter& in, const UnaryUfunc& u, const Value& xv, std::optional<DType> dtype) {
  Array x = to_array(in, xv);
  DType t = dtype ? *dtype : x.dtype();
  if (u.name == "positive") return make_result(x.copy());
  if (u.name == "isnan" || u.name == "isinf" || u.name == "isfinite") {
    if (!tensor::is_float(t)) return make_result(Array::full(x.shape(), DType::Bool, u.name == "isfinite"));
    Array nan = tensor::binary(BinaryOp::Ne, x, x, t, DType::Bool);
    Array inf = tensor::binary(BinaryOp::Eq, tensor::unary(tensor::UnaryOp::Abs, x, t, t),
                               Array::scalar(t, INFINITY), t, DType::Bool);
    if (u.name == "isnan") return make_result(nan);
    if (u.name == "isinf") return make_result(inf);
    Array bad = tensor::binary(BinaryOp::LogicalOr, nan, inf, DType::Bool, DType::Bool);
    return make_result(tensor::unary(tensor::UnaryOp::LogicalNot, bad, DType::Bool, DType::Bool));
  }
  if (u.float_only && !tensor::is_float(t)) t = tensor::promote(t, DType::Float16);  // np.sqrt(int8) -> float16
  if (*u.op == tensor::UnaryOp::Invert && tensor::is_float(t))
    throw NkiError(ErrorKind::Type, fmt::format("ufunc '{}' not supported for the input types", u.name));
  if (*u.op == tensor::UnaryOp::Reciprocal && !tensor::is_float(t)) {
    // numpy's integer reciprocal: 1 / x truncated (0 for |x| > 1)
    Array r = tensor::binary(BinaryOp::FloorDiv, Array::scalar(t, 1), x, t, t);
    return make_result(r);
  }
  DType out = *u.op == tensor::UnaryOp::LogicalNot ? DType::Bool : t;
  return make_result(tensor::unary(*u.op, x, t, out));
}

std::vector<int> axes_arg(const Value& axis) {
  if (axis.is_none()) return {};
  std::vector<int> axes;
  for (int64_t a : to_int_list(axis, "axis")) axes.push_back(static_cast<int>(a));
  return axes;
}

Value reduce_values(Interpreter& in, tensor::ReduceOp op, const Value& av, const Value& axis, const Value& dtype_v,
                    bool keepdims) {
  Array a = to_array(in, av);
  std::optional<DType> dtype = to_dtype(dtype_v, "dtype");
  DType t = a.dtype();
  DType out = t;
  switch (op) {
    case tensor::ReduceOp::Sum:
    case tensor::ReduceOp::Prod:
      // numpy sums small integers in the platform integer (int64 / uint64)
      if (t == DType::Bool || (tensor::is_integer(t) && tensor::is_signed(t))) out = DType::Int64;
      else if (tensor::is_integer(t)) out = DType::UInt64;
      break;
    case tensor::ReduceOp::Mean: out = tensor::is_float(t) ? t : DType::Float64; break;
    case tensor::ReduceOp::All:
    case tensor::ReduceOp::Any: out = DType::Bool; break;
    default: break;
  }
  if (dtype) {
    out = *dtype;
    if (op != tensor::ReduceOp::All && op != tensor::ReduceOp::Any && a.dtype() != *dtype) a = tensor::astype(a, *dtype);
  }
  std::vector<int> axes = axes_arg(axis);
  if (a.ndim() == 0) axes.clear();
  return make_result(tensor::reduce(op, a, axes, keepdims, out));
}

tensor::Shape shape_arg(const Value& v, std::string_view what) {
  tensor::Shape s;
  for (int64_t d : to_int_list(v, what)) s.push_back(d);
  return s;
}

Value python_value(const Array& a) {
  double v = a.item();
  if (a.dtype() == DType::Bool) return Value::from_bool(v != 0);
  if (tensor::is_integer(a.dtype())) {
    if (tensor::storage_of(a.dtype()) == tensor::Storage::I64)
      return Value::from_int(a.i64()[0]);
    return Value::from_int(static_cast<int64_t>(v));
  }
  return Value::from_float(v);
}

}  // namespace nki::lib::np
