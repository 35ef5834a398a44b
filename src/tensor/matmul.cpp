// numpy.matmul and the Tensor Engine primitive, on OpenBLAS (single-threaded by default).
#include <cblas.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "tensor/detail.h"
#include "tensor/ops.h"

namespace tensor {

namespace {

// The evaluation service runs one process per core: unless the user set OPENBLAS_NUM_THREADS (or
// called set_blas_threads), BLAS runs on the calling thread only.
void init_blas_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!std::getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(1);
  });
}

// A 2-d operand as BLAS wants it: unit stride along one axis. `trans` means the matrix is stored
// column-major (unit stride along rows), `ld` is the other stride.
struct BlasOperand {
  Array storage;  // keeps a copy alive when one was needed
  bool trans = false;
  int64_t ld = 0;
};

BlasOperand blas_operand(const Array& m) {
  int64_t rows = m.shape()[0], cols = m.shape()[1];
  int64_t s0 = m.strides()[0], s1 = m.strides()[1];
  if ((s1 == 1 || cols == 1) && s0 >= std::max<int64_t>(cols, 1)) return {m, false, s0};
  if ((s0 == 1 || rows == 1) && s1 >= std::max<int64_t>(rows, 1)) return {m, true, s1};
  Array c = m.copy();
  return {c, false, std::max<int64_t>(cols, 1)};
}

// C(M,N) = op(A) op(B) (+ C when beta = 1) for one 2-d problem; c must be C-contiguous rows.
template <class T>
void gemm(const Array& a, bool a_transposed, const Array& b, T* c, int64_t ldc, float beta) {
  init_blas_threads();
  // a_transposed: `a` holds (K, M) and the product uses its transpose.
  int64_t M = a_transposed ? a.shape()[1] : a.shape()[0];
  int64_t K = a_transposed ? a.shape()[0] : a.shape()[1];
  int64_t N = b.shape()[1];
  if (M == 0 || N == 0) return;
  BlasOperand oa = blas_operand(a), ob = blas_operand(b);
  CBLAS_TRANSPOSE ta = (oa.trans != a_transposed) ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE tb = ob.trans ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, oa.storage.f32(), oa.ld, ob.storage.f32(), ob.ld, beta, c, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, oa.storage.f64(), oa.ld, ob.storage.f64(), ob.ld, beta, c, ldc);
  }
}

void int_matmul(const Array& a, const Array& b, int64_t* c) {
  int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  for (int64_t row = 0; row < M; ++row)
    for (int64_t col = 0; col < N; ++col) {
      uint64_t sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += uint64_t(a.i64()[row * a.strides()[0] + k * a.strides()[1]]) *
                                             uint64_t(b.i64()[k * b.strides()[0] + col * b.strides()[1]]);
      c[row * N + col] = static_cast<int64_t>(sum);
    }
}

Array batch_matrix(const Array& x, const Shape& batch, int64_t flat_idx) {
  // Selects matrix `flat_idx` (C order over `batch`) of x, whose batch dims broadcast to `batch`.
  int64_t offset = x.offset();
  int nb = static_cast<int>(batch.size());
  int xb = x.ndim() - 2;
  for (int dim_idx = nb - 1; dim_idx >= 0; --dim_idx) {
    int64_t i = flat_idx % batch[dim_idx];
    flat_idx /= batch[dim_idx];
    int xd = dim_idx - (nb - xb);
    if (xd >= 0 && x.shape()[xd] != 1) offset += i * x.strides()[xd];
  }
  Shape s = {x.shape()[xb], x.shape()[xb + 1]};
  Strides st = {x.strides()[xb], x.strides()[xb + 1]};
  return x.view(s, st, offset);
}

}  // namespace

void set_blas_threads(int threads) {
  init_blas_threads();
  openblas_set_num_threads(threads < 1 ? 1 : threads);
}

