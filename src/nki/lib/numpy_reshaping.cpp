// numpy functions that cut, pad, grid and contract arrays, as references and host code use
// them: split / array_split (views), pad (constant, edge, reflect, symmetric, wrap), diag,
// meshgrid (xy/ij, views), tensordot (a matmul of the reshaped operands, numpy's dtype).
#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

using tensor::Array;
using tensor::DType;

namespace {

// The part [start, stop) of x along axis (a view).
Array part_along(const Array& x, int axis, int64_t start, int64_t stop) {
  std::vector<tensor::IndexItem> items(size_t(axis), tensor::Slice{});
  items.push_back(tensor::Slice{start, stop, std::nullopt});
  return tensor::get_index(x, items);
}

// np.split / np.array_split(ary, indices_or_sections, axis=0): a list of views. An int N gives N
// parts (split: they must be equal; array_split: the first len % N parts are one longer); a list
// gives the cut points.
Value split(Interpreter& in, BoundArgs& a, bool equal) {
  Array x = to_array(in, a["ary"]);
  if (x.ndim() == 0) throw NkiError(ErrorKind::Value, "array split does not work on 0-d arrays");
  int axis = normal_axis(to_int(a["axis"], "axis"), x.ndim(), equal ? "split" : "array_split");
  int64_t len = x.shape()[size_t(axis)];
  std::vector<int64_t> cuts;
  const Value& how = a["indices_or_sections"];
  if (how.is_int() || how.as<NdArrayObj>() && how.as<NdArrayObj>()->array.ndim() == 0) {
    int64_t n = to_int(how, "indices_or_sections");
    if (n <= 0) throw NkiError(ErrorKind::Value, "number sections must be larger than 0.");
    if (equal && len % n != 0) throw NkiError(ErrorKind::Value, "array split does not result in an equal division");
    int64_t each = len / n, extra = len % n, at = 0;
    for (int64_t k = 1; k < n; ++k) cuts.push_back(at += each + (k <= extra ? 1 : 0));
  } else {
    cuts = to_int_list(how, "indices_or_sections");
  }
  std::vector<Value> parts;
  int64_t start = 0;
  cuts.push_back(len);
  for (int64_t stop : cuts) {
    parts.push_back(make_array(part_along(x, axis, start, stop)));
    start = stop;
  }
  return make_list(std::move(parts));
}

// A pad_width or constant_values argument as (before, after) per axis: numpy broadcasts a
// scalar, a pair, or a sequence of pairs.
std::vector<std::pair<double, double>> per_axis_pairs(Interpreter& in, const Value& v, int ndim, std::string_view what) {
  Array arr = tensor::astype(to_array(in, v), DType::Float64);
  if (arr.ndim() > 2) throw NkiError(ErrorKind::Value, fmt::format("{}: too many dimensions", what));
  Array b;
  try {
    b = tensor::broadcast_to(arr, {int64_t(ndim), 2}).contiguous();
  } catch (const std::exception&) {
    throw NkiError(ErrorKind::Value, fmt::format("operands could not be broadcast together with remapped shapes ({})", what));
  }
  std::vector<std::pair<double, double>> out;
  for (int k = 0; k < ndim; ++k) out.push_back({b.f64()[2 * k], b.f64()[2 * k + 1]});
  return out;
}

// The source index along an axis of length n for output position j in [-before, n + after),
// numpy's modes; -1 for the constant mode's fill.
int64_t pad_source(int64_t j, int64_t n, const std::string& mode) {
  if (j >= 0 && j < n) return j;
  if (mode == "constant") return -1;
  if (mode == "edge") return j < 0 ? 0 : n - 1;
  // reflect (edge not repeated, period 2n-2) and symmetric (edge repeated, period 2n).
  bool symmetric = mode == "symmetric";
  int64_t period = symmetric ? 2 * n : 2 * n - 2;
  if (period <= 0) return 0;
  int64_t m = ((j % period) + period) % period;
  if (m < n) return m;
  return symmetric ? period - 1 - m : period - m;
}

// The source index of every output position along an axis of length n padded by (before, after)
// in 'wrap' mode, as numpy 1.24 fills it (numpy/lib/arraypad.py, _set_wrap_both): in rounds, each
// side copying the chunk of the area filled so far that lies next to the other side; a round's
// period is that area's length, so a pad wider than the array is not periodic in n (the two
// columns left of a 3-column array padded by 5 repeat columns 0, 1, not 1, 2).
std::vector<int64_t> wrap_sources(int64_t n, int64_t before, int64_t after) {
  int64_t m = n + before + after;
  std::vector<int64_t> src(size_t(m), 0);
  for (int64_t j = 0; j < n; ++j) src[size_t(before + j)] = j;
  int64_t left = before, right = after;
  while (left > 0 || right > 0) {
    int64_t period = m - right - left, new_left = 0, new_right = 0;
    if (left > 0) {
      int64_t len = std::min(period, left), from = m - right - len, to = left > period ? left - period : 0;
      for (int64_t i = 0; i < len; ++i) src[size_t(to + i)] = src[size_t(from + i)];
      if (left > period) new_left = left - period;
    }
    if (right > 0) {
      int64_t len = std::min(period, right), from = left, to = m - right;
      for (int64_t i = 0; i < len; ++i) src[size_t(to + i)] = src[size_t(from + i)];
      if (right > period) new_right = right - period;
    }
    left = new_left, right = new_right;
  }
  return src;
}

// np.pad(array, pad_width, mode='constant', constant_values=0), one axis at a time.
Value pad(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["array"]);
  std::string mode = "constant";
  if (!a["mode"].is_none()) {
    auto* s = a["mode"].as<StrObj>();
    if (!s) throw NkiError(ErrorKind::Unsupported, "np.pad: a function as mode is not supported");
    mode = s->s;
  }
  if (mode != "constant" && mode != "edge" && mode != "wrap" && mode != "reflect" && mode != "symmetric")
    throw NkiError(ErrorKind::Unsupported, fmt::format("np.pad: mode '{}' is not supported (constant, edge, wrap, reflect, symmetric are)", mode));
  auto widths = per_axis_pairs(in, a["pad_width"], x.ndim(), "pad_width");
  auto fills = per_axis_pairs(in, a["constant_values"], x.ndim(), "constant_values");
  Array cur = tensor::astype(x, DType::Float64).contiguous();
  for (int axis = 0; axis < x.ndim(); ++axis) {
    int64_t before = int64_t(widths[size_t(axis)].first), after = int64_t(widths[size_t(axis)].second);
    if (before < 0 || after < 0) throw NkiError(ErrorKind::Value, "index can't contain negative values");
    int64_t n = cur.shape()[size_t(axis)];
    if (n == 0 && mode != "constant" && before + after > 0)
      throw NkiError(ErrorKind::Value, fmt::format("can't extend empty axis {} using modes other than 'constant' or 'empty'", axis));
    tensor::Shape shape = cur.shape();
    shape[size_t(axis)] = n + before + after;
    if (!cur.has_data()) {
      cur = Array::shape_only(shape, DType::Float64);
      continue;
    }
    int64_t inner = 1;
    for (size_t k = size_t(axis) + 1; k < shape.size(); ++k) inner *= shape[k];
    int64_t outer = 1;
    for (int k = 0; k < axis; ++k) outer *= shape[size_t(k)];
    Array next = Array::zeros(shape, DType::Float64);
    int64_t m = shape[size_t(axis)];
    std::vector<int64_t> wrapped = mode == "wrap" ? wrap_sources(n, before, after) : std::vector<int64_t>{};
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < m; ++j) {
        int64_t src = mode == "wrap" ? wrapped[size_t(j)] : pad_source(j - before, n, mode);
        double fill = j < before ? fills[size_t(axis)].first : fills[size_t(axis)].second;
        for (int64_t i = 0; i < inner; ++i)
          next.f64()[(o * m + j) * inner + i] = src < 0 ? fill : cur.f64()[(o * n + src) * inner + i];
      }
    cur = next;
  }
  return make_array(tensor::astype(cur, x.dtype()));
}

