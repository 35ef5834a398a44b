// More numpy functions that references by other authors use: var/std, cumsum/cumprod,
// argmax/argmin, round, tile, hstack/vstack, flip, outer, take, take_along_axis, moveaxis, arctan2,
// finfo/iinfo. Each follows numpy 1.24's result dtypes; the ndarray methods of the same names
// call these (numpy_ndarray_methods.cpp).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

using tensor::Array;
using tensor::BinaryOp;
using tensor::DType;
using tensor::ReduceOp;

namespace {

// The float dtype numpy computes a statistic of `x` in (integers and bools: float64).
DType stat_dtype(const Array& x) { return tensor::is_float(x.dtype()) ? x.dtype() : DType::Float64; }

// np.var / np.std(a, axis=None, dtype=None, ddof=0, keepdims=False): mean of squared deviations
// from the mean, in the input's float dtype, divided by n - ddof.
Value variance(Interpreter& in, BoundArgs& a, bool root) {
  Array x = to_array(in, a["a"]);
  DType t = to_dtype(a["dtype"], "dtype").value_or(stat_dtype(x));
  std::vector<int> axes = axes_arg(a["axis"]);
  bool keep = a["keepdims"].truthy();
  Array mean = tensor::reduce(ReduceOp::Mean, x, axes, true, t);
  Array dev = tensor::binary(BinaryOp::Sub, x, mean, t, t);
  Array sq = tensor::binary(BinaryOp::Mul, dev, dev, t, t);
  Array var = tensor::reduce(ReduceOp::Sum, sq, axes, keep, t);
  int64_t n = axes.empty() ? x.size() : 1;
  for (int ax : axes) n *= x.shape()[size_t(normal_axis(ax, x.ndim(), "var"))];
  double ddof = to_float(a["ddof"], "ddof");
  var = tensor::binary(BinaryOp::Div, var, Array::scalar(DType::Float64, double(n) - ddof), t, t);
  if (root) var = tensor::unary(tensor::UnaryOp::Sqrt, var, t, t);
  return make_result(var);
}

// np.cumsum / np.cumprod(a, axis=None, dtype=None): running sum/product along one axis (the
// flattened array when axis is None), in the input dtype (integers of < 64 bits: int64).
Value cumulative(Interpreter& in, BoundArgs& a, bool product) {
  Array x = to_array(in, a["a"]);
  if (a["axis"].is_none()) x = tensor::reshape(x, {-1});
  int axis = a["axis"].is_none() ? 0 : normal_axis(to_int(a["axis"], "axis"), x.ndim(), product ? "cumprod" : "cumsum");
  DType dflt = tensor::is_float(x.dtype()) ? x.dtype() : tensor::is_signed(x.dtype()) || x.dtype() == DType::Bool ? DType::Int64 : DType::UInt64;
  DType out = to_dtype(a["dtype"], "dtype").value_or(dflt);
  Array src = tensor::astype(x, tensor::is_float(out) ? DType::Float64 : DType::Int64).contiguous();
  Array r = Array::zeros(x.shape(), src.dtype());
  int64_t len = x.ndim() ? x.shape()[size_t(axis)] : 1, inner = 1;
  for (int k = axis + 1; k < x.ndim(); ++k) inner *= x.shape()[size_t(k)];
  int64_t outer = len ? x.size() / (len * inner) : 0;
  in.charge_steps(uint64_t(x.size() / 64));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      if (src.dtype() == DType::Float64) {
        // Accumulate in the result dtype, rounding after every step as numpy does.
        double acc = product ? 1.0 : 0.0;
        for (int64_t j = 0; j < len; ++j) {
          double v = src.f64()[base + j * inner];
          acc = tensor::cast_scalar(out, product ? acc * v : acc + v);
          r.f64()[base + j * inner] = acc;
        }
      } else {
        int64_t acc = product ? 1 : 0;
        for (int64_t j = 0; j < len; ++j) {
          int64_t v = src.i64()[base + j * inner];
          acc = product ? int64_t(uint64_t(acc) * uint64_t(v)) : int64_t(uint64_t(acc) + uint64_t(v));
          r.i64()[base + j * inner] = acc;
        }
      }
    }
  return make_array(tensor::astype(r, out));
}

