// numpy.linalg as references use it: norm, inv, solve, det. The factorizations are LAPACK's
// (OpenBLAS, the library Debian's numpy calls), in the dtype numpy computes in (float32 stays
// float32, integers become float64), so results match numpy's digits; norm follows numpy's
// linalg.norm formula by formula (BLAS dot for the flattened 2-norm, add.reduce otherwise).
#include <cblas.h>

#include <cmath>

#include <fmt/format.h>

#include "nki/exceptions.h"
#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

extern "C" {
// LAPACK (Fortran interface, provided by OpenBLAS). Character arguments carry their length.
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t jobz_len);
}

namespace nki::lib::np {

using tensor::Array;
using tensor::BinaryOp;
using tensor::DType;
using tensor::ReduceOp;
using tensor::UnaryOp;

namespace {

// numpy.linalg.LinAlgError (an Exception, not a ValueError): its str() is the message, as numpy's.
[[noreturn]] void linalg_error(const std::string& msg) { throw NkiError(ErrorKind::Value, "LinAlgError", msg); }

// numpy.linalg's computation dtype: float32 stays, other floats and integers become float64.
DType linalg_dtype(const Array& x) {
  if (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16)
    throw NkiError(ErrorKind::Type, fmt::format("array type {} is unsupported in linalg", tensor::name(x.dtype())));
  return x.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
}

void check_square(const Array& x) {
  if (x.ndim() < 2)
    linalg_error(fmt::format("{}-dimensional array given. Array must be at least two-dimensional", x.ndim()));
  if (x.shape()[size_t(x.ndim() - 1)] != x.shape()[size_t(x.ndim() - 2)]) linalg_error("Last 2 dimensions of the array must be square");
}

// The matrices of a stack (..., M, N) in column-major (LAPACK) order, as T values.
template <class T>
std::vector<T> column_major(const Array& x, int64_t index, int64_t m, int64_t n) {
  Array c = tensor::astype(x, DType::Float64).contiguous();
  const double* p = c.f64() + index * m * n;
  std::vector<T> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) out[size_t(j * m + i)] = T(p[i * n + j]);
  return out;
}

template <class T>
void gesv(int n, int nrhs, T* a, int* ipiv, T* b, int* info) {
  if constexpr (std::is_same_v<T, float>) sgesv_(&n, &nrhs, a, &n, ipiv, b, &n, info);
  else dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, info);
}

// Solves A X = B for every matrix of the stack; B is the identity (inv) or the given right-hand
// sides. Returns X with the shape (..., n, nrhs).
template <class T>
Array solve_stack(const Array& a, const Array* b, int64_t nrhs, const tensor::Shape& out_shape, DType out) {
  int64_t n = a.shape()[size_t(a.ndim() - 1)], count = n ? a.size() / (n * n) : 0;
  std::vector<double> result(static_cast<size_t>(count * n * nrhs));
  std::vector<int> ipiv(static_cast<size_t>(n));
  for (int64_t s = 0; s < count; ++s) {
    std::vector<T> A = column_major<T>(a, s, n, n);
    std::vector<T> B = b ? column_major<T>(*b, s, n, nrhs) : std::vector<T>(size_t(n * n), T(0));
    if (!b)
      for (int64_t i = 0; i < n; ++i) B[size_t(i * n + i)] = T(1);
    int info = 0;
    gesv<T>(int(n), int(nrhs), A.data(), ipiv.data(), B.data(), &info);
    if (info > 0) linalg_error("Singular matrix");
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < nrhs; ++j) result[size_t((s * n + i) * nrhs + j)] = double(B[size_t(j * n + i)]);
  }
  return Array::from_values(out_shape, out, result);
}

Value inv(Interpreter& in, BoundArgs& args) {
  Array a = to_array(in, args["a"]);
  check_square(a);
  DType t = linalg_dtype(a);
  if (!a.has_data()) return make_array(Array::shape_only(a.shape(), t));
  int64_t n = a.shape().back();
  in.charge_steps(uint64_t(a.size() * n / 16));
  return make_array(t == DType::Float32 ? solve_stack<float>(a, nullptr, n, a.shape(), t)
                                        : solve_stack<double>(a, nullptr, n, a.shape(), t));
}

// np.linalg.solve(a, b): b is a vector per matrix when b.ndim == a.ndim - 1 (numpy 1.24).
Value solve(Interpreter& in, BoundArgs& args) {
  Array a = to_array(in, args["a"]), b = to_array(in, args["b"]);
  check_square(a);
  DType t = tensor::promote(linalg_dtype(a), linalg_dtype(b));
  int64_t n = a.shape().back();
  bool vector = b.ndim() == a.ndim() - 1;
  Array rhs = vector ? tensor::expand_dims(b, b.ndim()) : b;
  tensor::Shape want = a.shape();
  want.back() = rhs.shape().back();
  if (rhs.ndim() != a.ndim() || rhs.shape()[size_t(rhs.ndim() - 2)] != n ||
      !std::equal(want.begin(), want.end() - 2, rhs.shape().begin()))
    throw NkiError(ErrorKind::Value, "solve: Input operand 1 has a mismatch in its core dimension 0");
  if (!a.has_data() || !b.has_data()) return make_array(Array::shape_only(b.shape(), t));
  int64_t nrhs = rhs.shape().back();
  Array x = t == DType::Float32 ? solve_stack<float>(a, &rhs, nrhs, want, t) : solve_stack<double>(a, &rhs, nrhs, want, t);
  return make_array(vector ? tensor::reshape(x, b.shape()) : x);
}