Array matmul(const Array& a_in, const Array& b_in) {
  if (a_in.ndim() == 0 || b_in.ndim() == 0) throw ArrayError("matmul: input operand does not have enough dimensions");
  bool a_vec = a_in.ndim() == 1, b_vec = b_in.ndim() == 1;
  Array a = a_vec ? expand_dims(a_in, 0) : a_in;
  Array b = b_vec ? expand_dims(b_in, 1) : b_in;
  int64_t M = a.shape()[a.ndim() - 2], K = a.shape()[a.ndim() - 1];
  int64_t K2 = b.shape()[b.ndim() - 2], N = b.shape()[b.ndim() - 1];
  if (K != K2)
    throw ArrayError(fmt::format("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                                 "signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})", K2, K));
  Shape a_batch(a.shape().begin(), a.shape().end() - 2), b_batch(b.shape().begin(), b.shape().end() - 2);
  Shape batch = broadcast_shapes(a_batch, b_batch);
  Shape out_shape = batch;
  if (!a_vec) out_shape.push_back(M);
  if (!b_vec) out_shape.push_back(N);
  DType dtype = promote(a.dtype(), b.dtype());
  if (dtype == DType::Bool) dtype = DType::Bool;
  if (!a.has_data() || !b.has_data()) return Array::shape_only(out_shape, dtype);

  Storage s = storage_of(dtype);
  a = storage_of(a.dtype()) == s ? a : detail::to_storage(a, s);
  b = storage_of(b.dtype()) == s ? b : detail::to_storage(b, s);
  Shape full = batch;
  full.push_back(M);
  full.push_back(N);
  Array out = Array::empty(full, s == Storage::I64 ? DType::Int64 : detail::canonical_dtype(s));
  int64_t batches = num_elements(batch);
  for (int64_t batch_idx = 0; batch_idx < batches; ++batch_idx) {
    Array am = batch_matrix(a, batch, batch_idx), bm = batch_matrix(b, batch, batch_idx);
    switch (s) {
      case Storage::F32: gemm<float>(am, false, bm, out.f32() + batch_idx * M * N, N, 0.0f); break;
      case Storage::F64: gemm<double>(am, false, bm, out.f64() + batch_idx * M * N, N, 0.0f); break;
      case Storage::I64: int_matmul(am, bm, out.i64() + batch_idx * M * N); break;
    }
  }
  if (K == 0) fill(out, 0.0);
  Array result = reshape(out, out_shape);
  return result.dtype() == dtype ? result : astype(result, dtype);
}

void matmul_tn_accumulate(const Array& a_in, const Array& b_in, Array& acc, bool accumulate) {
  if (a_in.ndim() != 2 || b_in.ndim() != 2 || acc.ndim() != 2)
    throw ArrayError("matmul_tn_accumulate needs 2-d operands");
  int64_t K = a_in.shape()[0], M = a_in.shape()[1], N = b_in.shape()[1];
  if (b_in.shape()[0] != K)
    throw ArrayError(fmt::format("contraction sizes differ: stationary {} vs moving {}", shape_str(a_in.shape()),
                                 shape_str(b_in.shape())));
  if (acc.shape() != Shape{M, N})
    throw ArrayError(fmt::format("matmul result {} does not fit accumulator {}", shape_str({M, N}), shape_str(acc.shape())));
  if (!a_in.has_data() || !b_in.has_data() || !acc.has_data()) return;
  Array a = detail::to_storage(a_in, Storage::F32), b = detail::to_storage(b_in, Storage::F32);
  bool direct = acc.dtype() == DType::Float32 && (acc.strides()[1] == 1 || N == 1) && acc.strides()[0] >= N &&
                !acc.shares_buffer_with(a) && !acc.shares_buffer_with(b);
  if (direct) {
    if (K == 0 && !accumulate) fill(acc, 0.0);
    if (K > 0) gemm<float>(a, true, b, acc.f32(), acc.strides()[0], accumulate ? 1.0f : 0.0f);
    return;
  }
  Array tmp = accumulate ? astype(acc, DType::Float32) : Array::zeros({M, N}, DType::Float32);
  if (K > 0) gemm<float>(a, true, b, tmp.f32(), N, accumulate ? 1.0f : 0.0f);
  assign(acc, tmp);
}

}  // namespace tensor
