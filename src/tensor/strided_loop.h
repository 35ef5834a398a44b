// Internal: iteration over N operands that share one logical shape but have their own element
// strides. Dimensions are coalesced first (size-1 dims dropped, dims merged where every operand
// is contiguous across them), so a C-contiguous 128x512 tile is one row of 65536 elements and the
// callback's inner loop is a plain, vectorizable loop.
#pragma once

#include <array>
#include <cstdint>

#include "tensor/array.h"

namespace tensor::detail {

constexpr int kMaxDims = 32;

template <int N>
struct LoopPlan {
  int ndim = 0;  // after coalescing; 0 means one single element
  bool empty = false;
  int64_t shape[kMaxDims];
  int64_t strides[N][kMaxDims];
};

template <int N>
LoopPlan<N> plan_loop(const Shape& shape, const std::array<const int64_t*, N>& strides) {
  LoopPlan<N> plan;
  if (shape.size() > static_cast<size_t>(kMaxDims)) throw ArrayError("too many dimensions (max 32)");
  for (size_t dim_idx = 0; dim_idx < shape.size(); ++dim_idx) {
    int64_t len = shape[dim_idx];
    if (len == 0) plan.empty = true;
    if (len == 1) continue;
    bool merge = plan.ndim > 0;
    for (int op = 0; op < N && merge; ++op)
      merge = plan.strides[op][plan.ndim - 1] == strides[op][dim_idx] * len;
    if (merge) {
      plan.shape[plan.ndim - 1] *= len;
      for (int op = 0; op < N; ++op) plan.strides[op][plan.ndim - 1] = strides[op][dim_idx];
      continue;
    }
    plan.shape[plan.ndim] = len;
    for (int op = 0; op < N; ++op) plan.strides[op][plan.ndim] = strides[op][dim_idx];
    ++plan.ndim;
  }
  return plan;
}

// Calls row(offsets, n, inner_strides) once per innermost row, offsets in elements from `base`.
template <int N, class RowFn>
void run_loop(const LoopPlan<N>& plan, std::array<int64_t, N> offsets, RowFn&& row) {
  if (plan.empty) return;
  std::array<int64_t, N> inner{};
  if (plan.ndim == 0) {
    row(offsets, int64_t{1}, inner);
    return;
  }
  const int last = plan.ndim - 1;
  for (int op = 0; op < N; ++op) inner[op] = plan.strides[op][last];
  int64_t counter[kMaxDims] = {};
  for (;;) {
    row(offsets, plan.shape[last], inner);
    int dim = last - 1;
    for (; dim >= 0; --dim) {
      for (int op = 0; op < N; ++op) offsets[op] += plan.strides[op][dim];
      if (++counter[dim] < plan.shape[dim]) break;
      for (int op = 0; op < N; ++op) offsets[op] -= plan.strides[op][dim] * plan.shape[dim];
      counter[dim] = 0;
    }
    if (dim < 0) return;
  }
}

// Strides of a fresh C-contiguous array of `shape`.
Strides contiguous_strides(const Shape& shape);

}  // namespace tensor::detail
