// numpy sorting and searching as references and host code use them: sort, argsort (and the
// ndarray methods), unique, searchsorted, nonzero / flatnonzero / argwhere. numpy 1.24 semantics:
// NaN sorts last, argsort/unique/nonzero give int64 indices, sort keeps the dtype. Ties keep
// their original order (a stable sort; numpy's default quicksort is stable for the small arrays
// it sorts by insertion, and its order of ties in larger arrays is unspecified).
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

using tensor::Array;
using tensor::DType;

namespace {

// numpy's sort order: NaN after every number.
bool sorts_before(double a, double b) { return a < b || (!std::isnan(a) && std::isnan(b)); }

// Values and results need data: these functions' result shapes depend on the values.
void need_values(const Array& x, std::string_view what) {
  if (!x.has_data())
    throw NkiError(ErrorKind::Unsupported, fmt::format("np.{} needs array values (this array has only a shape)", what));
}

// `x` with `axis` moved last, as a contiguous float64 array (one row per sort).
Array rows_along(const Array& x, int axis) {
  std::vector<int> perm;
  for (int k = 0; k < x.ndim(); ++k)
    if (k != axis) perm.push_back(k);
  perm.push_back(axis);
  return tensor::astype(tensor::transpose(x, perm), DType::Float64).contiguous();
}

// The inverse of rows_along: rows (shape of x with axis last) back to x's layout.
Array from_rows(const Array& rows, int axis, DType dtype) {
  int nd = rows.ndim();
  std::vector<int> perm;
  for (int k = 0; k < nd; ++k) perm.push_back(k < axis ? k : k == axis ? nd - 1 : k - 1);
  return tensor::astype(tensor::transpose(rows, perm), dtype);
}

// Sorts (or argsorts) `x` along `axis` (None: the flattened array).
Array sort_array(Interpreter& in, Array x, const Value& axis_v, bool indices, std::string_view what) {
  if (axis_v.is_none()) x = tensor::reshape(x.contiguous(), {-1});
  if (x.ndim() == 0) {
    if (!axis_v.is_none()) throw NkiError(ErrorKind::Value, fmt::format("axis {} is out of bounds for array of dimension 0", axis_v.repr()));
    x = tensor::reshape(x, {1});
  }
  int axis = axis_v.is_none() ? 0 : normal_axis(to_int(axis_v, "axis"), x.ndim(), what);
  DType out = indices ? DType::Int64 : x.dtype();
  if (!x.has_data()) return Array::shape_only(x.shape(), out);
  Array rows = rows_along(x, axis);
  int64_t len = x.shape()[size_t(axis)];
  int64_t nrows = len ? rows.size() / len : 0;
  in.charge_steps(uint64_t(rows.size() / 16));
  std::vector<int64_t> order(static_cast<size_t>(len));
  std::vector<double> tmp(static_cast<size_t>(len));
  for (int64_t r = 0; r < nrows; ++r) {
    double* row = rows.f64() + r * len;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sorts_before(row[i], row[j]); });
    for (int64_t k = 0; k < len; ++k) tmp[size_t(k)] = indices ? double(order[size_t(k)]) : row[order[size_t(k)]];
    std::copy(tmp.begin(), tmp.end(), row);
  }
  return from_rows(rows, axis, out);
}

void check_sort_options(BoundArgs& a) {
  if (!a["order"].is_none()) throw NkiError(ErrorKind::Unsupported, "order= (structured arrays) is not supported");
}

// np.unique(ar, return_index, return_inverse, return_counts, axis=None, *, equal_nan=True).
Value unique(Interpreter& in, BoundArgs& a) {
  if (!a["axis"].is_none()) throw NkiError(ErrorKind::Unsupported, "np.unique: axis= is not supported");
  Array x = to_array(in, a["ar"]);
  need_values(x, "unique");
  Array flat = tensor::astype(tensor::reshape(x.contiguous(), {-1}), DType::Float64).contiguous();
  int64_t n = flat.size();
  const double* v = flat.f64();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sorts_before(v[i], v[j]); });
  std::vector<double> values, first, counts, inverse(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    double e = v[order[size_t(k)]];
    bool same = !values.empty() && (values.back() == e || (std::isnan(values.back()) && std::isnan(e)));
    if (!same) {
      values.push_back(e);
      first.push_back(double(order[size_t(k)]));
      counts.push_back(0);
    }
    counts.back() += 1;
    inverse[size_t(order[size_t(k)])] = double(values.size() - 1);
  }
  Value u = make_array(Array::from_values({int64_t(values.size())}, x.dtype(), values));
  std::vector<Value> parts{u};
  auto idx = [](const std::vector<double>& d) { return make_array(Array::from_values({int64_t(d.size())}, DType::Int64, d)); };
  if (a["return_index"].truthy()) parts.push_back(idx(first));
  if (a["return_inverse"].truthy()) parts.push_back(idx(inverse));
  if (a["return_counts"].truthy()) parts.push_back(idx(counts));
  return parts.size() == 1 ? u : make_tuple(std::move(parts));
}

