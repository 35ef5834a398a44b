// Attributes and methods of numpy arrays and scalars (a.shape, a.astype(...), a.sum(axis=-1), ...).
#include <fmt/format.h>

#include <unordered_map>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/module_util.h"
#include "nki/lib/numpy_util.h"

namespace nki::lib {

using tensor::Array;
using tensor::DType;

namespace {

using Method = std::function<Value(Interpreter&, NdArrayObj&, BoundArgs&)>;
struct MethodSpec {
  std::vector<Param> params;
  bool var_args = false;  // reshape(2, 3), transpose(1, 0), item(0, 1)
  Method fn;
};


// Positional varargs or a single tuple/list argument: a.reshape(2, 3) == a.reshape((2, 3)).
std::vector<int64_t> int_args(const BoundArgs& a, std::string_view what) {
  if (a.rest.size() == 1) return to_int_list(a.rest[0], what);
  std::vector<int64_t> out;
  for (const Value& v : a.rest) out.push_back(to_int(v, what));
  return out;
}

Value tolist(const Array& a) {
  if (a.ndim() == 0) return np::python_value(a);
  std::vector<Value> items;
  for (int64_t i = 0; i < a.shape()[0]; ++i) items.push_back(tolist(tensor::get_index(a, {i})));
  return make_list(std::move(items));
}

Value reduce_method(tensor::ReduceOp op, Interpreter& in, NdArrayObj& self, BoundArgs& a) {
  if (!a["out"].is_none()) throw NkiError(ErrorKind::Unsupported, "out= is not supported");
  return np::reduce_values(in, op, Value(self.shared_from_this()), a["axis"], a["dtype"], a["keepdims"].truthy());
}

std::vector<Param> reduce_params() {
  return {opt("axis"), opt("dtype"), opt("out"), opt("keepdims", Value::from_bool(false))};
}

const std::unordered_map<std::string_view, MethodSpec>& methods() {
  using R = tensor::ReduceOp;
  static const std::unordered_map<std::string_view, MethodSpec> table = {
      {"astype", {{req("dtype"), opt("order"), opt("casting"), opt("subok"), opt("copy", Value::from_bool(true))}, false,
                  [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                    DType d = *to_dtype(a["dtype"], "astype");
                    return make_result(tensor::astype(s.array, d), s.is_scalar);
                  }}},
      {"reshape", {{Param{"order", Value(), true}}, true,
                   [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                     return make_array(tensor::reshape(s.array, int_args(a, "shape")));
                   }}},
      {"transpose", {{}, true,
                     [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                       std::vector<int> perm;
                       if (!(a.rest.size() == 1 && a.rest[0].is_none()))
                         for (int64_t v : int_args(a, "axes")) perm.push_back(static_cast<int>(v));
                       return make_array(tensor::transpose(s.array, perm));
                     }}},
      {"swapaxes", {{req("axis1"), req("axis2")}, false,
                    [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                      return make_array(tensor::swapaxes(s.array, int(to_int(a["axis1"], "axis1")), int(to_int(a["axis2"], "axis2"))));
                    }}},
      {"copy", {{opt("order")}, false,
                [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return make_result(s.array.copy(), s.is_scalar); }}},
      {"flatten", {{opt("order")}, false,
                   [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return make_array(tensor::reshape(s.array.copy(), {-1})); }}},
      {"ravel", {{opt("order")}, false,
                 [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return make_array(tensor::reshape(s.array, {-1})); }}},
      {"squeeze", {{opt("axis")}, false,
                   [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return make_array(tensor::squeeze(s.array, np::axes_arg(a["axis"]))); }}},
      {"item", {{}, true,
                [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                  if (a.rest.empty()) return np::python_value(tensor::reshape(s.array, {}));
                  std::vector<tensor::IndexItem> items;
                  for (int64_t i : int_args(a, "index")) items.push_back(i);
                  if (items.size() == 1 && s.array.ndim() != 1) {
                    Array flat = tensor::reshape(s.array, {-1});
                    return np::python_value(tensor::get_index(flat, items));
                  }
                  return np::python_value(tensor::get_index(s.array, items));
                }}},
      {"tolist", {{}, false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return tolist(s.array); }}},
      {"fill", {{req("value")}, false,
                [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                  tensor::assign(s.array, to_array(in, a["value"]));
                  return Value();
                }}},
      {"repeat", {{req("repeats"), opt("axis")}, false,
                  [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                    Array src = a["axis"].is_none() ? tensor::reshape(s.array, {-1}) : s.array;
                    int axis = a["axis"].is_none() ? 0 : int(to_int(a["axis"], "axis"));
                    return make_array(tensor::repeat(src, to_int(a["repeats"], "repeats"), axis));
                  }}},
      {"dot", {{req("b")}, false,
               [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return np::matmul_values(in, Value(s.shared_from_this()), a["b"]); }}},
      {"clip", {{opt("min"), opt("max")}, false,
                [](Interpreter& in, NdArrayObj& s, BoundArgs& a) {
                  Value r(s.shared_from_this());
                  if (!a["min"].is_none()) r = np::binary_ufunc(in, tensor::BinaryOp::Maximum, r, a["min"], "maximum");
                  if (!a["max"].is_none()) r = np::binary_ufunc(in, tensor::BinaryOp::Minimum, r, a["max"], "minimum");
                  return r;
                }}},
      {"sum", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::Sum, in, s, a); }}},
      {"prod", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::Prod, in, s, a); }}},
      {"mean", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::Mean, in, s, a); }}},
      {"max", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::Max, in, s, a); }}},
      {"min", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::Min, in, s, a); }}},
      {"sort", {{opt("axis", Value::from_int(-1)), opt("kind"), opt("order")}, false,
                [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return np::sort_in_place(in, s, a["axis"]); }}},
      {"all", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::All, in, s, a); }}},
      {"any", {reduce_params(), false, [](Interpreter& in, NdArrayObj& s, BoundArgs& a) { return reduce_method(R::Any, in, s, a); }}},
  };
  return table;
}