// np.argmax / np.argmin(a, axis=None, keepdims=False): index of the first extreme (NaN wins).
Value arg_extreme(Interpreter& in, BoundArgs& a, bool is_max) {
  Array x = to_array(in, a["a"]);
  bool flat = a["axis"].is_none();
  if (flat) x = tensor::reshape(x, {-1});
  int axis = flat ? 0 : normal_axis(to_int(a["axis"], "axis"), x.ndim(), is_max ? "argmax" : "argmin");
  if (x.ndim() && x.shape()[size_t(axis)] == 0)
    throw NkiError(ErrorKind::Value, fmt::format("attempt to get {} of an empty sequence", is_max ? "argmax" : "argmin"));
  Array src = tensor::astype(x, DType::Float64).contiguous();
  tensor::Shape out_shape = x.shape();
  int64_t len = x.ndim() ? x.shape()[size_t(axis)] : 1, inner = 1;
  for (int k = axis + 1; k < x.ndim(); ++k) inner *= x.shape()[size_t(k)];
  if (x.ndim()) out_shape.erase(out_shape.begin() + axis);
  int64_t outer = len ? x.size() / (len * inner) : 0;
  std::vector<double> idx(size_t(outer * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const double* p = src.f64() + o * len * inner + i;
      int64_t best = 0;
      for (int64_t j = 1; j < len && !std::isnan(p[best * inner]); ++j) {
        double v = p[j * inner], b = p[best * inner];
        if (std::isnan(v) || (is_max ? v > b : v < b)) best = j;
      }
      idx[size_t(o * inner + i)] = double(best);
    }
  Array r = Array::from_values(out_shape, DType::Int64, idx);
  if (a["keepdims"].truthy()) r = flat ? tensor::reshape(r, tensor::Shape(size_t(to_array(in, a["a"]).ndim()), 1))
                                       : tensor::expand_dims(r, axis);
  return make_result(r);
}

// np.round / np.around(a, decimals=0): round half to even at 10^-decimals, in the input dtype.
Value round_values(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["a"]);
  int64_t decimals = to_int(a["decimals"], "decimals");
  if (!tensor::is_float(x.dtype()) && decimals >= 0) return make_result(x.copy());
  Array d = tensor::astype(x, DType::Float64).contiguous();
  double scale = std::pow(10.0, double(decimals));
  for (int64_t i = 0; i < d.size(); ++i) d.f64()[i] = std::nearbyint(d.f64()[i] * scale) / scale;
  return make_result(tensor::astype(d, x.dtype()));
}

// np.tile(a, reps): the array repeated along each axis (reps padded as numpy pads).
Value tile_values(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["A"]);
  std::vector<int64_t> reps = to_int_list(a["reps"], "reps");
  int nd = std::max<int>(x.ndim(), int(reps.size()));
  tensor::Shape shape(size_t(nd - x.ndim()), 1);
  for (int64_t s : x.shape()) shape.push_back(s);
  reps.insert(reps.begin(), size_t(nd) - reps.size(), 1);
  Array r = tensor::reshape(x.contiguous(), shape);
  for (int k = 0; k < nd; ++k) {
    std::vector<Array> parts(size_t(std::max<int64_t>(reps[size_t(k)], 0)), r);
    if (parts.empty()) {
      tensor::Shape empty = r.shape();
      empty[size_t(k)] = 0;
      r = Array::zeros(empty, r.dtype());
    } else {
      r = tensor::concatenate(parts, k);
    }
  }
  return make_array(r);
}

