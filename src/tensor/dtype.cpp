#include "tensor/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tensor {

namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  Storage storage;
  int itemsize;
};

constexpr DTypeInfo kInfo[] = {
    {DType::Bool, "bool", Storage::I64, 1},
    {DType::Int8, "int8", Storage::I64, 1},
    {DType::Int16, "int16", Storage::I64, 2},
    {DType::Int32, "int32", Storage::I64, 4},
    {DType::Int64, "int64", Storage::I64, 8},
    {DType::UInt8, "uint8", Storage::I64, 1},
    {DType::UInt16, "uint16", Storage::I64, 2},
    {DType::UInt32, "uint32", Storage::I64, 4},
    {DType::UInt64, "uint64", Storage::I64, 8},
    {DType::Float8E4M3, "float8_e4m3", Storage::F32, 1},
    {DType::Float8E4M3FN, "float8_e4m3fn", Storage::F32, 1},
    {DType::Float8E5M2, "float8_e5m2", Storage::F32, 1},
    {DType::Float16, "float16", Storage::F32, 2},
    {DType::BFloat16, "bfloat16", Storage::F32, 2},
    {DType::TFloat32, "tfloat32", Storage::F32, 4},
    {DType::Float32, "float32", Storage::F32, 4},
    {DType::Float64, "float64", Storage::F64, 8},
};

const DTypeInfo& info(DType t) { return kInfo[static_cast<int>(t)]; }

struct Alias {
  std::string_view spelling;
  DType dtype;
};
// Spellings numpy (np.dtype('...')) and NKI accept besides the canonical names.
constexpr Alias kAliases[] = {
    {"bool_", DType::Bool},        {"?", DType::Bool},          {"b1", DType::Bool},
    {"i1", DType::Int8},           {"i2", DType::Int16},        {"i4", DType::Int32},
    {"i8", DType::Int64},          {"int", DType::Int64},       {"int_", DType::Int64},
    {"u1", DType::UInt8},          {"u2", DType::UInt16},       {"u4", DType::UInt32},
    {"u8", DType::UInt64},         {"f2", DType::Float16},      {"half", DType::Float16},
    {"f4", DType::Float32},        {"single", DType::Float32},  {"f8", DType::Float64},
    {"float", DType::Float64},     {"double", DType::Float64},  {"float_", DType::Float64},
    {"fp32", DType::Float32}, {"fp16", DType::Float16},
    {"bf16", DType::BFloat16},     {"tf32", DType::TFloat32},
};

int category(DType t) {  // numpy's kind order: bool < integer < float
  if (t == DType::Bool) return 0;
  return is_float(t) ? 2 : 1;
}

int int_bits(DType t) { return info(t).itemsize * 8; }

DType signed_of_bits(int bits) {
  switch (bits) {
    case 8: return DType::Int8;
    case 16: return DType::Int16;
    case 32: return DType::Int32;
    default: return DType::Int64;
  }
}

DType promote_ints(DType a, DType b) {
  bool sa = is_signed(a), sb = is_signed(b);
  if (sa == sb) return int_bits(a) >= int_bits(b) ? a : b;
  DType s = sa ? a : b, u = sa ? b : a;
  if (int_bits(s) > int_bits(u)) return s;
  if (int_bits(u) >= 64) return DType::Float64;  // numpy: int64 + uint64 -> float64
  return signed_of_bits(int_bits(u) * 2);
}

// The smallest numpy float that holds every value of integer type i exactly (numpy's table).
DType float_for_int(DType i, DType f) {
  if (f == DType::Float64) return f;
  int bits = i == DType::Bool ? 8 : int_bits(i);
  if (bits <= 8) return f;
  if (bits <= 16) return f == DType::Float32 ? f : DType::Float32;
  return DType::Float64;
}

// Narrow NKI float formats by (exponent bits, mantissa bits).
struct FloatFormat {
  int exp_bits, mant_bits;
};
FloatFormat format_of(DType t) {
  switch (t) {
    case DType::Float8E4M3:
    case DType::Float8E4M3FN: return {4, 3};
    case DType::Float8E5M2: return {5, 2};
    case DType::Float16: return {5, 10};
    case DType::BFloat16: return {8, 7};
    case DType::TFloat32: return {8, 10};
    case DType::Float32: return {8, 23};
    default: return {11, 52};
  }
}