// ndarray methods that are the numpy function of the same name applied to the array.
bool forwarded_to_numpy(std::string_view name) {
  for (const char* n : {"var", "std", "cumsum", "cumprod", "argmax", "argmin", "round", "argsort", "nonzero"})
    if (name == n) return true;
  return false;
}

Value shape_tuple(const Array& a) {
  std::vector<Value> dims;
  for (int64_t d : a.shape()) dims.push_back(Value::from_int(d));
  return make_tuple(std::move(dims));
}

}  // namespace

bool NdArrayObj::has_attr(std::string_view name) const {
  static const char* attrs[] = {"shape", "dtype", "ndim", "size", "T", "itemsize", "nbytes"};
  for (const char* a : attrs)
    if (name == a) return true;
  return methods().count(name) > 0 || forwarded_to_numpy(name);
}

Value NdArrayObj::get_attr(Interpreter& in, std::string_view name) {
  if (name == "shape") return shape_tuple(array);
  if (name == "dtype") return make_dtype(array.dtype());
  if (name == "ndim") return Value::from_int(array.ndim());
  if (name == "size") return Value::from_int(array.size());
  if (name == "itemsize") return Value::from_int(tensor::itemsize(array.dtype()));
  if (name == "nbytes") return Value::from_int(array.nbytes());
  if (name == "T") return make_result(tensor::transpose(array, {}), is_scalar);
  auto it = methods().find(name);
  if (it == methods().end() && forwarded_to_numpy(name)) {
    // a.var(axis=1) is np.var(a, axis=1): the module function with the array first.
    Value fn = in.get_attr(in.import_module("numpy"), name);
    Value self(shared_from_this());
    return Value(std::make_shared<BuiltinObj>("ndarray." + std::string(name), [fn, self](Interpreter& in2, CallArgs& args) {
      CallArgs call = args;
      call.args.insert(call.args.begin(), self);
      return in2.call(fn, std::move(call));
    }));
  }
  if (it == methods().end())
    throw NkiError(ErrorKind::Name, fmt::format("'{}' object has no attribute '{}'", is_scalar ? type_name() : "numpy.ndarray", name));
  const MethodSpec& spec = it->second;
  Signature sig{"ndarray." + std::string(name), spec.params, spec.var_args, false};
  auto self = std::static_pointer_cast<NdArrayObj>(shared_from_this());
  Method fn = spec.fn;
  return Value(make_builtin(std::move(sig), [self, fn](Interpreter& in, BoundArgs& a) { return fn(in, *self, a); }));
}

}  // namespace nki::lib
