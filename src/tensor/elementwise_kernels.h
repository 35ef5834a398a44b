// Internal: the strided row kernels behind binary() and unary(). Each op is a small functor
// instantiated per storage type, so the inner loops are plain loops the compiler vectorizes
// (contiguous and scalar-broadcast operands get their own loop).
#pragma once

#include <array>
#include <cstdint>

#include "tensor/detail.h"

namespace tensor::detail {

template <class T, class Op>
inline void binary_row(const T* x, int64_t sx, const T* y, int64_t sy, T* o, int64_t so, int64_t n, Op op) {
  if (so == 1) {
    if (sx == 1 && sy == 1) {
      for (int64_t idx = 0; idx < n; ++idx) o[idx] = op(x[idx], y[idx]);
      return;
    }
    if (sx == 1 && sy == 0) {
      const T yv = *y;
      for (int64_t idx = 0; idx < n; ++idx) o[idx] = op(x[idx], yv);
      return;
    }
    if (sx == 0 && sy == 1) {
      const T xv = *x;
      for (int64_t idx = 0; idx < n; ++idx) o[idx] = op(xv, y[idx]);
      return;
    }
  }
  for (int64_t idx = 0; idx < n; ++idx) o[idx * so] = op(x[idx * sx], y[idx * sy]);
}

// out (contiguous, storage T) = op(a, b) with a and b already broadcast to out's shape.
template <class T, class Op>
void binary_loop(const Array& a, const T* a_base, const Array& b, const T* b_base, const Array& out, T* o_base, Op op) {
  auto plan = plan_loop<3>(out.shape(), {a.strides().data(), b.strides().data(), out.strides().data()});
  run_loop<3>(plan, {0, 0, 0}, [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
    binary_row(a_base + off[0], st[0], b_base + off[1], st[1], o_base + off[2], st[2], n, op);
  });
}

template <class T, class Op>
void unary_loop(const Array& a, const T* a_base, const Array& out, T* o_base, Op op) {
  auto plan = plan_loop<2>(out.shape(), {a.strides().data(), out.strides().data()});
  run_loop<2>(plan, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
    const T* x = a_base + off[0];
    T* o = o_base + off[1];
    if (st[0] == 1 && st[1] == 1) {
      for (int64_t idx = 0; idx < n; ++idx) o[idx] = op(x[idx]);
      return;
    }
    for (int64_t idx = 0; idx < n; ++idx) o[idx * st[1]] = op(x[idx * st[0]]);
  });
}

}  // namespace tensor::detail