// np.linalg.det: numpy's sign * exp(log|det|) from the LU factors, in the computation dtype.
template <class T>
Array det_stack(const Array& a, DType out) {
  int n = int(a.shape().back());
  int64_t count = n ? a.size() / (int64_t(n) * n) : 1;
  std::vector<double> dets(static_cast<size_t>(count));
  std::vector<int> ipiv(static_cast<size_t>(n));
  for (int64_t s = 0; s < count; ++s) {
    std::vector<T> A = column_major<T>(a, s, n, n);
    int info = 0;
    if constexpr (std::is_same_v<T, float>) sgetrf_(&n, &n, A.data(), &n, ipiv.data(), &info);
    else dgetrf_(&n, &n, A.data(), &n, ipiv.data(), &info);
    T sign = 1, logdet = 0;
    if (info != 0) {
      sign = 0, logdet = -INFINITY;
    } else {
      for (int i = 0; i < n; ++i) {
        if (ipiv[size_t(i)] != i + 1) sign = -sign;
        T d = A[size_t(i * n + i)];
        if (d < 0) sign = -sign, d = -d;
        logdet += std::log(d);
      }
    }
    dets[size_t(s)] = double(sign * std::exp(logdet));
  }
  tensor::Shape shape(a.shape().begin(), a.shape().end() - 2);
  return Array::from_values(shape, out, dets);
}

Value det(Interpreter& in, BoundArgs& args) {
  Array a = to_array(in, args["a"]);
  check_square(a);
  DType t = linalg_dtype(a);
  tensor::Shape shape(a.shape().begin(), a.shape().end() - 2);
  if (!a.has_data()) return make_result(Array::shape_only(shape, t));
  return make_result(t == DType::Float32 ? det_stack<float>(a, t) : det_stack<double>(a, t));
}

// Singular values of every matrix of a stack (..., M, N) (LAPACK gesdd, no vectors), shape
// (..., min(M, N)).
template <class T>
Array singular_values(const Array& a, DType out) {
  int m = int(a.shape()[size_t(a.ndim() - 2)]), n = int(a.shape().back()), k = std::min(m, n);
  int64_t count = int64_t(m) * n ? a.size() / (int64_t(m) * n) : 0;
  std::vector<double> values;
  std::vector<int> iwork(static_cast<size_t>(8 * k));
  for (int64_t s = 0; s < count; ++s) {
    std::vector<T> A = column_major<T>(a, s, m, n), S(static_cast<size_t>(k));
    T dummy = 0, query = 0;
    int one = 1, lwork = -1, info = 0;
    char jobz = 'N';
    auto call = [&](T* work, int* lw) {
      if constexpr (std::is_same_v<T, float>)
        sgesdd_(&jobz, &m, &n, A.data(), &m, S.data(), &dummy, &one, &dummy, &one, work, lw, iwork.data(), &info, 1);
      else
        dgesdd_(&jobz, &m, &n, A.data(), &m, S.data(), &dummy, &one, &dummy, &one, work, lw, iwork.data(), &info, 1);
    };
    call(&query, &lwork);
    lwork = int(query);
    std::vector<T> work(static_cast<size_t>(std::max(lwork, 1)));
    call(work.data(), &lwork);
    if (info > 0) linalg_error("SVD did not converge");
    for (T v : S) values.push_back(double(v));
  }
  tensor::Shape shape(a.shape().begin(), a.shape().end() - 2);
  shape.push_back(k);
  return Array::from_values(shape, out, values);
}

// The order argument of norm: None, a number (inf allowed) or 'fro'/'f'/'nuc'.
struct Order {
  bool none = true;
  double p = 0;
  std::string name;
};

Order order_of(const Value& v) {
  Order o;
  if (v.is_none()) return o;
  o.none = false;
  if (auto* s = v.as<StrObj>()) o.name = s->s;
  else o.p = to_float(v, "ord");
  return o;
}