// np.diag(v, k=0): a 1-d v gives the square matrix with v on diagonal k; a 2-d v gives its
// diagonal k (a copy here; numpy returns a read-only view).
Value diag(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["v"]);
  int64_t k = to_int(a["k"], "k");
  if (x.ndim() == 1) {
    int64_t n = x.size() + (k < 0 ? -k : k);
    if (!x.has_data()) return make_array(Array::shape_only({n, n}, x.dtype()));
    Array v = tensor::astype(x, DType::Float64).contiguous();
    Array r = Array::zeros({n, n}, DType::Float64);
    for (int64_t i = 0; i < x.size(); ++i) r.f64()[(k >= 0 ? i : i - k) * n + (k >= 0 ? i + k : i)] = v.f64()[i];
    return make_array(tensor::astype(r, x.dtype()));
  }
  if (x.ndim() != 2) throw NkiError(ErrorKind::Value, "Input must be 1- or 2-d.");
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  int64_t r0 = k >= 0 ? 0 : -k, c0 = k >= 0 ? k : 0;
  int64_t len = std::max<int64_t>(0, std::min(rows - r0, cols - c0));
  if (!x.has_data()) return make_array(Array::shape_only({len}, x.dtype()));
  Array v = tensor::astype(x, DType::Float64).contiguous();
  std::vector<double> d(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) d[size_t(i)] = v.f64()[(r0 + i) * cols + c0 + i];
  return make_array(Array::from_values({len}, x.dtype(), d));
}

