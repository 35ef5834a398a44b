// Element conversion between storages and dtypes: copy, astype, assign, fill.
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "tensor/detail.h"
#include "tensor/ops.h"

namespace tensor {
namespace detail {

namespace {

// float -> int64 as numpy does on x86: truncation, NaN and out-of-range give INT64_MIN.
inline int64_t float_to_int(double v) {
  if (!(std::fabs(v) < 9.2233720368547758e18)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

template <class D, class S>
inline D convert_value(S v) {
  if constexpr (std::is_same_v<D, int64_t> && !std::is_same_v<S, int64_t>) {
    return float_to_int(static_cast<double>(v));
  } else {
    return static_cast<D>(v);
  }
}

template <class D, class S>
void convert_row(D* dst, int64_t ds, const S* src, int64_t ss, int64_t n) {
  if constexpr (std::is_same_v<D, S>) {
    if (ds == 1 && ss == 1) {
      std::memcpy(dst, src, n * sizeof(D));
      return;
    }
  }
  if (ds == 1 && ss == 1) {
    for (int64_t idx = 0; idx < n; ++idx) dst[idx] = convert_value<D>(src[idx]);
    return;
  }
  for (int64_t idx = 0; idx < n; ++idx) dst[idx * ds] = convert_value<D>(src[idx * ss]);
}

template <class D, class S>
void convert_typed(const Array& dst, const Array& src, D* dst_base, const S* src_base) {
  auto plan = plan_loop<2>(dst.shape(), {dst.strides().data(), src.strides().data()});
  run_loop<2>(plan, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
    convert_row(dst_base + off[0], st[0], src_base + off[1], st[1], n);
  });
}

template <class D>
void convert_from(const Array& dst, const Array& src, D* dst_base) {
  switch (storage_of(src.dtype())) {
    case Storage::F32: convert_typed(dst, src, dst_base, src.f32()); break;
    case Storage::F64: convert_typed(dst, src, dst_base, src.f64()); break;
    case Storage::I64: convert_typed(dst, src, dst_base, src.i64()); break;
  }
}

template <class T, class F>
void map_inplace(const Array& a, T* base, F&& f) {
  auto plan = plan_loop<1>(a.shape(), {a.strides().data()});
  run_loop<1>(plan, {0}, [&](const std::array<int64_t, 1>& off, int64_t n, const std::array<int64_t, 1>& st) {
    T* p = base + off[0];
    for (int64_t idx = 0; idx < n; ++idx) p[idx * st[0]] = f(p[idx * st[0]]);
  });
}

int64_t wrap_int(DType t, int64_t v) {
  switch (t) {
    case DType::Bool: return v != 0;
    case DType::Int8: return static_cast<int8_t>(v);
    case DType::Int16: return static_cast<int16_t>(v);
    case DType::Int32: return static_cast<int32_t>(v);
    case DType::UInt8: return static_cast<uint8_t>(v);
    case DType::UInt16: return static_cast<uint16_t>(v);
    case DType::UInt32: return static_cast<uint32_t>(v);
    default: return v;
  }
}

}  // namespace

bool needs_normalize(DType t) {
  return is_narrow_float(t) || (storage_of(t) == Storage::I64 && t != DType::Int64 && t != DType::UInt64);
}

void normalize_inplace(const Array& a) {
  if (!a.has_data() || !needs_normalize(a.dtype())) return;
  DType t = a.dtype();
  // The common formats get their own loops (no per-element dispatch on the dtype).
  if (t == DType::BFloat16) {
    map_inplace(a, a.f32(), [](float v) {  // same rounding as round_to(BFloat16, v), inlined
      uint32_t b;
      std::memcpy(&b, &v, 4);
      if ((b & 0x7fffffffu) > 0x7f800000u) return v;  // NaN stays NaN
      b = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
      std::memcpy(&v, &b, 4);
      return v;
    });
  } else if (t == DType::Float16) {
    map_inplace(a, a.f32(), [](float v) { return static_cast<float>(static_cast<_Float16>(v)); });
  } else if (storage_of(t) == Storage::F32) {
    map_inplace(a, a.f32(), [t](float v) { return round_to(t, v); });
  } else {
    map_inplace(a, a.i64(), [t](int64_t v) { return wrap_int(t, v); });
  }
}

void convert_into(const Array& dst, const Array& src) {
  if (dst.shape() != src.shape())
    throw ArrayError(fmt::format("cannot copy shape {} into shape {}", shape_str(src.shape()), shape_str(dst.shape())));
  if (!dst.has_data() || !src.has_data()) return;
  if (dst.dtype() == DType::Bool && storage_of(src.dtype()) != Storage::I64) {
    // float -> bool is "non-zero", not truncation (0.5 -> True)
    Array zero = Array::scalar(src.dtype(), 0.0);
    convert_values(dst, binary(BinaryOp::Ne, src, zero, src.dtype(), DType::Int64));
    return;
  }
  convert_values(dst, src);
}

void convert_values(const Array& dst, const Array& src) {
  switch (storage_of(dst.dtype())) {
    case Storage::F32: convert_from(dst, src, dst.f32()); break;
    case Storage::F64: convert_from(dst, src, dst.f64()); break;
    case Storage::I64: convert_from(dst, src, dst.i64()); break;
  }
  // Values that already have dst's format need no rounding (bf16 -> bf16, int8 -> int32, ...).
  bool same_format = src.dtype() == dst.dtype() ||
                     (is_integer(src.dtype()) && is_integer(dst.dtype()) && promote(src.dtype(), dst.dtype()) == dst.dtype()) ||
                     (src.dtype() == DType::Bool && storage_of(dst.dtype()) == Storage::I64);
  if (!same_format) normalize_inplace(dst);
}

DType canonical_dtype(Storage s) {
  switch (s) {
    case Storage::F32: return DType::Float32;
    case Storage::F64: return DType::Float64;
    default: return DType::Int64;
  }
}

Array to_storage(const Array& a, Storage s) {
  if (storage_of(a.dtype()) == s) return a;
  DType t = canonical_dtype(s);
  if (!a.has_data()) return Array::shape_only(a.shape(), t);
  Array out = Array::empty(a.shape(), t);
  convert_into(out, a);
  return out;
}

}  // namespace detail

Array astype(const Array& a, DType dtype) {
  if (!a.has_data()) return Array::shape_only(a.shape(), dtype);
  Array out = Array::empty(a.shape(), dtype);
  detail::convert_into(out, a);
  return out;
}

void assign(Array& dst, const Array& src) {
  if (!dst.has_data()) {
    broadcast_to(src, dst.shape());  // still validate shapes in trace-only mode
    return;
  }
  if (!src.has_data()) throw ArrayError("assigning a shape-only array into an array with data");
  Array value = broadcast_to(src, dst.shape());
  if (dst.shares_buffer_with(src)) value = value.copy();  // overlapping views: read before write
  detail::convert_into(dst, value);
}

void fill(Array& dst, double value) {
  if (!dst.has_data()) return;
  assign(dst, Array::scalar(dst.dtype(), value));
}

}  // namespace tensor