// Float with float: the wider format, or the smallest one covering both ranges and precisions
// (nki-language.md 3.8). tf32 is only ever a result when an input is tf32.
DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
  auto is_pair = [&](DType x, DType y) { return (a == x && b == y) || (a == y && b == x); };
  if (is_pair(DType::Float8E4M3, DType::Float8E5M2) || is_pair(DType::Float8E4M3FN, DType::Float8E5M2)) return DType::BFloat16;
  if (is_pair(DType::Float8E4M3, DType::Float8E4M3FN)) return DType::Float16;  // covers both ranges
  FloatFormat fa = format_of(a), fb = format_of(b);
  int exp_bits = std::max(fa.exp_bits, fb.exp_bits), mant_bits = std::max(fa.mant_bits, fb.mant_bits);
  const DType order[] = {DType::Float8E4M3, DType::Float8E5M2, DType::Float16, DType::BFloat16,
                         DType::TFloat32, DType::Float32};
  for (DType c : order) {
    if (c == DType::TFloat32 && a != c && b != c) continue;
    FloatFormat fc = format_of(c);
    if (fc.exp_bits >= exp_bits && fc.mant_bits >= mant_bits) return c;
  }
  return DType::Float32;
}

// Rounds to a float format with `mant_bits` explicit mantissa bits, smallest normal exponent
// `min_exp` (value 2^min_exp) and largest finite value `max_finite`; ties to even.
float round_generic(float v, int mant_bits, int min_exp, float max_finite) {
  if (!std::isfinite(v) || v == 0.0f) return v;
  int exp = 0;
  std::frexp(v, &exp);  // v = m * 2^exp, 0.5 <= |m| < 1 -> unbiased exponent exp - 1
  int e = std::max(exp - 1, min_exp);
  float quantum = std::ldexp(1.0f, e - mant_bits);
  float r = std::nearbyint(v / quantum) * quantum;  // default rounding mode: to nearest even
  if (std::fabs(r) > max_finite) return std::copysign(std::numeric_limits<float>::infinity(), v);
  return r;
}

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
float from_bits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}

// Keeps the top (32 - drop) bits of a float32 with round-to-nearest-even on the dropped bits.
float round_drop_bits(float v, int drop) {
  if (std::isnan(v)) return v;
  uint32_t b = bits_of(v);
  uint32_t half = (1u << (drop - 1)) - 1;
  b += half + ((b >> drop) & 1u);
  b &= ~((1u << drop) - 1);
  return from_bits(b);
}

}  // namespace

Storage storage_of(DType t) { return info(t).storage; }
int itemsize(DType t) { return info(t).itemsize; }
bool is_float(DType t) { return t >= DType::Float8E4M3; }
bool is_integer(DType t) { return t >= DType::Int8 && t <= DType::UInt64; }
bool is_signed(DType t) { return (t >= DType::Int8 && t <= DType::Int64) || is_float(t); }
bool is_narrow_float(DType t) { return is_float(t) && t != DType::Float32 && t != DType::Float64; }
std::string_view name(DType t) { return info(t).name; }

std::optional<DType> parse_dtype(std::string_view spelling) {
  for (const DTypeInfo& i : kInfo)
    if (i.name == spelling) return i.dtype;
  for (const Alias& a : kAliases)
    if (a.spelling == spelling) return a.dtype;
  return std::nullopt;
}

float round_to(DType t, float v) {
  switch (t) {
    case DType::BFloat16: return round_drop_bits(v, 16);
    case DType::TFloat32: return round_drop_bits(v, 13);
    case DType::Float16: return static_cast<float>(static_cast<_Float16>(v));
    case DType::Float8E4M3: return round_generic(v, 3, -6, 240.0f);
    case DType::Float8E4M3FN: {  // no infinity: overflow is NaN, as ml_dtypes converts
      float r = round_generic(v, 3, -6, 448.0f);
      return std::isinf(r) ? std::numeric_limits<float>::quiet_NaN() : r;
    }
    case DType::Float8E5M2: return round_generic(v, 2, -14, 57344.0f);
    default: return v;
  }
}