// np.searchsorted(a, v, side='left', sorter=None): insertion points of v into the sorted 1-d a.
Value searchsorted(Interpreter& in, BoundArgs& a) {
  Array sorted = to_array(in, a["a"]);
  if (sorted.ndim() != 1) throw NkiError(ErrorKind::Value, "object too deep for desired array");
  Array keys = to_array(in, a["v"]);
  std::string side = "left";
  if (auto* s = a["side"].as<StrObj>()) side = s->s;
  if (side != "left" && side != "right")
    throw NkiError(ErrorKind::Value, fmt::format("side must be 'left' or 'right' (got '{}')", side));
  if (!sorted.has_data() || !keys.has_data()) return make_result(Array::shape_only(keys.shape(), DType::Int64));
  Array s = tensor::astype(sorted, DType::Float64).contiguous();
  if (!a["sorter"].is_none()) {
    Array order = tensor::astype(to_array(in, a["sorter"]), DType::Int64).contiguous();
    if (order.ndim() != 1 || order.size() != s.size()) throw NkiError(ErrorKind::Value, "sorter.size must equal a.size");
    tensor::IndexItem item = order;
    s = tensor::get_index(s, {item}).contiguous();
  }
  Array k = tensor::astype(keys, DType::Float64).contiguous();
  const double *sp = s.f64(), *end = sp + s.size();
  std::vector<double> pos(static_cast<size_t>(k.size()));
  for (int64_t i = 0; i < k.size(); ++i) {
    double key = k.f64()[i];
    const double* it = side == "left" ? std::lower_bound(sp, end, key, sorts_before)
                                      : std::upper_bound(sp, end, key, sorts_before);
    pos[size_t(i)] = double(it - sp);
  }
  return make_result(Array::from_values(keys.shape(), DType::Int64, pos));
}

// The multi-indices of the non-zero elements of x, C order: one vector per axis.
std::vector<std::vector<double>> nonzero_indices(const Array& x) {
  need_values(x, "nonzero");
  Array c = tensor::astype(x, DType::Float64).contiguous();
  std::vector<std::vector<double>> out(static_cast<size_t>(x.ndim()));
  std::vector<int64_t> idx(size_t(x.ndim()), 0);
  for (int64_t flat = 0; flat < c.size(); ++flat) {
    if (c.f64()[flat] != 0)
      for (size_t k = 0; k < idx.size(); ++k) out[k].push_back(double(idx[k]));
    for (int k = x.ndim() - 1; k >= 0; --k) {
      if (++idx[size_t(k)] < x.shape()[size_t(k)]) break;
      idx[size_t(k)] = 0;
    }
  }
  return out;
}

Value nonzero(Interpreter& in, const Array& x) {
  if (x.ndim() == 0)
    throw NkiError(ErrorKind::Value, "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.");
  std::vector<Value> parts;
  for (auto& axis : nonzero_indices(x))
    parts.push_back(make_array(Array::from_values({int64_t(axis.size())}, DType::Int64, axis)));
  return make_tuple(std::move(parts));
}

// np.argwhere(a): the non-zero multi-indices as rows, shape (count, ndim).
Value argwhere(Interpreter& in, const Array& x) {
  Array v = x.ndim() == 0 ? tensor::reshape(x, {1}) : x;
  auto axes = nonzero_indices(v);
  int64_t count = int64_t(axes[0].size()), nd = x.ndim();
  std::vector<double> rows;
  for (int64_t i = 0; i < count; ++i)
    for (int64_t k = 0; k < nd; ++k) rows.push_back(axes[size_t(k)][size_t(i)]);
  return make_array(Array::from_values({count, nd}, DType::Int64, rows));
}

}  // namespace

void add_sorting_functions(ModuleObj& m) {
  std::vector<Param> sort_params = {req("a"), opt("axis", Value::from_int(-1)), opt("kind"), opt("order")};
  add_function(m, "sort", sort_params, [](Interpreter& in, BoundArgs& a) {
    check_sort_options(a);
    return make_array(sort_array(in, to_array(in, a["a"]), a["axis"], false, "sort"));
  });
  add_function(m, "argsort", sort_params, [](Interpreter& in, BoundArgs& a) {
    check_sort_options(a);
    return make_array(sort_array(in, to_array(in, a["a"]), a["axis"], true, "argsort"));
  });
  add_function(m, "unique", {req("ar"), opt("return_index", Value::from_bool(false)),
                             opt("return_inverse", Value::from_bool(false)), opt("return_counts", Value::from_bool(false)),
                             opt("axis"), kwonly("equal_nan", Value::from_bool(true))},
               unique);
  add_function(m, "searchsorted", {req("a"), req("v"), opt("side", make_str("left")), opt("sorter")}, searchsorted);
  add_function(m, "nonzero", {req("a")}, [](Interpreter& in, BoundArgs& a) { return nonzero(in, to_array(in, a["a"])); });
  add_function(m, "flatnonzero", {req("a")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a"]);
    return nonzero(in, tensor::reshape(x.contiguous(), {-1})).as<TupleObj>()->items[0];
  });
  add_function(m, "argwhere", {req("a")}, [](Interpreter& in, BoundArgs& a) { return argwhere(in, to_array(in, a["a"])); });
}

Value sort_in_place(Interpreter& in, NdArrayObj& self, const Value& axis) {
  Array sorted = sort_array(in, self.array, axis, false, "sort");
  tensor::assign(self.array, sorted);
  return Value();
}

}  // namespace nki::lib::np