// np.hstack / np.vstack(tup): concatenation along axis 1 (0 for 1-d arrays) / axis 0 (1-d
// arrays become rows).
Value stack_values(Interpreter& in, BoundArgs& a, bool vertical) {
  std::vector<Array> parts = array_list(in, a["tup"], vertical ? "vstack" : "hstack");
  if (parts.empty()) throw NkiError(ErrorKind::Value, "need at least one array to concatenate");
  if (vertical) {
    for (Array& p : parts)
      if (p.ndim() < 2) p = tensor::reshape(p.contiguous(), {1, p.size()});
    return make_array(tensor::concatenate(parts, 0));
  }
  return make_array(tensor::concatenate(parts, parts[0].ndim() == 1 ? 0 : 1));
}

// np.flip(m, axis=None): reversed along the axes (all when None), a copy.
Value flip_values(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["m"]);
  std::vector<bool> reversed(size_t(x.ndim()), a["axis"].is_none());
  for (int ax : axes_arg(a["axis"])) reversed[size_t(normal_axis(ax, x.ndim(), "flip"))] = true;
  Array src = tensor::astype(x, DType::Float64).contiguous();
  std::vector<double> vals(size_t(src.size()));
  std::vector<int64_t> idx(size_t(x.ndim()), 0);
  for (int64_t flat = 0; flat < src.size(); ++flat) {
    int64_t from = 0;
    for (int k = 0; k < x.ndim(); ++k) {
      int64_t n = x.shape()[size_t(k)];
      from = from * n + (reversed[size_t(k)] ? n - 1 - idx[size_t(k)] : idx[size_t(k)]);
    }
    vals[size_t(flat)] = src.f64()[from];
    for (int k = x.ndim() - 1; k >= 0; --k) {
      if (++idx[size_t(k)] < x.shape()[size_t(k)]) break;
      idx[size_t(k)] = 0;
    }
  }
  return make_array(Array::from_values(x.shape(), x.dtype(), vals));
}

// An index along `axis` of length `len` as numpy reads it: negative counts from the end, outside
// [-len, len) is an IndexError.
int64_t index_on_axis(int64_t k, int axis, int64_t len) {
  if (k < -len || k >= len)
    throw NkiError(ErrorKind::Index, fmt::format("index {} is out of bounds for axis {} with size {}", k, axis, len));
  return k < 0 ? k + len : k;
}

// np.take_along_axis(arr, indices, axis): arr's elements at `indices` along `axis`.
Value take_along_axis(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["arr"]), idx = to_array(in, a["indices"]);
  if (!tensor::is_integer(idx.dtype())) throw NkiError(ErrorKind::Type, "`indices` must be an integer array");
  if (idx.ndim() != x.ndim())
    throw NkiError(ErrorKind::Value, "`indices` and `arr` must have the same number of dimensions");
  int axis = normal_axis(to_int(a["axis"], "axis"), x.ndim(), "take_along_axis");
  tensor::Shape shape = x.shape();
  shape[size_t(axis)] = idx.shape()[size_t(axis)];
  shape = tensor::broadcast_shapes(shape, idx.shape());
  tensor::Shape src_shape = shape;
  src_shape[size_t(axis)] = x.shape()[size_t(axis)];
  Array src = tensor::astype(tensor::broadcast_to(x, src_shape), DType::Float64).contiguous();
  Array ix = tensor::astype(tensor::broadcast_to(idx, shape), DType::Int64).contiguous();
  int64_t len = shape[size_t(axis)], srclen = src_shape[size_t(axis)], inner = 1;
  for (size_t k = size_t(axis) + 1; k < shape.size(); ++k) inner *= shape[k];
  int64_t outer = len * inner != 0 ? ix.size() / (len * inner) : 0;
  std::vector<double> vals(size_t(ix.size()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < len; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t k = index_on_axis(ix.i64()[(o * len + j) * inner + i], axis, srclen);
        vals[size_t((o * len + j) * inner + i)] = src.f64()[(o * srclen + k) * inner + i];
      }
  return make_array(Array::from_values(shape, x.dtype(), vals));
}

