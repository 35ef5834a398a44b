// Operations on arrays with numpy semantics (broadcasting, views, dtype rules applied by the
// caller through the explicit dtype arguments). Shape-only inputs give shape-only outputs.
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include "tensor/array.h"

namespace tensor {

// ---- indexing -------------------------------------------------------------------------------
struct Slice {
  std::optional<int64_t> start, stop, step;  // Python slice semantics, negative values wrap
};
struct NewAxis {};
struct EllipsisIndex {};
// An index item of a numpy subscript; an Array item must have an integer or bool dtype
// (advanced indexing: all array items broadcast together, numpy rules for their placement).
using IndexItem = std::variant<int64_t, Slice, NewAxis, EllipsisIndex, Array>;

// a[items]: a view for basic indexing, a copy (gather) when any item is an Array.
Array get_index(const Array& a, const std::vector<IndexItem>& items);
// a[items] = value: value is broadcast to the selected region and cast to a's dtype.
void set_index(Array& a, const std::vector<IndexItem>& items, const Array& value);

// ---- shape manipulation (views where numpy gives views) ----------------------------------------
Array reshape(const Array& a, Shape shape);  // one -1 allowed; view if contiguous, else copy
Array transpose(const Array& a, const std::vector<int>& perm);  // empty perm = reverse axes
Array swapaxes(const Array& a, int axis1, int axis2);
Array broadcast_to(const Array& a, const Shape& shape);  // stride-0 view
Array expand_dims(const Array& a, int axis);
Array squeeze(const Array& a, const std::vector<int>& axes);  // empty = all size-1 axes
Shape broadcast_shapes(const Shape& a, const Shape& b);      // throws ArrayError
Array concatenate(const std::vector<Array>& parts, int axis);
Array repeat(const Array& a, int64_t repeats, int axis);
Array astype(const Array& a, DType dtype);  // always a copy
void assign(Array& dst, const Array& src);   // dst[...] = src (broadcast + cast)
void fill(Array& dst, double value);

// ---- creation ---------------------------------------------------------------------------------
Array arange(double start, double stop, double step, DType dtype);
Array identity(int64_t n, DType dtype);

// ---- elementwise ------------------------------------------------------------------------------
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum,
  Eq, Ne, Lt, Le, Gt, Ge,
  BitAnd, BitOr, BitXor, LShift, RShift,
  LogicalAnd, LogicalOr, LogicalXor,
  Fmod,  // C fmod: the remainder takes the sign of the dividend (Mod: of the divisor, as Python's %)
};
// Broadcasts a and b, converts both to `compute` (float math in float32 when compute is a float32-
// held format, float64 for Float64, int64 for integers), applies op, and writes `out` dtype values
// (rounded to the format). Comparisons give 0/1.
Array binary(BinaryOp op, const Array& a, const Array& b, DType compute, DType out);
// dst += src in place, for float32 dst and float32-held src of dst's shape that do not overlap
// (PSUM accumulation of every matmul tile: no temporary, no copy). Returns false, touching
// nothing, when those conditions do not hold (the caller then uses binary + assign).
bool add_into_f32(Array& dst, const Array& src);

enum class UnaryOp : uint8_t {
  Copy, Neg, Abs, Sign, Square, Sqrt, Rsqrt, Reciprocal, Exp, Log, Sin, Cos, Tan, Tanh, Arctan,
  Sigmoid, Relu, Gelu, GeluDx, GeluApproxTanh, GeluApproxSigmoid, Silu, SiluDx, Softplus, Mish,
  Erf, ErfDx, Floor, Ceil, Trunc, LogicalNot, Invert,
  Log2, Log10, Log1p, Expm1,
  GeluApproxSigmoidDx,  // d/dx of x * sigmoid(1.702 x) (newer nl.gelu_apprx_sigmoid_dx)
};
Array unary(UnaryOp op, const Array& a, DType compute, DType out);

// numpy.where: cond (any dtype, non-zero = true), a and b broadcast together, values cast to out.
Array where(const Array& cond, const Array& a, const Array& b, DType out);

// ---- reductions -------------------------------------------------------------------------------
enum class ReduceOp : uint8_t { Sum, Prod, Max, Min, Mean, All, Any };
// Reduces over `axes` (empty = all). Sum/Mean on float32 use numpy's pairwise summation so that
// results match numpy; `out` is the result dtype.
Array reduce(ReduceOp op, const Array& a, const std::vector<int>& axes, bool keepdims, DType out);

// ---- linear algebra ---------------------------------------------------------------------------
// numpy.matmul: 1-d/2-d/batched with broadcast batch dims; float32 through BLAS sgemm,
// float64 through dgemm, integers by a plain loop. Result dtype = promote(a, b).
Array matmul(const Array& a, const Array& b);
// C = A^T B in float32 for 2-d A (K, M) and B (K, N), accumulated into `acc` (M, N) when given.
// The Tensor Engine primitive (nc_matmul): fp32 accumulation whatever the input formats.
void matmul_tn_accumulate(const Array& a, const Array& b, Array& acc, bool accumulate);
// BLAS threads for this process. The default is 1 (unless OPENBLAS_NUM_THREADS is set): the
// evaluation service runs one process per core.
void set_blas_threads(int threads);

// ---- comparison helpers -----------------------------------------------------------------------
// ||out - ref||_2 / ||ref||_2 computed in float64 (the check's metric); shapes must match.
double relative_l2(const Array& out, const Array& ref);
struct DiffStats {
  double max_abs = 0, mean_abs = 0, max_rel = 0, rel_l2 = 0;
};
DiffStats diff_stats(const Array& out, const Array& ref);

}  // namespace tensor
