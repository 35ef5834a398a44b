// binary(): elementwise two-operand ops with numpy broadcasting and explicit compute/out dtypes.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tensor/elementwise_kernels.h"
#include "tensor/ops.h"

namespace tensor {

namespace {

using detail::binary_loop;

// numpy's npy_divmod for floats: floor division and a remainder with the divisor's sign.
template <class T>
inline T float_floordiv(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}
template <class T>
inline T float_mod(T a, T b) {
  if (b == 0) return std::fmod(a, b);
  T mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(T(0), b);
  }
  return mod;
}

// Integer ops wrap (two's complement) and never trap: division by zero gives 0 as numpy does.
inline int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) + uint64_t(b)); }
inline int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) - uint64_t(b)); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) * uint64_t(b)); }
inline int64_t int_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return wrap_sub(0, a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t int_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t int_pow(int64_t base, int64_t exp) {
  uint64_t result = 1, b = uint64_t(base);
  for (uint64_t e = uint64_t(exp); e; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<int64_t>(result);
}
inline int64_t int_lshift(int64_t a, int64_t b) { return (b < 0 || b >= 64) ? 0 : int64_t(uint64_t(a) << b); }
inline int64_t int_rshift(int64_t a, int64_t b) { return (b < 0 || b >= 64) ? (a < 0 ? -1 : 0) : a >> b; }

template <class T>
inline T fmax_nan(T a, T b) { return (a >= b || a != a) ? a : b; }
template <class T>
inline T fmin_nan(T a, T b) { return (a <= b || a != a) ? a : b; }

const char* op_name(BinaryOp op) {
  static const char* names[] = {"add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
                                "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
                                "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                "right_shift", "logical_and", "logical_or", "logical_xor", "fmod"};
  return names[static_cast<int>(op)];
}

// Ops shared by float and integer storages.
template <class T>
bool run_common(BinaryOp op, const Array& a, const T* pa, const Array& b, const T* pb, const Array& o, T* po) {
  switch (op) {
    case BinaryOp::Maximum: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return fmax_nan(x, y); }); return true;
    case BinaryOp::Minimum: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return fmin_nan(x, y); }); return true;
    case BinaryOp::Eq: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x == y); }); return true;
    case BinaryOp::Ne: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x != y); }); return true;
    case BinaryOp::Lt: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x < y); }); return true;
    case BinaryOp::Le: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x <= y); }); return true;
    case BinaryOp::Gt: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x > y); }); return true;
    case BinaryOp::Ge: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x >= y); }); return true;
    case BinaryOp::LogicalAnd: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x != 0 && y != 0); }); return true;
    case BinaryOp::LogicalOr: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(x != 0 || y != 0); }); return true;
    case BinaryOp::LogicalXor: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T((x != 0) != (y != 0)); }); return true;
    default: return false;
  }
}

template <class T>
void run_float(BinaryOp op, const Array& a, const T* pa, const Array& b, const T* pb, const Array& o, T* po) {
  if (run_common(op, a, pa, b, pb, o, po)) return;
  switch (op) {
    case BinaryOp::Add: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x + y; }); return;
    case BinaryOp::Sub: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x - y; }); return;
    case BinaryOp::Mul: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x * y; }); return;
    case BinaryOp::Div: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x / y; }); return;
    case BinaryOp::FloorDiv: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return float_floordiv(x, y); }); return;
    case BinaryOp::Mod: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return float_mod(x, y); }); return;
    case BinaryOp::Fmod: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(std::fmod(x, y)); }); return;
    case BinaryOp::Pow: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return T(std::pow(x, y)); }); return;
    default:
      throw ArrayError(fmt::format("ufunc '{}' not supported for floating-point inputs", op_name(op)));
  }
}

void check_int_pow(const Array& b, const int64_t* pb) {
  bool negative = false;
  auto plan = detail::plan_loop<1>(b.shape(), {b.strides().data()});
  detail::run_loop<1>(plan, {0}, [&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
    for (int64_t idx = 0; idx < n; ++idx) negative = negative || pb[off[0] + idx * st[0]] < 0;
  });
  if (negative) throw ArrayError("integers to negative integer powers are not allowed");
}