// np.take(a, indices, axis=None): the elements (axis None: of the flattened array) or the slices
// along `axis` at `indices`, in the shape a.shape[:axis] + indices.shape + a.shape[axis + 1:]
// (references of gather kernels: an embedding lookup, a label pick).
Value take(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["a"]), idx = to_array(in, a["indices"]);
  if (!tensor::is_integer(idx.dtype()) && idx.size() > 0)
    throw NkiError(ErrorKind::Type, "`indices` of np.take must be an integer array");
  const bool flat = a["axis"].is_none();
  if (flat) x = tensor::reshape(x.contiguous(), {x.size()});
  int axis = flat ? 0 : normal_axis(to_int(a["axis"], "axis"), x.ndim(), "take");
  tensor::Shape shape(x.shape().begin(), x.shape().begin() + axis);
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), x.shape().begin() + axis + 1, x.shape().end());
  Array src = tensor::astype(x, DType::Float64).contiguous();
  Array ix = tensor::astype(idx, DType::Int64).contiguous();
  int64_t srclen = x.shape()[size_t(axis)], inner = 1, outer = 1;
  for (size_t k = size_t(axis) + 1; k < x.shape().size(); ++k) inner *= x.shape()[k];
  for (int k = 0; k < axis; ++k) outer *= x.shape()[size_t(k)];
  std::vector<double> vals;
  vals.reserve(size_t(outer * ix.size() * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < ix.size(); ++j) {
      int64_t k = index_on_axis(ix.i64()[j], axis, srclen);
      for (int64_t i = 0; i < inner; ++i) vals.push_back(src.f64()[(o * srclen + k) * inner + i]);
    }
  // A scalar index into the flattened array is a numpy scalar, as numpy gives it.
  if (flat && idx.ndim() == 0) return make_scalar(x.dtype(), vals.at(0));
  return make_array(Array::from_values(shape, x.dtype(), vals));
}

// np.moveaxis(a, source, destination) for one axis.
Value moveaxis(Interpreter& in, BoundArgs& a) {
  Array x = to_array(in, a["a"]);
  int src = normal_axis(to_int(a["source"], "source"), x.ndim(), "moveaxis");
  int dst = normal_axis(to_int(a["destination"], "destination"), x.ndim(), "moveaxis");
  std::vector<int> order;
  for (int k = 0; k < x.ndim(); ++k)
    if (k != src) order.push_back(k);
  order.insert(order.begin() + dst, src);
  return make_array(tensor::transpose(x, order));
}

// np.finfo(dtype) / np.iinfo(dtype): a namespace with min, max, eps, tiny, bits, dtype.
Value type_info(const Value& dtype, bool floating) {
  auto d = to_dtype(dtype, floating ? "finfo" : "iinfo");
  if (!d || tensor::is_float(*d) != floating)
    throw NkiError(ErrorKind::Value, fmt::format("data type {} not {}", dtype.repr(), floating ? "inexact" : "an integer type"));
  auto ns = std::make_shared<NamespaceObj>(floating ? "finfo" : "iinfo");
  int bits = tensor::itemsize(*d) * 8;
  ns->set("bits", Value::from_int(bits));
  ns->set("dtype", make_dtype(*d));
  if (floating) {
    double max = 0, eps = 0, tiny = 0;
    switch (*d) {
      case DType::Float16: max = 65504.0, eps = 0.0009765625, tiny = 6.103515625e-05; break;
      case DType::BFloat16: max = 3.3895313892515355e38, eps = 0.0078125, tiny = 1.1754943508222875e-38; break;
      case DType::Float64: max = std::numeric_limits<double>::max(), eps = std::numeric_limits<double>::epsilon(), tiny = std::numeric_limits<double>::min(); break;
      case DType::Float8E4M3: max = 240.0, eps = 0.125, tiny = 0.015625; break;
      case DType::Float8E4M3FN: max = 448.0, eps = 0.125, tiny = 0.015625; break;
      case DType::Float8E5M2: max = 57344.0, eps = 0.25, tiny = 6.103515625e-05; break;
      default: max = std::numeric_limits<float>::max(), eps = std::numeric_limits<float>::epsilon(), tiny = std::numeric_limits<float>::min(); break;
    }
    ns->set("max", make_scalar(*d, max));
    ns->set("min", make_scalar(*d, -max));
    ns->set("eps", make_scalar(*d, eps));
    ns->set("tiny", make_scalar(*d, tiny));
    ns->set("smallest_normal", make_scalar(*d, tiny));
  } else {
    bool is_signed = tensor::is_signed(*d);
    double max = is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    ns->set("max", Value::from_int(int64_t(bits == 64 && !is_signed ? std::numeric_limits<int64_t>::max() : int64_t(max))));
    ns->set("min", Value::from_int(is_signed ? -int64_t(max) - 1 : 0));
  }
  return Value(ns);
}

}  // namespace

