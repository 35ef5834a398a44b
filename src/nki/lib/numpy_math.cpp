// The numpy ufuncs (as objects the nki library recognises when passed as op=), reductions,
// matmul/dot, allclose/isclose and clip.
#include <cmath>

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


struct BinaryUfunc {
  const char* name;
  BinaryOp op;
};
const BinaryUfunc kBinary[] = {
    {"add", BinaryOp::Add},           {"subtract", BinaryOp::Sub},          {"multiply", BinaryOp::Mul},
    {"divide", BinaryOp::Div},        {"true_divide", BinaryOp::Div},       {"floor_divide", BinaryOp::FloorDiv},
    {"remainder", BinaryOp::Mod},     {"mod", BinaryOp::Mod},               {"fmod", BinaryOp::Fmod},               {"power", BinaryOp::Pow},
    {"maximum", BinaryOp::Maximum},   {"minimum", BinaryOp::Minimum},       {"fmax", BinaryOp::Maximum},
    {"fmin", BinaryOp::Minimum},      {"equal", BinaryOp::Eq},              {"not_equal", BinaryOp::Ne},
    {"less", BinaryOp::Lt},           {"less_equal", BinaryOp::Le},         {"greater", BinaryOp::Gt},
    {"greater_equal", BinaryOp::Ge},  {"logical_and", BinaryOp::LogicalAnd}, {"logical_or", BinaryOp::LogicalOr},
    {"logical_xor", BinaryOp::LogicalXor}, {"bitwise_and", BinaryOp::BitAnd}, {"bitwise_or", BinaryOp::BitOr},
    {"bitwise_xor", BinaryOp::BitXor}, {"left_shift", BinaryOp::LShift},    {"right_shift", BinaryOp::RShift},
};

void reject_out(const BoundArgs& a) {
  if (!a["out"].is_none()) throw NkiError(ErrorKind::Unsupported, "out= is not supported");
}

// A ufunc object: positional/keyword arguments bound like numpy's (x1, x2, out=None, dtype=None).
Value ufunc_object(std::string name, int nin, std::function<Value(Interpreter&, BoundArgs&)> body) {
  std::vector<Param> params = nin == 1 ? std::vector<Param>{req("x")} : std::vector<Param>{req("x1"), req("x2")};
  params.push_back(opt("out"));
  params.push_back(Param{"dtype", Value(), true});
  params.push_back(Param{"where", Value::from_bool(true), true});
  auto sig = std::make_shared<Signature>(Signature{"np." + name, std::move(params), false, false});
  NativeFn fn = [sig, body](Interpreter& in, CallArgs& call) {
    BoundArgs a = bind_args(*sig, call);
    reject_out(a);
    if (!a["where"].is_bool() || !a["where"].as_bool()) throw NkiError(ErrorKind::Unsupported, "where= is not supported");
    return body(in, a);
  };
  return Value(std::make_shared<UfuncObj>(std::move(name), nin, std::move(fn)));
}

void add_ufuncs(ModuleObj& m) {
  for (const BinaryUfunc& u : kBinary) {
    std::string name = u.name;
    BinaryOp op = u.op;
    m.attrs[name] = ufunc_object(name, 2, [op, name](Interpreter& in, BoundArgs& a) {
      return binary_ufunc(in, op, a["x1"], a["x2"], name, to_dtype(a["dtype"], "dtype"));
    });
  }
  for (const UnaryUfunc& u : unary_ufuncs()) {
    const UnaryUfunc* ufunc = &u;
    m.attrs[std::string(u.name)] = ufunc_object(std::string(u.name), 1, [ufunc](Interpreter& in, BoundArgs& a) {
      return unary_ufunc(in, *ufunc, a["x"], to_dtype(a["dtype"], "dtype"));
    });
  }
  m.attrs["matmul"] = ufunc_object("matmul", 2, [](Interpreter& in, BoundArgs& a) { return matmul_values(in, a["x1"], a["x2"]); });
}