void run_int(BinaryOp op, const Array& a, const int64_t* pa, const Array& b, const int64_t* pb, const Array& o, int64_t* po) {
  using T = int64_t;
  if (run_common(op, a, pa, b, pb, o, po)) return;
  switch (op) {
    case BinaryOp::Add: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return wrap_add(x, y); }); return;
    case BinaryOp::Sub: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return wrap_sub(x, y); }); return;
    case BinaryOp::Mul: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return wrap_mul(x, y); }); return;
    case BinaryOp::FloorDiv: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return int_floordiv(x, y); }); return;
    case BinaryOp::Mod: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return int_mod(x, y); }); return;
    case BinaryOp::Fmod: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return y == 0 ? T(0) : T(x % y); }); return;
    case BinaryOp::Pow:
      check_int_pow(b, pb);
      binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return int_pow(x, y); });
      return;
    case BinaryOp::BitAnd: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x & y; }); return;
    case BinaryOp::BitOr: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x | y; }); return;
    case BinaryOp::BitXor: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return x ^ y; }); return;
    case BinaryOp::LShift: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return int_lshift(x, y); }); return;
    case BinaryOp::RShift: binary_loop(a, pa, b, pb, o, po, [](T x, T y) { return int_rshift(x, y); }); return;
    default: throw ArrayError(fmt::format("ufunc '{}' not supported for integer inputs", op_name(op)));
  }
}

// The operand in the compute format: same storage, and rounded when the compute format is narrow.
Array operand_for(const Array& x, DType compute) {
  if (x.dtype() == compute) return x;
  bool narrow_round = is_narrow_float(compute) && promote(x.dtype(), compute) != compute;
  if (storage_of(x.dtype()) == storage_of(compute) && !narrow_round) return x;
  return astype(x, compute);
}

}  // namespace

Array binary(BinaryOp op, const Array& a_in, const Array& b_in, DType compute, DType out) {
  // True division of integers happens in float64 (numpy's true_divide).
  if (op == BinaryOp::Div && storage_of(compute) == Storage::I64) compute = DType::Float64;
  Shape shape = broadcast_shapes(a_in.shape(), b_in.shape());
  if (!a_in.has_data() || !b_in.has_data()) return Array::shape_only(shape, out);
  Array a = broadcast_to(operand_for(a_in, compute), shape);
  Array b = broadcast_to(operand_for(b_in, compute), shape);
  Storage s = storage_of(compute);
  Array result = Array::empty(shape, storage_of(out) == s ? out : detail::canonical_dtype(s));
  switch (s) {
    case Storage::F32: run_float(op, a, a.f32(), b, b.f32(), result, result.f32()); break;
    case Storage::F64: run_float(op, a, a.f64(), b, b.f64(), result, result.f64()); break;
    case Storage::I64: run_int(op, a, a.i64(), b, b.i64(), result, result.i64()); break;
  }
  if (result.dtype() != out) return astype(result, out);
  detail::normalize_inplace(result);
  return result;
}

bool add_into_f32(Array& dst, const Array& src) {
  if (!dst.has_data() || !src.has_data() || dst.dtype() != DType::Float32 || storage_of(src.dtype()) != Storage::F32 ||
      dst.shape() != src.shape() || dst.shares_buffer_with(src))
    return false;
  float* pd = dst.f32();
  const float* ps = src.f32();
  auto plan = detail::plan_loop<2>(dst.shape(), {dst.strides().data(), src.strides().data()});
  detail::run_loop<2>(plan, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
    float* d = pd + off[0];
    const float* s = ps + off[1];
    if (st[0] == 1 && st[1] == 1) {
      for (int64_t i = 0; i < n; ++i) d[i] += s[i];
    } else {
      for (int64_t i = 0; i < n; ++i) d[i * st[0]] += s[i * st[1]];
    }
  });
  return true;
}

Array where(const Array& cond_in, const Array& a_in, const Array& b_in, DType out) {
  Shape shape = broadcast_shapes(broadcast_shapes(cond_in.shape(), a_in.shape()), b_in.shape());
  if (!cond_in.has_data() || !a_in.has_data() || !b_in.has_data()) return Array::shape_only(shape, out);
  Array cond = broadcast_to(astype(cond_in, DType::Bool), shape);
  Array a = broadcast_to(astype(a_in, out), shape), b = broadcast_to(astype(b_in, out), shape);
  Array result = Array::empty(shape, out);
  // result = a where cond else b, as two masked copies through the strided loop
  auto select = [&](auto* pr, auto* pa, auto* pb) {
    const int64_t* pc = cond.i64();
    auto plan = detail::plan_loop<4>(shape, {cond.strides().data(), a.strides().data(), b.strides().data(),
                                             result.strides().data()});
    detail::run_loop<4>(plan, {0, 0, 0, 0}, [&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
      for (int64_t idx = 0; idx < n; ++idx)
        pr[off[3] + idx * st[3]] = pc[off[0] + idx * st[0]] ? pa[off[1] + idx * st[1]] : pb[off[2] + idx * st[2]];
    });
  };
  switch (storage_of(out)) {
    case Storage::F32: select(result.f32(), a.f32(), b.f32()); break;
    case Storage::F64: select(result.f64(), a.f64(), b.f64()); break;
    case Storage::I64: select(result.i64(), a.i64(), b.i64()); break;
  }
  return result;
}

}  // namespace tensor