// Integer conversions wrap to the type's width like numpy's C casts; NaN and out-of-range floats
// give INT64_MIN as numpy does on x86 for int64.
double cast_scalar(DType t, double v) {
  if (t == DType::Float64) return v;
  if (is_float(t)) return round_to(t, static_cast<float>(v));
  if (t == DType::Bool) return v != 0 ? 1 : 0;
  int64_t i = (std::isnan(v) || std::fabs(v) >= 9.2233720368547758e18)
                  ? std::numeric_limits<int64_t>::min()
                  : static_cast<int64_t>(v);
  switch (t) {
    case DType::Int8: return static_cast<int8_t>(i);
    case DType::Int16: return static_cast<int16_t>(i);
    case DType::Int32: return static_cast<int32_t>(i);
    case DType::UInt8: return static_cast<uint8_t>(i);
    case DType::UInt16: return static_cast<uint16_t>(i);
    case DType::UInt32: return static_cast<uint32_t>(i);
    case DType::UInt64: return static_cast<double>(static_cast<uint64_t>(i));
    default: return static_cast<double>(i);
  }
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (is_float(a) && is_float(b)) return promote_floats(a, b);
  if (is_float(a)) return float_for_int(b, a);
  if (is_float(b)) return float_for_int(a, b);
  return promote_ints(a, b);
}

DType min_scalar_type(DType s, double value) {
  if (s == DType::Bool) return DType::Bool;
  if (is_float(s)) {
    if (!std::isfinite(value) || (value > -65000.0 && value < 65000.0)) return DType::Float16;
    if (value > -3.4e38 && value < 3.4e38) return DType::Float32;
    return DType::Float64;
  }
  if (value >= 0) {
    if (value <= 255) return DType::UInt8;
    if (value <= 65535) return DType::UInt16;
    if (value <= 4294967295.0) return DType::UInt32;
    return DType::UInt64;
  }
  if (value >= -128) return DType::Int8;
  if (value >= -32768) return DType::Int16;
  if (value >= -2147483648.0) return DType::Int32;
  return DType::Int64;
}

DType promote_array_scalar(DType t, DType s, double value) {
  // NumPy 1.x: a scalar of a higher kind than the array takes part with its own dtype; otherwise
  // with the smallest dtype that holds its value.
  if (category(s) > category(t)) return promote(t, s);
  DType m = min_scalar_type(s, value);
  // numpy's "small unsigned" rule: a non-negative value that also fits the signed type of the
  // same size acts as that signed type next to a signed array (int8 array + 1 -> int8).
  if (is_integer(m) && !is_signed(m) && is_signed(t) && is_integer(t)) {
    DType as_signed = signed_of_bits(int_bits(m));
    if (cast_scalar(as_signed, value) == value) m = as_signed;
  }
  return promote(t, m);
}

namespace {
DType python_scalar_dtype(ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool: return DType::Bool;
    case ScalarKind::Int: return DType::Int64;
    default: return DType::Float64;
  }
}
}  // namespace

DType promote_with_scalar(DType t, ScalarKind k) { return promote_with_scalar(t, k, 0.0); }

DType promote_with_scalar(DType t, ScalarKind k, double value) {
  return promote_array_scalar(t, python_scalar_dtype(k), value);
}

namespace {
// No 64-bit types on the hardware: 64-bit operands count as their 32-bit counterparts.
DType narrow_64(DType t) {
  if (t == DType::Float64) return DType::Float32;
  if (t == DType::Int64) return DType::Int32;
  if (t == DType::UInt64) return DType::UInt32;
  return t;
}
}  // namespace

DType nki_promote(DType a, DType b) {
  a = narrow_64(a);
  b = narrow_64(b);
  if (a == b) return a;
  if (a == DType::Bool) a = DType::UInt8;
  if (b == DType::Bool) b = DType::UInt8;
  if (is_float(a) && is_float(b)) return promote_floats(a, b);
  if (is_float(a)) return a;
  if (is_float(b)) return b;
  DType r = promote_ints(a, b);
  return r == DType::Int64 || r == DType::Float64 ? DType::Float32 : r;  // int32 + uint32
}

}  // namespace tensor