void add_reductions(ModuleObj& m) {
  const std::pair<const char*, ReduceOp> with_dtype[] = {{"sum", ReduceOp::Sum}, {"prod", ReduceOp::Prod}, {"mean", ReduceOp::Mean}};
  for (auto [name, op] : with_dtype) {
    add_function(m, name, {req("a"), opt("axis"), opt("dtype"), opt("out"), opt("keepdims", Value::from_bool(false))},
                 [op = op](Interpreter& in, BoundArgs& a) {
                   reject_out(a);
                   return reduce_values(in, op, a["a"], a["axis"], a["dtype"], a["keepdims"].truthy());
                 });
  }
  const std::pair<const char*, ReduceOp> plain[] = {{"max", ReduceOp::Max}, {"amax", ReduceOp::Max}, {"min", ReduceOp::Min},
                                                    {"amin", ReduceOp::Min}, {"all", ReduceOp::All}, {"any", ReduceOp::Any}};
  for (auto [name, op] : plain) {
    add_function(m, name, {req("a"), opt("axis"), opt("out"), opt("keepdims", Value::from_bool(false))},
                 [op = op](Interpreter& in, BoundArgs& a) {
                   reject_out(a);
                   return reduce_values(in, op, a["a"], a["axis"], Value(), a["keepdims"].truthy());
                 });
  }
}

// |a - b| <= atol + rtol * |b|, NaNs equal only with equal_nan (numpy.isclose).
Array isclose(Interpreter& in, const BoundArgs& a) {
  Array x = to_array(in, a["a"]), y = to_array(in, a["b"]);
  DType t = tensor::promote(result_type({x, y}), DType::Float64);
  double rtol = to_float(a["rtol"], "rtol"), atol = to_float(a["atol"], "atol");
  Array diff = tensor::unary(tensor::UnaryOp::Abs, tensor::binary(BinaryOp::Sub, x, y, t, t), t, t);
  Array bound = tensor::binary(BinaryOp::Add, Array::scalar(t, atol),
                               tensor::binary(BinaryOp::Mul, Array::scalar(t, rtol),
                                              tensor::unary(tensor::UnaryOp::Abs, y, t, t), t, t), t, t);
  Array close = tensor::binary(BinaryOp::Le, diff, bound, t, DType::Bool);
  Array same = tensor::binary(BinaryOp::Eq, x, y, t, DType::Bool);  // equal infinities
  close = tensor::binary(BinaryOp::LogicalOr, close, same, DType::Bool, DType::Bool);
  if (a["equal_nan"].truthy()) {
    Array nx = tensor::binary(BinaryOp::Ne, x, x, t, DType::Bool), ny = tensor::binary(BinaryOp::Ne, y, y, t, DType::Bool);
    close = tensor::binary(BinaryOp::LogicalOr, close, tensor::binary(BinaryOp::LogicalAnd, nx, ny, DType::Bool, DType::Bool),
                           DType::Bool, DType::Bool);
  }
  return close;
}

void add_misc(ModuleObj& m) {
  add_function(m, "dot", {req("a"), req("b")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a"]), y = to_array(in, a["b"]);
    if (x.ndim() == 0 || y.ndim() == 0) return binary_ufunc(in, BinaryOp::Mul, a["a"], a["b"], "multiply");
    if (y.ndim() > 2) throw NkiError(ErrorKind::Unsupported, "np.dot with a >2-d second operand is not supported");
    return matmul_values(in, a["a"], a["b"]);
  });
  std::vector<Param> close_params = {req("a"), req("b"), opt("rtol", Value::from_float(1e-5)),
                                     opt("atol", Value::from_float(1e-8)), opt("equal_nan", Value::from_bool(false))};
  add_function(m, "isclose", close_params, [](Interpreter& in, BoundArgs& a) { return make_result(isclose(in, a)); });
  add_function(m, "allclose", close_params, [](Interpreter& in, BoundArgs& a) {
    Array all = tensor::reduce(ReduceOp::All, isclose(in, a), {}, false, DType::Bool);
    return Value::from_bool(all.item() != 0);
  });
  add_function(m, "array_equal", {req("a1"), req("a2")}, [](Interpreter& in, BoundArgs& a) {
    Array x = to_array(in, a["a1"]), y = to_array(in, a["a2"]);
    if (x.shape() != y.shape()) return Value::from_bool(false);
    Array eq = tensor::binary(BinaryOp::Eq, x, y, result_type({x, y}), DType::Bool);
    return Value::from_bool(tensor::reduce(ReduceOp::All, eq, {}, false, DType::Bool).item() != 0);
  });
  add_function(m, "clip", {req("a"), req("a_min"), req("a_max")}, [](Interpreter& in, BoundArgs& a) {
    Value r = a["a"];
    if (!a["a_min"].is_none()) r = binary_ufunc(in, BinaryOp::Maximum, r, a["a_min"], "maximum");
    if (!a["a_max"].is_none()) r = binary_ufunc(in, BinaryOp::Minimum, r, a["a_max"], "minimum");
    return r;
  });
}

}  // namespace

void add_math_functions(ModuleObj& m) {
  add_ufuncs(m);
  add_reductions(m);
  add_misc(m);
}

}  // namespace nki::lib::np
