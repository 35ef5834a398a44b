#include "eval/compare.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "tensor/ops.h"

namespace eval {
namespace {

// Running sums of one output pair. Four interleaved lanes break the floating-point add chains
// (one dependent add per element made the check the slowest step of a full-size task: bmm
// compares 268M elements per seed).
struct DiffSums {
  double diff_sq[4] = {}, ref_sq[4] = {}, abs_sum[4] = {};
  double max_abs = 0, max_rel = 0;
};

template <class O, class R>
inline void accumulate(DiffSums& s, int lane, O out_value, R ref_value) {
  double r = static_cast<double>(ref_value);
  double diff = static_cast<double>(out_value) - r;
  double ad = std::fabs(diff);
  if (diff != diff) ad = INFINITY;  // NaN anywhere must fail the check
  s.diff_sq[lane] += diff * diff;
  s.ref_sq[lane] += r * r;
  s.abs_sum[lane] += ad;
  if (ad > s.max_abs) s.max_abs = ad;
  if (r != 0) {
    double rel = ad / std::fabs(r);
    if (rel > s.max_rel) s.max_rel = rel;
  }
}

// Both arrays C-contiguous with storages O and R (kernel outputs are float32, references may be
// float64): one tight loop, no per-element dispatch on the storage.
template <class O, class R>
DiffSums diff_loop(const O* out, const R* ref, size_t n) {
  DiffSums s;
  size_t idx = 0;
  for (; idx + 4 <= n; idx += 4) {
    accumulate(s, 0, out[idx], ref[idx]);
    accumulate(s, 1, out[idx + 1], ref[idx + 1]);
    accumulate(s, 2, out[idx + 2], ref[idx + 2]);
    accumulate(s, 3, out[idx + 3], ref[idx + 3]);
  }
  for (; idx < n; ++idx) accumulate(s, 0, out[idx], ref[idx]);
  return s;
}

template <class O>
DiffSums diff_with_ref(const O* out, const tensor::Array& ref, size_t n) {
  switch (tensor::storage_of(ref.dtype())) {
    case tensor::Storage::F32: return diff_loop(out, ref.f32(), n);
    case tensor::Storage::F64: return diff_loop(out, ref.f64(), n);
    case tensor::Storage::I64: return diff_loop(out, ref.i64(), n);
  }
  return {};
}

// Where an output holds NaN: the count and the bounding box of their indices.
struct NanRegion {
  int64_t count = 0;
  std::vector<int64_t> lo, hi;
};

template <class T>
NanRegion nan_region(const T* v, int64_t n, const tensor::Shape& shape) {
  NanRegion r;
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    if (std::isnan(double(v[flat]))) {
      if (r.count++ == 0) r.lo = r.hi = index;
      for (size_t k = 0; k < rank; ++k) {
        r.lo[k] = std::min(r.lo[k], index[k]);
        r.hi[k] = std::max(r.hi[k], index[k]);
      }
    }
    for (size_t k = rank; k-- > 0;) {  // the next index in C order
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return r;
}

// "output 0: 1024 of 4096 elements are NaN, all within [0:128, 3072:4096] ...": an HBM output
// starts as NaN (language_creation.cpp: device memory is not zeroed), so a box of NaN is usually
// a region the kernel never stored; "" when the output has no NaN.
std::string describe_nans(size_t which, const tensor::Array& out_in) {
  tensor::Array out = out_in.contiguous();
  NanRegion r;
  switch (tensor::storage_of(out.dtype())) {
    case tensor::Storage::F32: r = nan_region(out.f32(), out.size(), out.shape()); break;
    case tensor::Storage::F64: r = nan_region(out.f64(), out.size(), out.shape()); break;
    case tensor::Storage::I64: return "";
  }
  if (r.count == 0) return "";
  std::string box;
  for (size_t k = 0; k < r.lo.size(); ++k) box += fmt::format("{}{}:{}", k ? ", " : "", r.lo[k], r.hi[k] + 1);
  return fmt::format("output {}: {} of {} elements are NaN, all within [{}] (an output starts as NaN, as device "
                     "memory is not zeroed: did the kernel store every element?)",
                     which, r.count, out.size(), box);
}

}  // namespace

OutputDiff diff_outputs(const tensor::Array& out_in, const tensor::Array& ref_in) {
  tensor::Array out = out_in.contiguous(), ref = ref_in.contiguous();
  size_t n = size_t(out.size());
  DiffSums s;
  switch (tensor::storage_of(out.dtype())) {
    case tensor::Storage::F32: s = diff_with_ref(out.f32(), ref, n); break;
    case tensor::Storage::F64: s = diff_with_ref(out.f64(), ref, n); break;
    case tensor::Storage::I64: s = diff_with_ref(out.i64(), ref, n); break;
  }
  OutputDiff d;
  double diff_sq = (s.diff_sq[0] + s.diff_sq[1]) + (s.diff_sq[2] + s.diff_sq[3]);
  double ref_sq = (s.ref_sq[0] + s.ref_sq[1]) + (s.ref_sq[2] + s.ref_sq[3]);
  double abs_sum = (s.abs_sum[0] + s.abs_sum[1]) + (s.abs_sum[2] + s.abs_sum[3]);
  d.max_abs_diff = s.max_abs;
  d.max_rel_diff = s.max_rel;
  d.mean_abs_diff = n == 0 ? 0 : abs_sum / double(n);
  double norm = std::sqrt(diff_sq);
  d.rel_l2 = ref_sq > 0 ? norm / std::sqrt(ref_sq) : norm;
  if (std::isnan(d.rel_l2)) d.rel_l2 = INFINITY;
  return d;
}

Comparison compare_outputs(const std::vector<tensor::Array>& outs, const std::vector<tensor::Array>& refs,
                           double tolerance) {
  Comparison c;
  if (outs.size() != refs.size()) {
    c.problem = fmt::format("kernel returned {} output(s), reference has {}", outs.size(), refs.size());
    return c;
  }
  c.correct = true;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (tensor::is_float(outs[i].dtype()) != tensor::is_float(refs[i].dtype())) {
      c.correct = false;
      c.problem = fmt::format("output {} has dtype {}, the reference's is {}", i, tensor::name(outs[i].dtype()),
                              tensor::name(refs[i].dtype()));
      return c;
    }
    if (outs[i].shape() != refs[i].shape()) {
      c.correct = false;
      c.problem = fmt::format("output {} has shape {}, reference shape is {}", i, tensor::shape_str(outs[i].shape()),
                              tensor::shape_str(refs[i].shape()));
      return c;
    }
    OutputDiff d = diff_outputs(outs[i], refs[i]);
    if (i == 0 || d.rel_l2 > c.worst.rel_l2) c.worst = d;
    if (!(d.rel_l2 < tolerance)) c.correct = false;
    if (std::isinf(d.rel_l2) && c.nan_note.empty()) c.nan_note = describe_nans(i, outs[i]);
  }
  return c;
}

}  // namespace eval
