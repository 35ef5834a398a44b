// The correctness check's metrics, always computed in float64.
#include <cmath>

#include <fmt/format.h>

#include "tensor/detail.h"
#include "tensor/ops.h"

namespace tensor {

namespace {

void require_comparable(const Array& out, const Array& ref) {
  if (out.shape() != ref.shape())
    throw ArrayError(fmt::format("shape mismatch: output {} vs reference {}", shape_str(out.shape()), shape_str(ref.shape())));
  if (!out.has_data() || !ref.has_data()) throw ArrayError("cannot compare shape-only arrays");
}

// Visits (out, ref) element pairs as doubles.
template <class F>
void for_each_pair(const Array& out_in, const Array& ref_in, F&& f) {
  Array out = detail::to_storage(out_in, Storage::F64), ref = detail::to_storage(ref_in, Storage::F64);
  const double* po = out.f64();
  const double* pr = ref.f64();
  auto plan = detail::plan_loop<2>(out.shape(), {out.strides().data(), ref.strides().data()});
  detail::run_loop<2>(plan, {0, 0}, [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
    for (int64_t idx = 0; idx < n; ++idx) f(po[off[0] + idx * st[0]], pr[off[1] + idx * st[1]]);
  });
}

}  // namespace

double relative_l2(const Array& out, const Array& ref) {
  require_comparable(out, ref);
  double diff2 = 0, ref2 = 0;
  for_each_pair(out, ref, [&](double o, double r) {
    double d = o - r;
    diff2 += d * d;
    ref2 += r * r;
  });
  if (ref2 == 0) return diff2 == 0 ? 0.0 : INFINITY;
  return std::sqrt(diff2) / std::sqrt(ref2);
}

DiffStats diff_stats(const Array& out, const Array& ref) {
  require_comparable(out, ref);
  DiffStats stats;
  double sum_abs = 0, diff2 = 0, ref2 = 0;
  for_each_pair(out, ref, [&](double o, double r) {
    double d = std::fabs(o - r);
    if (!(d <= stats.max_abs)) stats.max_abs = d;  // NaN propagates
    sum_abs += d;
    double rel = r != 0 ? d / std::fabs(r) : (d == 0 ? 0.0 : INFINITY);
    if (!(rel <= stats.max_rel)) stats.max_rel = rel;
    diff2 += d * d;
    ref2 += r * r;
  });
  int64_t n = out.size();
  stats.mean_abs = n ? sum_abs / static_cast<double>(n) : 0.0;
  stats.rel_l2 = ref2 == 0 ? (diff2 == 0 ? 0.0 : INFINITY) : std::sqrt(diff2) / std::sqrt(ref2);
  return stats;
}

}  // namespace tensor