// np.linalg.norm(x, ord=None, axis=None, keepdims=False), numpy 1.24's linalg.norm.
Value norm(Interpreter& in, BoundArgs& args) {
  Array x = to_array(in, args["x"]);
  if (!tensor::is_float(x.dtype())) x = tensor::astype(x, DType::Float64);
  DType t = x.dtype();
  Order ord = order_of(args["ord"]);
  bool keep = args["keepdims"].truthy();
  auto abs = [&](const Array& v) { return tensor::unary(UnaryOp::Abs, v, t, t); };
  auto sum = [&](const Array& v, std::vector<int> axes, bool k) { return tensor::reduce(ReduceOp::Sum, v, axes, k, t); };
  if (args["axis"].is_none()) {
    bool fro = ord.name == "fro" || ord.name == "f";
    if (ord.none || (fro && x.ndim() == 2) || (ord.name.empty() && ord.p == 2 && x.ndim() == 1)) {
      if (!x.has_data()) return make_result(Array::shape_only(keep ? tensor::Shape(size_t(x.ndim()), 1) : tensor::Shape{}, t));
      Array flat = tensor::reshape(x.contiguous(), {-1});
      double sq = t == DType::Float32 ? double(cblas_sdot(int(flat.size()), flat.f32(), 1, flat.f32(), 1))
                                      : cblas_ddot(int(flat.size()), tensor::astype(flat, DType::Float64).f64(), 1,
                                                   tensor::astype(flat, DType::Float64).f64(), 1);
      Array r = tensor::unary(UnaryOp::Sqrt, Array::scalar(t, sq), t, t);
      if (keep) r = tensor::reshape(r, tensor::Shape(size_t(x.ndim()), 1));
      return make_result(r);
    }
  }
  std::vector<int> axes;
  if (args["axis"].is_none()) {
    for (int k = 0; k < x.ndim(); ++k) axes.push_back(k);
  } else {
    for (int64_t a : to_int_list(args["axis"], "axis")) axes.push_back(normal_axis(a, x.ndim(), "norm"));
  }
  if (axes.size() == 1) {
    Array r;
    if (!ord.name.empty()) throw NkiError(ErrorKind::Value, fmt::format("Invalid norm order '{}' for vectors", ord.name));
    if (ord.none || ord.p == 2) {
      r = tensor::unary(UnaryOp::Sqrt, sum(tensor::binary(BinaryOp::Mul, x, x, t, t), axes, keep), t, t);
    } else if (std::isinf(ord.p)) {
      r = tensor::reduce(ord.p > 0 ? ReduceOp::Max : ReduceOp::Min, abs(x), axes, keep, t);
    } else if (ord.p == 0) {
      r = sum(tensor::binary(BinaryOp::Ne, x, Array::scalar(t, 0), t, t), axes, keep);
    } else if (ord.p == 1) {
      r = sum(abs(x), axes, keep);
    } else {
      Array powered = tensor::binary(BinaryOp::Pow, abs(x), Array::scalar(t, ord.p), t, t);
      r = tensor::binary(BinaryOp::Pow, sum(powered, axes, keep), Array::scalar(t, 1.0 / ord.p), t, t);
    }
    return make_result(r);
  }
  if (axes.size() != 2) throw NkiError(ErrorKind::Value, "Improper number of dimensions to norm.");
  int row = axes[0], col = axes[1];
  if (row == col) throw NkiError(ErrorKind::Value, "Duplicate axes given.");
  Array r;
  if (ord.name == "nuc" || (ord.name.empty() && !ord.none && std::fabs(ord.p) == 2)) {
    std::vector<int> perm;
    for (int k = 0; k < x.ndim(); ++k)
      if (k != row && k != col) perm.push_back(k);
    perm.push_back(row), perm.push_back(col);
    Array moved = tensor::transpose(x, perm).contiguous();
    Array s = t == DType::Float32 ? singular_values<float>(moved, t) : singular_values<double>(moved, t);
    int last = s.ndim() - 1;
    r = ord.name == "nuc" ? sum(s, {last}, false) : tensor::reduce(ord.p > 0 ? ReduceOp::Max : ReduceOp::Min, s, {last}, false, t);
  } else if (ord.none || ord.name == "fro" || ord.name == "f") {
    r = tensor::unary(UnaryOp::Sqrt, sum(tensor::binary(BinaryOp::Mul, x, x, t, t), axes, false), t, t);
  } else if (ord.name.empty() && (std::fabs(ord.p) == 1 || std::isinf(ord.p))) {
    // 1: max over columns of the column sums; inf: max over rows of the row sums.
    int summed = std::fabs(ord.p) == 1 ? row : col, kept = std::fabs(ord.p) == 1 ? col : row;
    if (kept > summed) --kept;
    r = tensor::reduce(ord.p > 0 ? ReduceOp::Max : ReduceOp::Min, sum(abs(x), {summed}, false), {kept}, false, t);
  } else {
    throw NkiError(ErrorKind::Value, "Invalid norm order for matrices.");
  }
  if (keep) {
    r = tensor::expand_dims(r, std::min(row, col));
    r = tensor::expand_dims(r, std::max(row, col));
  }
  return make_result(r);
}

}  // namespace

ObjectPtr make_linalg_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("numpy.linalg");
  m->attrs["LinAlgError"] = Value(nki::detail::library_exception_class(in.state(), "LinAlgError", "Exception"));
  add_function(*m, "norm", {req("x"), opt("ord"), opt("axis"), opt("keepdims", Value::from_bool(false))}, norm);
  add_function(*m, "inv", {req("a")}, inv);
  add_function(*m, "solve", {req("a"), req("b")}, solve);
  add_function(*m, "det", {req("a")}, det);
  return m;
}

}  // namespace nki::lib::np
