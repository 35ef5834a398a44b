// np.array/asarray/zeros/ones/full/empty/ndarray/*_like/arange/identity/eye/linspace and the
// shape functions (reshape, transpose, concatenate, ...).
#include <cmath>

#include <fmt/format.h>

#include "nki/interpreter.h"
#include "nki/lib/module_util.h"
#include "nki/lib/nki_tensor.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib::np {

using tensor::Array;
using tensor::DType;

namespace {

struct ShapeDType {
  tensor::Shape shape;
  DType dtype;
};

// The template of np.*_like: a numpy array, a number or a list, or a kernel tensor -- a host
// wrapper handed the kernel's HBM arguments allocates its output with np.empty_like(x), as host
// code does with the numpy arrays the device call takes (only the shape and dtype are read).
ShapeDType like_template(Interpreter& in, const Value& v) {
  if (auto* t = v.as<NkiTensorObj>()) return {t->shape(), t->dtype()};
  Array x = to_array(in, v);
  return {x.shape(), x.dtype()};
}

DType dtype_or(const Value& v, DType dflt) { return to_dtype(v, "dtype").value_or(dflt); }

// A new array filled with `value`; shape-only in the numpy module's shape-only mode.
Value filled(Interpreter& in, const tensor::Shape& shape, DType d, double value) {
  if (numpy_shape_only(in)) return make_array(Array::shape_only(shape, d));
  return make_array(Array::full(shape, d, value));
}

Value fill_value_array(Interpreter& in, const tensor::Shape& shape, const Value& fill, const Value& dtype) {
  Array f = to_array(in, fill);
  DType d = dtype_or(dtype, f.dtype());
  if (numpy_shape_only(in)) return make_array(Array::shape_only(shape, d));
  Array out = Array::zeros(shape, d);
  tensor::assign(out, f);
  return make_array(out);
}

void add_constructors(ModuleObj& m) {
  add_function(m, "array", {req("object"), opt("dtype"), opt("copy", Value::from_bool(true)), opt("order"), opt("ndmin", Value::from_int(0))},
               [](Interpreter& in, BoundArgs& a) {
                 Array x = to_array(in, a["object"]);
                 auto d = to_dtype(a["dtype"], "np.array");
                 if (d && *d != x.dtype()) return make_array(tensor::astype(x, *d));
                 bool shared = a["object"].is(ObjType::NdArray);  // lists already gave a fresh array
                 return make_array(shared && a["copy"].truthy() ? x.copy() : x);
               });
  add_function(m, "asarray", {req("a"), opt("dtype"), opt("order")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a"]);
    auto d = to_dtype(a["dtype"], "np.asarray");
    return make_array(d && *d != x.dtype() ? tensor::astype(x, *d) : x);
  });
  add_function(m, "copy", {req("a"), opt("order")}, [](Interpreter& in, BoundArgs& a) { return make_array(to_array(in, a["a"]).copy()); });
  add_function(m, "ascontiguousarray", {req("a"), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a"]);
    auto d = to_dtype(a["dtype"], "np.ascontiguousarray");
    if (d && *d != x.dtype()) x = tensor::astype(x, *d);
    if (x.ndim() == 0) x = tensor::reshape(x, {1});  // numpy: at least 1-d
    return make_array(x.contiguous());
  });
  // np.tril / np.triu: zero the elements above / below the k-th diagonal of the last two axes.
  for (bool lower : {true, false}) {
    add_function(m, lower ? "tril" : "triu", {req("m"), opt("k", Value::from_int(0))}, [lower](Interpreter& in, BoundArgs& a) {
      Array x = to_array(in, a["m"]);
      if (x.ndim() < 2) throw NkiError(ErrorKind::Value, fmt::format("np.{}: input must be at least 2-d", lower ? "tril" : "triu"));
      if (numpy_shape_only(in)) return make_array(Array::shape_only(x.shape(), x.dtype()));
      int64_t k = to_int(a["k"], "k");
      Array f = tensor::astype(x, DType::Float64).copy();
      int64_t rows = x.shape()[size_t(x.ndim() - 2)], cols = x.shape()[size_t(x.ndim() - 1)];
      int64_t batches = rows * cols != 0 ? f.size() / (rows * cols) : 0;
      double* p = f.f64();
      for (int64_t b = 0; b < batches; ++b)
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            if (lower ? j - i > k : j - i < k) p[(b * rows + i) * cols + j] = 0;
      return make_array(tensor::astype(f, x.dtype()));
    });
  }
  for (const char* name : {"zeros", "empty", "ndarray"}) {
    add_function(m, name, {req("shape"), opt("dtype"), opt("order")}, [](Interpreter& in, BoundArgs& a) {
      return filled(in, shape_arg(a["shape"], "shape"), dtype_or(a["dtype"], DType::Float64), 0.0);
    });
  }
  add_function(m, "ones", {req("shape"), opt("dtype"), opt("order")}, [](Interpreter& in, BoundArgs& a) {
    return filled(in, shape_arg(a["shape"], "shape"), dtype_or(a["dtype"], DType::Float64), 1.0);
  });
  add_function(m, "full", {req("shape"), req("fill_value"), opt("dtype"), opt("order")}, [](Interpreter& in, BoundArgs& a) {
    return fill_value_array(in, shape_arg(a["shape"], "shape"), a["fill_value"], a["dtype"]);
  });
  for (auto [name, value] : {std::pair{"zeros_like", 0.0}, {"empty_like", 0.0}, {"ones_like", 1.0}}) {
    add_function(m, name, {req("a"), opt("dtype"), opt("order"), opt("subok"), opt("shape")}, [value](Interpreter& in, BoundArgs& a) {
      ShapeDType x = like_template(in, a["a"]);
      tensor::Shape s = a["shape"].is_none() ? x.shape : shape_arg(a["shape"], "shape");
      return filled(in, s, dtype_or(a["dtype"], x.dtype), value);
    });
  }
  add_function(m, "full_like", {req("a"), req("fill_value"), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    ShapeDType x = like_template(in, a["a"]);
    Value d = a["dtype"].is_none() ? make_dtype(x.dtype) : a["dtype"];
    return fill_value_array(in, x.shape, a["fill_value"], d);
  });
}

void add_ranges(ModuleObj& m) {
  add_function(m, "arange", {req("start"), opt("stop"), opt("step"), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    Value start = a["start"], stop = a["stop"], step = a["step"];
    if (stop.is_none()) std::swap(start, stop), start = Value::from_int(0);
    if (step.is_none()) step = Value::from_int(1);
    bool ints = !start.is_float() && !stop.is_float() && !step.is_float();
    DType d = dtype_or(a["dtype"], ints ? DType::Int64 : DType::Float64);
    double s0 = to_float(start, "start"), s1 = to_float(stop, "stop"), st = to_float(step, "step");
    if (st == 0) throw NkiError(ErrorKind::Value, "Maximum allowed size exceeded");
    if (std::ceil((s1 - s0) / st) > 1e9) throw NkiError(ErrorKind::Value, "Maximum allowed size exceeded");
    return make_array(tensor::arange(s0, s1, st, d));
  });
  add_function(m, "identity", {req("n"), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    return make_array(tensor::identity(to_int(a["n"], "n"), dtype_or(a["dtype"], DType::Float64)));
  });
  add_function(m, "eye", {req("N"), opt("M"), opt("k", Value::from_int(0)), opt("dtype")}, [](Interpreter& in, BoundArgs& a) {
    int64_t n = to_int(a["N"], "N"), cols = a["M"].is_none() ? n : to_int(a["M"], "M"), k = to_int(a["k"], "k");
    Array out = Array::zeros({n, cols}, dtype_or(a["dtype"], DType::Float64));
    for (int64_t row = 0; row < n; ++row)
      if (row + k >= 0 && row + k < cols) out.set({row, row + k}, 1.0);
    return make_array(out);
  });
  add_function(m, "linspace", {req("start"), req("stop"), opt("num", Value::from_int(50)), opt("endpoint", Value::from_bool(true)), opt("dtype")},
               [](Interpreter& in, BoundArgs& a) {
                 double s0 = to_float(a["start"], "start"), s1 = to_float(a["stop"], "stop");
                 int64_t num = to_int(a["num"], "num");
                 if (num < 0) throw NkiError(ErrorKind::Value, fmt::format("Number of samples, {}, must be non-negative.", num));
                 int64_t div = a["endpoint"].truthy() ? num - 1 : num;
                 double step = div > 0 ? (s1 - s0) / double(div) : 0.0;
                 Array out = Array::empty({num}, dtype_or(a["dtype"], DType::Float64));
                 for (int64_t i = 0; i < num; ++i) out.set({i}, s0 + double(i) * step);
                 if (a["endpoint"].truthy() && num > 1) out.set({num - 1}, s1);
                 return make_array(out);
               });
}

void add_shape_functions(ModuleObj& m) {
  add_function(m, "reshape", {req("a"), req("newshape"), opt("order")}, [](Interpreter& in, BoundArgs& a) {
    return make_array(tensor::reshape(to_array(in, a["a"]), shape_arg(a["newshape"], "newshape")));
  });
  add_function(m, "transpose", {req("a"), opt("axes")}, [](Interpreter& in, BoundArgs& a) {
    std::vector<int> perm = axes_arg(a["axes"]);
    return make_array(tensor::transpose(to_array(in, a["a"]), perm));
  });
  add_function(m, "swapaxes", {req("a"), req("axis1"), req("axis2")}, [](Interpreter& in, BoundArgs& a) {
    return make_array(tensor::swapaxes(to_array(in, a["a"]), int(to_int(a["axis1"], "axis1")), int(to_int(a["axis2"], "axis2"))));
  });
  add_function(m, "expand_dims", {req("a"), req("axis")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a"]);
    for (int axis : axes_arg(a["axis"])) x = tensor::expand_dims(x, axis);
    return make_array(x);
  });
  add_function(m, "squeeze", {req("a"), opt("axis")}, [](Interpreter& in, BoundArgs& a) {
    return make_array(tensor::squeeze(to_array(in, a["a"]), axes_arg(a["axis"])));
  });
  add_function(m, "ravel", {req("a"), opt("order")}, [](Interpreter& in, BoundArgs& a) {
    return make_array(tensor::reshape(to_array(in, a["a"]), {-1}));
  });
  add_function(m, "broadcast_to", {req("array"), req("shape")}, [](Interpreter& in, BoundArgs& a) {
    return make_array(tensor::broadcast_to(to_array(in, a["array"]), shape_arg(a["shape"], "shape")));
  });
  add_function(m, "concatenate", {req("arrays"), opt("axis", Value::from_int(0))}, [](Interpreter& in, BoundArgs& a) {
    std::vector<Array> parts = array_list(in, a["arrays"], "concatenate");
    if (a["axis"].is_none()) {
      for (Array& p : parts) p = tensor::reshape(p, {-1});
      return make_array(tensor::concatenate(parts, 0));
    }
    return make_array(tensor::concatenate(parts, int(to_int(a["axis"], "axis"))));
  });
  add_function(m, "stack", {req("arrays"), opt("axis", Value::from_int(0))}, [](Interpreter& in, BoundArgs& a) {
    std::vector<Array> parts = array_list(in, a["arrays"], "stack");
    int axis = int(to_int(a["axis"], "axis"));
    for (const Array& p : parts)
      if (p.shape() != parts[0].shape()) throw NkiError(ErrorKind::Value, "all input arrays must have the same shape");
    for (Array& p : parts) p = tensor::expand_dims(p, axis);
    return make_array(tensor::concatenate(parts, axis));
  });
  add_function(m, "repeat", {req("a"), req("repeats"), opt("axis")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a"]);
    if (a["axis"].is_none()) x = tensor::reshape(x.contiguous(), {-1});
    int axis = a["axis"].is_none() ? 0 : normal_axis(to_int(a["axis"], "axis"), x.ndim(), "repeat");
    Array counts = to_array(in, a["repeats"]);
    if (counts.size() == 1 && counts.ndim() <= 1) return make_array(tensor::repeat(x, to_int(a["repeats"], "repeats"), axis));
    // One count per element along the axis: a gather of each index repeated its count.
    int64_t len = x.shape()[size_t(axis)];
    if (counts.ndim() != 1 || counts.size() != len)
      throw NkiError(ErrorKind::Value, fmt::format("operands could not be broadcast together with shape ({},) ({},)", len, counts.size()));
    Array c = tensor::astype(counts, tensor::DType::Int64).contiguous();
    std::vector<double> idx;
    for (int64_t k = 0; k < len; ++k) {
      if (c.i64()[k] < 0) throw NkiError(ErrorKind::Value, "repeats may not contain negative values.");
      idx.insert(idx.end(), size_t(c.i64()[k]), double(k));
    }
    std::vector<tensor::IndexItem> items(static_cast<size_t>(axis), tensor::Slice{});
    items.push_back(Array::from_values({int64_t(idx.size())}, tensor::DType::Int64, idx));
    return make_array(tensor::get_index(x, items));
  });
  add_function(m, "where", {req("condition"), req("x"), req("y")}, [](Interpreter& in, BoundArgs& a) {
    Array c = to_array(in, a["condition"]), x = to_array(in, a["x"]), y = to_array(in, a["y"]);
    return make_result(tensor::where(c, x, y, result_type({x, y})), false);
  });
}

}  // namespace

std::vector<Array> array_list(Interpreter& in, const Value& seq, std::string_view what) {
  std::vector<Array> parts;
  auto it = in.iterate(seq);
  for (Value v; it->next(v);) parts.push_back(to_array(in, v));
  if (parts.empty()) throw NkiError(ErrorKind::Value, fmt::format("{}: need at least one array", what));
  return parts;
}

void add_function(ModuleObj& m, const std::string& name, std::vector<Param> params,
                  std::function<Value(Interpreter&, BoundArgs&)> fn, bool var_args) {
  Signature sig{"np." + name, std::move(params), var_args, false};
  m.attrs[name] = Value(make_builtin(std::move(sig), std::move(fn)));
}

void add_creation_functions(ModuleObj& m) {
  add_constructors(m);
  add_ranges(m);
  add_shape_functions(m);
}

}  // namespace nki::lib::np
