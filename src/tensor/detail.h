// Internal helpers shared by the tensor sources (not part of the public API).
#pragma once

#include "tensor/array.h"
#include "tensor/strided_loop.h"

namespace tensor::detail {

// Copies src into dst element by element (same shape; dst may be any view with data), converting
// between storages and rounding/wrapping to dst's dtype.
void convert_into(const Array& dst, const Array& src);
// convert_into without the float -> bool rule: plain numeric conversion (values already 0/1).
void convert_values(const Array& dst, const Array& src);
// Rounds (narrow floats) or wraps (narrow ints, bool) every element of a to its dtype in place.
// A no-op for float32, float64 and int64.
void normalize_inplace(const Array& a);
// True when writing storage values into dtype t needs normalize_inplace.
bool needs_normalize(DType t);
// Converts to the given storage (same dtype if it already matches, else the canonical dtype of
// that storage: F32 -> float32, F64 -> float64, I64 -> int64). Returns a (possibly shared) array.
Array to_storage(const Array& a, Storage s);
DType canonical_dtype(Storage s);
// numpy's normalize_axis_index: wraps negative axes, throws ArrayError when out of range.
int normalize_axis(int64_t axis, int ndim);

}  // namespace tensor::detail