// np.meshgrid(*xi, indexing='xy', sparse=False, copy=True): coordinate arrays; 'xy' swaps the
// first two output axes (Cartesian), 'ij' does not (matrix).
Value meshgrid(Interpreter& in, BoundArgs& a) {
  std::string indexing = "xy";
  if (auto* s = a["indexing"].as<StrObj>()) indexing = s->s;
  if (indexing != "xy" && indexing != "ij") throw NkiError(ErrorKind::Value, "Valid values for `indexing` are 'xy' and 'ij'.");
  bool sparse = a["sparse"].truthy();
  std::vector<Array> xs;
  for (const Value& v : a.rest) xs.push_back(tensor::reshape(to_array(in, v).contiguous(), {-1}));
  size_t nd = xs.size();
  tensor::Shape full;
  for (const Array& x : xs) full.push_back(x.size());
  if (indexing == "xy" && nd > 1) std::swap(full[0], full[1]);
  std::vector<Value> out;
  for (size_t i = 0; i < nd; ++i) {
    size_t at = indexing == "xy" && nd > 1 && i < 2 ? 1 - i : i;
    tensor::Shape shape(nd, 1);
    shape[at] = xs[i].size();
    Array g = tensor::reshape(xs[i], shape);
    out.push_back(make_array(sparse ? g : tensor::broadcast_to(g, full).contiguous()));
  }
  return make_list(std::move(out));
}

