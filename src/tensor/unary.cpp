// unary(): elementwise one-operand ops, including the NKI activation functions
// (nki-language.md 9.2) with their exact definitions.
#include <cmath>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "tensor/elementwise_kernels.h"
#include "tensor/ops.h"

namespace tensor {

namespace {

using detail::unary_loop;

template <class T>
inline T exp_like_numpy(T x);
template <class T>
inline T sigmoid(T x) { return T(1) / (T(1) + exp_like_numpy(-x)); }
template <class T>
inline T softplus(T x) {  // log(1 + e^x) without overflow for large x
  return std::fmax(x, T(0)) + std::log1p(std::exp(-std::fabs(x)));
}
template <class T>
inline T sign_of(T x) {
  if (x != x) return x;
  return T((x > 0) - (x < 0));
}

// numpy's own float32 exp (simd_exp_f32 in numpy/core/src/umath/loops_exponent_log.dispatch.c.src,
// used on AVX2/AVX512 machines): Cody-Waite range reduction and a (5,2) rational minimax
// polynomial evaluated with FMAs. Reproducing it keeps float32 references bit-identical to numpy
// (glibc's correctly rounded expf differs from numpy's in about 40% of the results). std::fma is
// exact everywhere: a vfmadd instruction in the x86-64-v3 clone of the row loop, libm's fmaf
// elsewhere.
inline float fma32(float a, float b, float c) { return std::fma(a, b, c); }
inline float pow2f(int32_t k) {  // 2^k for -126 <= k <= 127
  uint32_t bits = static_cast<uint32_t>(k + 127) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline float numpy_expf(float x) {
  constexpr float kMax = 88.72283935546875f, kMin = -103.97208404541015625f;
  constexpr float kMagic = 12582912.0f, kLog2e = 1.442695040888963407359924681001892137f;
  constexpr float kC1 = -6.93145752e-1f, kC2 = -1.42860677e-6f;
  constexpr float kP0 = 9.999999999980870924916e-01f, kP1 = 7.257664613233124478488e-01f,
                  kP2 = 2.473615434895520810817e-01f, kP3 = 5.114512081637298353406e-02f,
                  kP4 = 6.757896990527504603057e-03f, kP5 = 5.082762527590693718096e-04f;
  constexpr float kQ1 = -2.742335390411667452936e-01f, kQ2 = 2.159509375685829852307e-02f;
  bool nan = x != x, over = x >= kMax, under = x <= kMin;
  float v = (nan || over || under) ? 0.0f : x;
  float q = fma32(v, kLog2e, kMagic) - kMagic;  // rint(v / ln 2)
  float y = fma32(q, kC1, v);
  y = fma32(q, kC2, y);
  float num = fma32(kP5, y, kP4);
  num = fma32(num, y, kP3);
  num = fma32(num, y, kP2);
  num = fma32(num, y, kP1);
  num = fma32(num, y, kP0);
  float den = fma32(kQ2, y, kQ1);
  den = fma32(den, y, 1.0f);
  float poly = num / den;
  // poly * 2^q with one rounding (subnormal results) and no overflow of the power: split 2^q
  // into two float powers of two; the first product is exact.
  int32_t qi = static_cast<int32_t>(q);
  int32_t first = qi > 0 ? qi - 1 : qi + 64, second = qi > 0 ? 1 : -64;
  float r = (poly * pow2f(first)) * pow2f(second);
  r = under ? 0.0f : r;
  r = over ? INFINITY : r;
  return nan ? x : r;
}

// Contiguous rows of the exp-based float32 functions: plain restrict loops so that GCC
// vectorizes them, cloned for AVX2+FMA machines (the dispatch happens once, at load time).
__attribute__((target_clones("arch=x86-64-v3", "default")))
void exp_row_f32(const float* __restrict x, float* __restrict out, int64_t n) {
  for (int64_t idx = 0; idx < n; ++idx) out[idx] = numpy_expf(x[idx]);
}
__attribute__((target_clones("arch=x86-64-v3", "default")))
void sigmoid_row_f32(const float* __restrict x, float* __restrict out, int64_t n) {
  for (int64_t idx = 0; idx < n; ++idx) out[idx] = 1.0f / (1.0f + numpy_expf(-x[idx]));
}
__attribute__((target_clones("arch=x86-64-v3", "default")))
void silu_row_f32(const float* __restrict x, float* __restrict out, int64_t n) {
  for (int64_t idx = 0; idx < n; ++idx) out[idx] = x[idx] / (1.0f + numpy_expf(-x[idx]));
}

using RowFn = void (*)(const float* __restrict, float* __restrict, int64_t);

// Applies a row function to contiguous rows and `scalar` elsewhere (strided or in-place rows).
template <class Scalar>
void exp_based_f32(const Array& a, const float* pa, const Array& o, float* po, RowFn row, Scalar scalar) {
  auto plan = detail::plan_loop<2>(o.shape(), {a.strides().data(), o.strides().data()});
  detail::run_loop<2>(plan, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
    if (st[0] == 1 && st[1] == 1 && pa + off[0] != po + off[1]) {
      row(pa + off[0], po + off[1], n);
      return;
    }
    for (int64_t idx = 0; idx < n; ++idx) po[off[1] + idx * st[1]] = scalar(pa[off[0] + idx * st[0]]);
  });
}

template <class T>
inline T exp_like_numpy(T x) {
  if constexpr (std::is_same_v<T, float>) return numpy_expf(x);
  return std::exp(x);
}

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

template <class T>
void run_float(UnaryOp op, const Array& a, const T* pa, const Array& o, T* po) {
  switch (op) {
    case UnaryOp::Copy: unary_loop(a, pa, o, po, [](T x) { return x; }); return;
    case UnaryOp::Neg: unary_loop(a, pa, o, po, [](T x) { return -x; }); return;
    case UnaryOp::Abs: unary_loop(a, pa, o, po, [](T x) { return std::fabs(x); }); return;
    case UnaryOp::Sign: unary_loop(a, pa, o, po, [](T x) { return sign_of(x); }); return;
    case UnaryOp::Square: unary_loop(a, pa, o, po, [](T x) { return x * x; }); return;
    case UnaryOp::Sqrt: unary_loop(a, pa, o, po, [](T x) { return std::sqrt(x); }); return;
    case UnaryOp::Rsqrt: unary_loop(a, pa, o, po, [](T x) { return T(1) / std::sqrt(x); }); return;
    case UnaryOp::Reciprocal: unary_loop(a, pa, o, po, [](T x) { return T(1) / x; }); return;
    case UnaryOp::Exp:
      if constexpr (std::is_same_v<T, float>) {
        exp_based_f32(a, pa, o, po, exp_row_f32, [](float x) { return numpy_expf(x); });
      } else {
        unary_loop(a, pa, o, po, [](T x) { return std::exp(x); });
      }
      return;
    case UnaryOp::Log: unary_loop(a, pa, o, po, [](T x) { return std::log(x); }); return;
    case UnaryOp::Sin: unary_loop(a, pa, o, po, [](T x) { return std::sin(x); }); return;
    case UnaryOp::Cos: unary_loop(a, pa, o, po, [](T x) { return std::cos(x); }); return;
    case UnaryOp::Tan: unary_loop(a, pa, o, po, [](T x) { return std::tan(x); }); return;
    case UnaryOp::Tanh: unary_loop(a, pa, o, po, [](T x) { return std::tanh(x); }); return;
    case UnaryOp::Arctan: unary_loop(a, pa, o, po, [](T x) { return std::atan(x); }); return;
    case UnaryOp::Sigmoid:
      if constexpr (std::is_same_v<T, float>) {
        exp_based_f32(a, pa, o, po, sigmoid_row_f32, [](float x) { return sigmoid(x); });
      } else {
        unary_loop(a, pa, o, po, [](T x) { return sigmoid(x); });
      }
      return;
    case UnaryOp::Relu: unary_loop(a, pa, o, po, [](T x) { return x > 0 ? x : T(0); }); return;
    case UnaryOp::Gelu:
      unary_loop(a, pa, o, po, [](T x) { return T(0.5) * x * (T(1) + std::erf(x * T(kInvSqrt2))); });
      return;
    case UnaryOp::GeluDx:
      unary_loop(a, pa, o, po, [](T x) {
        return T(0.5) * (T(1) + std::erf(x * T(kInvSqrt2))) + x * T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
      });
      return;
    case UnaryOp::GeluApproxTanh:
      unary_loop(a, pa, o, po, [](T x) {
        return T(0.5) * x * (T(1) + std::tanh(T(kSqrt2OverPi) * (x + T(0.044715) * x * x * x)));
      });
      return;
    case UnaryOp::GeluApproxSigmoid: unary_loop(a, pa, o, po, [](T x) { return x * sigmoid(T(1.702) * x); }); return;
    case UnaryOp::GeluApproxSigmoidDx:
      unary_loop(a, pa, o, po, [](T x) {
        T s = sigmoid(T(1.702) * x);
        return s + T(1.702) * x * s * (T(1) - s);
      });
      return;
    case UnaryOp::Silu:
      if constexpr (std::is_same_v<T, float>) {
        exp_based_f32(a, pa, o, po, silu_row_f32, [](float x) { return x / (1.0f + numpy_expf(-x)); });
      } else {
        unary_loop(a, pa, o, po, [](T x) { return x / (T(1) + std::exp(-x)); });
      }
      return;
    case UnaryOp::SiluDx:
      unary_loop(a, pa, o, po, [](T x) {
        T s = sigmoid(x);
        return s * (T(1) + x * (T(1) - s));
      });
      return;
    case UnaryOp::Softplus: unary_loop(a, pa, o, po, [](T x) { return softplus(x); }); return;
    case UnaryOp::Mish: unary_loop(a, pa, o, po, [](T x) { return x * std::tanh(softplus(x)); }); return;
    case UnaryOp::Erf: unary_loop(a, pa, o, po, [](T x) { return std::erf(x); }); return;
    case UnaryOp::ErfDx: unary_loop(a, pa, o, po, [](T x) { return T(kTwoOverSqrtPi) * std::exp(-x * x); }); return;
    case UnaryOp::Floor: unary_loop(a, pa, o, po, [](T x) { return std::floor(x); }); return;
    case UnaryOp::Ceil: unary_loop(a, pa, o, po, [](T x) { return std::ceil(x); }); return;
    case UnaryOp::Trunc: unary_loop(a, pa, o, po, [](T x) { return std::trunc(x); }); return;
    case UnaryOp::LogicalNot: unary_loop(a, pa, o, po, [](T x) { return T(x == 0); }); return;
    case UnaryOp::Log2: unary_loop(a, pa, o, po, [](T x) { return std::log2(x); }); return;
    case UnaryOp::Log10: unary_loop(a, pa, o, po, [](T x) { return std::log10(x); }); return;
    case UnaryOp::Log1p: unary_loop(a, pa, o, po, [](T x) { return std::log1p(x); }); return;
    case UnaryOp::Expm1: unary_loop(a, pa, o, po, [](T x) { return std::expm1(x); }); return;
    case UnaryOp::Invert: throw ArrayError("ufunc 'invert' not supported for floating-point inputs");
  }
}

// Returns false for ops that need float math (the caller then computes in float64).
bool run_int(UnaryOp op, const Array& a, const int64_t* pa, const Array& o, int64_t* po) {
  using T = int64_t;
  switch (op) {
    case UnaryOp::Copy:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Trunc: unary_loop(a, pa, o, po, [](T x) { return x; }); return true;
    case UnaryOp::Neg: unary_loop(a, pa, o, po, [](T x) { return T(0 - uint64_t(x)); }); return true;
    case UnaryOp::Abs: unary_loop(a, pa, o, po, [](T x) { return x < 0 ? T(0 - uint64_t(x)) : x; }); return true;
    case UnaryOp::Sign: unary_loop(a, pa, o, po, [](T x) { return T((x > 0) - (x < 0)); }); return true;
    case UnaryOp::Square: unary_loop(a, pa, o, po, [](T x) { return T(uint64_t(x) * uint64_t(x)); }); return true;
    case UnaryOp::Relu: unary_loop(a, pa, o, po, [](T x) { return x > 0 ? x : T(0); }); return true;
    case UnaryOp::LogicalNot: unary_loop(a, pa, o, po, [](T x) { return T(x == 0); }); return true;
    case UnaryOp::Invert: unary_loop(a, pa, o, po, [](T x) { return ~x; }); return true;
    default: return false;
  }
}

Array operand_for(const Array& x, DType compute) {
  if (x.dtype() == compute) return x;
  bool narrow_round = is_narrow_float(compute) && promote(x.dtype(), compute) != compute;
  if (storage_of(x.dtype()) == storage_of(compute) && !narrow_round) return x;
  return astype(x, compute);
}

}  // namespace

Array unary(UnaryOp op, const Array& a_in, DType compute, DType out) {
  if (!a_in.has_data()) return Array::shape_only(a_in.shape(), out);
  Array a = operand_for(a_in, compute);
  Storage s = storage_of(compute);
  Array result = Array::empty(a.shape(), storage_of(out) == s ? out : detail::canonical_dtype(s));
  switch (s) {
    case Storage::F32: run_float(op, a, a.f32(), result, result.f32()); break;
    case Storage::F64: run_float(op, a, a.f64(), result, result.f64()); break;
    case Storage::I64:
      if (!run_int(op, a, a.i64(), result, result.i64())) {
        // Bool of an integer with a Bool compute type keeps numpy's bitwise_not on bools.
        return unary(op, a_in, DType::Float64, out);
      }
      if (op == UnaryOp::Invert && compute == DType::Bool) {
        return binary(BinaryOp::Eq, a_in, Array::scalar(DType::Bool, 0), DType::Bool, out);
      }
      break;
  }
  if (result.dtype() != out) return astype(result, out);
  detail::normalize_inplace(result);
  return result;
}

}  // namespace tensor