int normal_axis(int64_t axis, int ndim, std::string_view what) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    throw NkiError(ErrorKind::Value, fmt::format("{}: axis {} is out of bounds for array of dimension {}", what, axis, ndim));
  return int(a);
}

void add_more_functions(ModuleObj& m) {
  std::vector<Param> stat = {req("a"), opt("axis"), opt("dtype"), opt("out"), opt("ddof", Value::from_int(0)),
                             opt("keepdims", Value::from_bool(false))};
  add_function(m, "var", stat, [](Interpreter& in, BoundArgs& a) { return variance(in, a, false); });
  add_function(m, "std", stat, [](Interpreter& in, BoundArgs& a) { return variance(in, a, true); });
  std::vector<Param> cum = {req("a"), opt("axis"), opt("dtype"), opt("out")};
  add_function(m, "cumsum", cum, [](Interpreter& in, BoundArgs& a) { return cumulative(in, a, false); });
  add_function(m, "cumprod", cum, [](Interpreter& in, BoundArgs& a) { return cumulative(in, a, true); });
  std::vector<Param> arg = {req("a"), opt("axis"), opt("out"), kwonly("keepdims", Value::from_bool(false))};
  add_function(m, "argmax", arg, [](Interpreter& in, BoundArgs& a) { return arg_extreme(in, a, true); });
  add_function(m, "argmin", arg, [](Interpreter& in, BoundArgs& a) { return arg_extreme(in, a, false); });
  for (const char* name : {"round", "around", "round_"})
    add_function(m, name, {req("a"), opt("decimals", Value::from_int(0)), opt("out")}, round_values);
  add_function(m, "tile", {req("A"), req("reps")}, tile_values);
  add_function(m, "hstack", {req("tup")}, [](Interpreter& in, BoundArgs& a) { return stack_values(in, a, false); });
  add_function(m, "vstack", {req("tup")}, [](Interpreter& in, BoundArgs& a) { return stack_values(in, a, true); });
  add_function(m, "flip", {req("m"), opt("axis")}, flip_values);
  add_function(m, "outer", {req("a"), req("b")}, [](Interpreter& in, BoundArgs& a) {
    Array x = tensor::reshape(to_array(in, a["a"]).contiguous(), {-1, 1});
    Array y = tensor::reshape(to_array(in, a["b"]).contiguous(), {1, -1});
    return binary_ufunc(in, BinaryOp::Mul, make_array(x), make_array(y), "multiply");
  });
  add_function(m, "take_along_axis", {req("arr"), req("indices"), req("axis")}, take_along_axis);
  add_function(m, "take", {req("a"), req("indices"), opt("axis")}, take);
  add_function(m, "moveaxis", {req("a"), req("source"), req("destination")}, moveaxis);
  add_function(m, "finfo", {req("dtype")}, [](Interpreter&, BoundArgs& a) { return type_info(a["dtype"], true); });
  add_function(m, "iinfo", {req("int_type")}, [](Interpreter&, BoundArgs& a) { return type_info(a["int_type"], false); });
}

}  // namespace nki::lib::np