// np.tensordot(a, b, axes=2): sums over the last N axes of a and the first N of b (axes=N), or
// over the listed pairs (axes=([a axes], [b axes])); numpy computes it as one matrix product.
Value tensordot(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["a"]), y = to_array(in, a["b"]);
  std::vector<int64_t> ax, bx;
  const Value& axes = a["axes"];
  if (axes.is_int()) {
    int64_t n = axes.as_int();
    if (n < 0 || n > x.ndim() || n > y.ndim()) throw NkiError(ErrorKind::Value, "shape-mismatch for sum");
    for (int64_t k = 0; k < n; ++k) {
      ax.push_back(x.ndim() - n + k);
      bx.push_back(k);
    }
  } else {
    Value first = in.get_item(axes, Value::from_int(0)), second = in.get_item(axes, Value::from_int(1));
    ax = to_int_list(first, "axes");
    bx = to_int_list(second, "axes");
    if (ax.size() != bx.size()) throw NkiError(ErrorKind::Value, "shape-mismatch for sum");
  }
  std::vector<bool> a_summed(static_cast<size_t>(x.ndim())), b_summed(static_cast<size_t>(y.ndim()));
  int64_t inner = 1;
  for (size_t k = 0; k < ax.size(); ++k) {
    int ia = normal_axis(ax[k], x.ndim(), "tensordot"), ib = normal_axis(bx[k], y.ndim(), "tensordot");
    if (x.shape()[size_t(ia)] != y.shape()[size_t(ib)]) throw NkiError(ErrorKind::Value, "shape-mismatch for sum");
    ax[k] = ia, bx[k] = ib;
    a_summed[size_t(ia)] = b_summed[size_t(ib)] = true;
    inner *= x.shape()[size_t(ia)];
  }
  std::vector<int> pa, pb;
  tensor::Shape out_shape;
  int64_t rows = 1, cols = 1;
  for (int k = 0; k < x.ndim(); ++k)
    if (!a_summed[size_t(k)]) pa.push_back(k), out_shape.push_back(x.shape()[size_t(k)]), rows *= x.shape()[size_t(k)];
  for (int64_t k : ax) pa.push_back(int(k));
  for (int64_t k : bx) pb.push_back(int(k));
  for (int k = 0; k < y.ndim(); ++k)
    if (!b_summed[size_t(k)]) pb.push_back(k), out_shape.push_back(y.shape()[size_t(k)]), cols *= y.shape()[size_t(k)];
  Array a2 = tensor::reshape(tensor::transpose(x, pa).contiguous(), {rows, inner});
  Array b2 = tensor::reshape(tensor::transpose(y, pb).contiguous(), {inner, cols});
  Value prod = matmul_values(in, make_array(a2), make_array(b2));
  Array r = to_array(in, prod);
  return make_result(tensor::reshape(r.contiguous(), out_shape));
}

}  // namespace

void add_reshaping_functions(ModuleObj& m) {
  add_function(m, "split", {req("ary"), req("indices_or_sections"), opt("axis", Value::from_int(0))},
               [](Interpreter& in, BoundArgs& a) { return split(in, a, true); });
  add_function(m, "array_split", {req("ary"), req("indices_or_sections"), opt("axis", Value::from_int(0))},
               [](Interpreter& in, BoundArgs& a) { return split(in, a, false); });
  add_function(m, "pad", {req("array"), req("pad_width"), opt("mode", make_str("constant")),
                          kwonly("constant_values", Value::from_int(0))},
               pad);
  add_function(m, "diag", {req("v"), opt("k", Value::from_int(0))}, diag);
  add_function(m, "meshgrid", {kwonly("copy", Value::from_bool(true)), kwonly("sparse", Value::from_bool(false)),
                               kwonly("indexing", make_str("xy"))},
               meshgrid, true);
  add_function(m, "tensordot", {req("a"), req("b"), opt("axes", Value::from_int(2))}, tensordot);
  // np.append(arr, values, axis=None): both flattened and joined, or concatenated along axis.
  add_function(m, "append", {req("arr"), req("values"), opt("axis")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["arr"]), y = to_array(in, a["values"]);
    DType t = result_type({x, y});
    if (a["axis"].is_none()) {
      x = tensor::reshape(x.contiguous(), {-1});
      y = tensor::reshape(y.contiguous(), {-1});
      return make_array(tensor::concatenate({tensor::astype(x, t), tensor::astype(y, t)}, 0));
    }
    int axis = normal_axis(to_int(a["axis"], "axis"), x.ndim(), "append");
    return make_array(tensor::concatenate({tensor::astype(x, t), tensor::astype(y, t)}, axis));
  });
}

}  // namespace nki::lib::np
