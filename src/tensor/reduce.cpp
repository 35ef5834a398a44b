// reduce(): sum/prod/max/min/mean/all/any over axes, following numpy's evaluation order so that
// float results match numpy: a reduction along the innermost (contiguous) run uses numpy's
// pairwise summation; reductions over outer axes accumulate whole rows in order.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tensor/detail.h"
#include "tensor/ops.h"

namespace tensor {

namespace {

// numpy's @TYPE@_pairwise_sum (numpy/core/src/umath/loops_utils.h.src), blocks of 128 with 8
// partial sums; the order of additions is reproduced exactly.
template <class T>
T pairwise_sum(const T* a, int64_t n, int64_t stride) {
  if (n < 8) {
    T res = 0;
    for (int64_t idx = 0; idx < n; ++idx) res += a[idx * stride];
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int lane = 0; lane < 8; ++lane) r[lane] = a[lane * stride];
    int64_t idx = 8;
    for (; idx < n - (n % 8); idx += 8)
      for (int lane = 0; lane < 8; ++lane) r[lane] += a[(idx + lane) * stride];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; idx < n; ++idx) res += a[idx * stride];
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2, stride) + pairwise_sum(a + n2 * stride, n - n2, stride);
}

constexpr int64_t kNumpyBufferSize = 8192;

template <class T>
inline T max_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a >= b || a != a) ? a : b;
  return a >= b ? a : b;
}
template <class T>
inline T min_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a <= b || a != a) ? a : b;
  return a <= b ? a : b;
}

template <class T>
T identity_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Prod:
    case ReduceOp::All: return T(1);
    case ReduceOp::Max:
      if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
      return std::numeric_limits<T>::min();
    case ReduceOp::Min:
      if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
      return std::numeric_limits<T>::max();
    default: return T(0);
  }
}

// Reduces src into acc (acc has src's shape with stride 0 along reduced axes).
template <class T>
void reduce_into(ReduceOp op, const Array& src, const T* ps, const Array& acc, T* pa) {
  auto plan = detail::plan_loop<2>(src.shape(), {src.strides().data(), acc.strides().data()});
  detail::run_loop<2>(plan, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
    const T* x = ps + off[0];
    T* o = pa + off[1];
    int64_t sx = st[0], so = st[1];
    if (so == 0) {  // a reduction row
      T r = *o;
      switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean:
          // numpy's reduction iterator hands the inner loop at most its buffer size (8192)
          // elements at a time; each chunk is summed pairwise and added in order.
          for (int64_t start = 0; start < n; start += kNumpyBufferSize)
            r += pairwise_sum(x + start * sx, std::min(kNumpyBufferSize, n - start), sx);
          break;
        case ReduceOp::Prod: for (int64_t idx = 0; idx < n; ++idx) r *= x[idx * sx]; break;
        case ReduceOp::Max:
        case ReduceOp::Any: for (int64_t idx = 0; idx < n; ++idx) r = max_nan(r, x[idx * sx]); break;
        case ReduceOp::Min:
        case ReduceOp::All: for (int64_t idx = 0; idx < n; ++idx) r = min_nan(r, x[idx * sx]); break;
      }
      *o = r;
      return;
    }
    switch (op) {  // accumulate a row of independent outputs
      case ReduceOp::Sum:
      case ReduceOp::Mean: for (int64_t idx = 0; idx < n; ++idx) o[idx * so] += x[idx * sx]; break;
      case ReduceOp::Prod: for (int64_t idx = 0; idx < n; ++idx) o[idx * so] *= x[idx * sx]; break;
      case ReduceOp::Max:
      case ReduceOp::Any:
        for (int64_t idx = 0; idx < n; ++idx) o[idx * so] = max_nan(o[idx * so], x[idx * sx]);
        break;
      case ReduceOp::Min:
      case ReduceOp::All:
        for (int64_t idx = 0; idx < n; ++idx) o[idx * so] = min_nan(o[idx * so], x[idx * sx]);
        break;
    }
  });
}

const char* reduce_name(ReduceOp op) {
  static const char* names[] = {"add", "multiply", "maximum", "minimum", "add", "logical_and", "logical_or"};
  return names[static_cast<int>(op)];
}

// Storage the reduction accumulates in.
Storage accumulation_storage(ReduceOp op, const Array& a, DType out) {
  switch (op) {
    case ReduceOp::Max:
    case ReduceOp::Min: return storage_of(a.dtype());
    case ReduceOp::All:
    case ReduceOp::Any: return Storage::I64;
    default: return storage_of(out);
  }
}

template <class T>
void run_reduce(ReduceOp op, const Array& src, const T* ps, Array& acc_full, T* pa, const Array& acc_view, int64_t count) {
  std::fill(pa, pa + acc_full.size(), identity_of<T>(op));
  reduce_into(op, src, ps, acc_view, pa);
  if (op == ReduceOp::Mean) {
    T n = static_cast<T>(count);
    for (int64_t idx = 0; idx < acc_full.size(); ++idx) pa[idx] /= n;
  }
}

}  // namespace

Array reduce(ReduceOp op, const Array& a, const std::vector<int>& axes_in, bool keepdims, DType out) {
  int nd = a.ndim();
  std::vector<bool> reduced(nd, axes_in.empty());
  for (int axis : axes_in) {
    int ax = detail::normalize_axis(axis, nd);
    if (reduced[ax]) throw ArrayError("duplicate value in 'axis'");
    reduced[ax] = true;
  }
  Shape kept_shape = a.shape(), out_shape;
  Strides acc_strides_src;
  int64_t count = 1;
  for (int dim_idx = 0; dim_idx < nd; ++dim_idx) {
    if (reduced[dim_idx]) {
      count *= a.shape()[dim_idx];
      kept_shape[dim_idx] = 1;
      if (keepdims) out_shape.push_back(1);
    } else {
      out_shape.push_back(a.shape()[dim_idx]);
    }
  }
  if (count == 0 && (op == ReduceOp::Max || op == ReduceOp::Min))
    throw ArrayError(fmt::format("zero-size array to reduction operation {} which has no identity", reduce_name(op)));
  if (!a.has_data()) return Array::shape_only(out_shape, out);

  Array src = a;
  if (op == ReduceOp::All || op == ReduceOp::Any) {
    src = storage_of(a.dtype()) == Storage::I64 && a.dtype() == DType::Bool
              ? a
              : binary(BinaryOp::Ne, a, Array::scalar(a.dtype(), 0), a.dtype(), DType::Bool);
  }
  Storage s = accumulation_storage(op, src, out);
  src = detail::to_storage(src, s);
  Array acc = Array::empty(kept_shape, detail::canonical_dtype(s));
  Strides view_strides = acc.strides();
  for (int dim_idx = 0; dim_idx < nd; ++dim_idx)
    if (reduced[dim_idx]) view_strides[dim_idx] = 0;
  Array acc_view = acc.view(a.shape(), view_strides, 0);
  switch (s) {
    case Storage::F32: run_reduce(op, src, src.f32(), acc, acc.f32(), acc_view, count); break;
    case Storage::F64: run_reduce(op, src, src.f64(), acc, acc.f64(), acc_view, count); break;
    case Storage::I64: run_reduce(op, src, src.i64(), acc, acc.i64(), acc_view, count); break;
  }
  Array result = reshape(acc, out_shape);
  return astype(result, out);
}

}  // namespace tensor
