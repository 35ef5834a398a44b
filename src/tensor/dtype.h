// Element types of accelopt arrays: the numpy dtypes the references use and the NKI dtypes
// (bf16, fp16, fp8, tf32) kernels may use. See docs/design.md and nki-language.md section 6.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tensor {

enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float8E4M3,    // NKI float8_e4m3 (IEEE-style, largest finite 240)
  Float8E4M3FN,  // OCP float8_e4m3fn (newer nl.float8_e4m3fn): no infinities, largest finite 448
  Float8E5M2,
  Float16,
  BFloat16,
  TFloat32,  // stored in 4 bytes, 10 mantissa bits
  Float32,
  Float64,
};

// How elements are held in memory. Narrow floats are held as float (rounded to their format on
// every write), so all engine math runs on float32 as the hardware does; integers and bools as
// int64. itemsize() is still the format's own size (what traces and byte counts use).
enum class Storage : uint8_t { F32, F64, I64 };

Storage storage_of(DType t);
int itemsize(DType t);                 // bytes of one element in the format (bf16 -> 2)
bool is_float(DType t);
bool is_integer(DType t);              // signed or unsigned integer; Bool is neither float nor integer
bool is_signed(DType t);               // signed integers and all floats
bool is_narrow_float(DType t);         // held as float but rounded on write (bf16, fp16, fp8, tf32)
std::string_view name(DType t);        // numpy spelling: "float32", "bfloat16", "float8_e4m3", ...
std::optional<DType> parse_dtype(std::string_view name);  // accepts numpy/NKI spellings

// Round a float value to the nearest representable value of a narrow float format
// (round-to-nearest-even, NaN stays NaN, overflow to inf as the format defines).
float round_to(DType t, float v);
double cast_scalar(DType t, double v);  // value after conversion to t (ints truncate like numpy)

// numpy's result_type for two array operands (NumPy 1.x value-independent rules for arrays).
DType promote(DType a, DType b);

// Kind of a Python scalar that takes part in an operation with an array ("weak" scalar).
enum class ScalarKind : uint8_t { Bool, Int, Float };
// numpy's result for array(dtype t) OP python-scalar(kind): float32 array * 0.9 -> float32,
// int32 array + 1.5 -> float64, bool array + 1 -> int64. The value-independent form assumes a
// small value (0 or 1); the value form applies NumPy 1.24's value-based casting exactly
// (uint8 array + 300 -> uint16, float32 array + 1e300 -> float64, int8 array + -1 -> int8).
DType promote_with_scalar(DType t, ScalarKind k);
DType promote_with_scalar(DType t, ScalarKind k, double value);
// numpy 1.24 result_type(array of dtype t, 0-d array / numpy scalar of dtype s with value v):
// float32 array * np.float64(2) -> float32, int8 array + np.float32(1.5) -> float32.
DType promote_array_scalar(DType t, DType s, double value);
// numpy.min_scalar_type for a value of the given dtype (uint8 for 3, int8 for -1, float16 for 0.5).
DType min_scalar_type(DType s, double value);
// NKI promotion (nki-language.md 3.8): weak scalars are bool->uint8, int->int32, float->float32,
// no 64-bit types on the hardware.
DType nki_promote(DType a, DType b);

}  // namespace tensor
