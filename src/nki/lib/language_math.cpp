// nki.language math: element-wise binary/unary APIs, reductions, matmul/transpose, selection,
// loop_reduce and the composite softmax.
#include "nki/lib/language_math.h"

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/module_util.h"

namespace nki::lib {

namespace {

const std::string kNl = "nl";

void add_binary(ModuleObj& m, const char* name, tensor::BinaryOp op) {
  def(m, kNl, name, {req("x"), req("y"), kwonly("dtype"), kwonly("mask")},
      [name, op](Interpreter& in, BoundArgs& a) {
        std::string api = std::string("nl.") + name;
        return elementwise_binary(in, op, a["x"], a["y"], api, a["dtype"], to_predicate(a["mask"], api));
      });
}

void add_unary(ModuleObj& m, const char* name, tensor::UnaryOp op) {
  def(m, kNl, name, {req("x"), kwonly("dtype"), kwonly("mask")}, [name, op](Interpreter& in, BoundArgs& a) {
    std::string api = std::string("nl.") + name;
    return elementwise_unary(in, op, a["x"], api, a["dtype"], to_predicate(a["mask"], api));
  });
}

void add_reduction(ModuleObj& m, const char* name, const char* alu, bool mean) {
  def(m, kNl, name, {req("x"), req("axis"), kwonly("dtype"), kwonly("mask"), kwonly("keepdims", Value::from_bool(false))},
      [name, alu, mean](Interpreter& in, BoundArgs& a) {
        std::string api = std::string("nl.") + name;
        NkiTensorObj& t = tile_arg(a["x"], api, "x");
        return reduce_core(*find_alu_op(alu), t, a["axis"], a["keepdims"].truthy(), false, opt_dtype(a["dtype"], api),
                           api, to_predicate(a["mask"], api), mean);
      });
}

Value nl_matmul(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.matmul";
  NkiTensorObj& x = tile_arg(a["x"], api, "x");
  NkiTensorObj& y = tile_arg(a["y"], api, "y");
  MaskPtr mask = to_predicate(a["mask"], api);
  if (a["transpose_x"].truthy()) return matmul_core(x, y, api, mask, false);
  // x is (M, K): the compiler first transposes it on the Tensor Engine and copies it to SBUF.
  Value xt = transpose_core(x, api, trn::Engine::Tensor, std::nullopt, nullptr);
  Value xts = copy_tile(in, xt, make_dtype(x.dtype()), api);
  return matmul_core(*xts.as<NkiTensorObj>(), y, api, mask, false);
}

Value nl_where(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.where";
  // A [1, F] row among the operands reaches the partitions as in every nl.* API (3.7).
  Value cond_v = a["condition"], x_v = a["x"], y_v = a["y"];
  spread_over_partitions(in, {&cond_v, &x_v, &y_v});
  NkiTensorObj& c = tile_arg(cond_v, api, "condition");
  NkiTensorObj* x = x_v.as<NkiTensorObj>();
  NkiTensorObj* y = y_v.as<NkiTensorObj>();
  tensor::Shape space = c.shape();
  if (x) space = partition_broadcast(space, tile_arg(x_v, api, "x").shape(), api);
  if (y) space = partition_broadcast(space, tile_arg(y_v, api, "y").shape(), api);
  tensor::DType dflt = x ? x->dtype() : y ? y->dtype() : tensor::DType::Float32;
  tensor::DType out = dtype_arg(a["dtype"], dflt, api);
  Instruction ins(api, trn::Opcode::Select, trn::Engine::Vector, space, to_predicate(a["mask"], api));
  auto operand = [&](const Value& v, NkiTensorObj* t) {
    if (t) return ins.input(*t);
    auto s = scalar_arg(v);
    if (!s) throw NkiError(ErrorKind::Type, "x and y of nl.where must be tiles or scalars");
    return tensor::Array::scalar(tensor::DType::Float64, *s);
  };
  tensor::Array cv = ins.input(c), xv = operand(x_v, x), yv = operand(y_v, y);
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Shape s = ins.box().shape();
    tensor::Array cb = tensor::astype(tensor::broadcast_to(cv, s), tensor::DType::Float64);
    tensor::Array xb = tensor::astype(tensor::broadcast_to(xv, s), tensor::DType::Float64);
    tensor::Array yb = tensor::astype(tensor::broadcast_to(yv, s), tensor::DType::Float64);
    const double *cp = cb.f64(), *xp = xb.f64(), *yp = yb.f64();
    std::vector<double> vals(size_t(cb.size()));
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = cp[i] != 0 ? xp[i] : yp[i];
    r = tensor::Array::from_values(s, tensor::DType::Float64, vals);
  }
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

Value nl_loop_reduce(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.loop_reduce";
  NkiTensorObj& t = tile_arg(a["x"], api, "x");
  const AluOp& op = binary_alu_op(a["op"], api, "op");
  // First iteration of every listed loop: the destination is overwritten (nki-language.md 3.6).
  bool first = true;
  std::vector<Value> indices;
  if (auto* l = a["loop_indices"].as<ListObj>()) indices = l->items;
  else if (auto* tu = a["loop_indices"].as<TupleObj>()) indices = tu->items;
  else indices = {a["loop_indices"]};
  for (auto& i : indices) {
    auto e = to_index_expr(i);
    if (!e || !e->terms.empty() || e->c0 != 0) first = false;
  }
  // The first execution writes x: a copy. Every later one is `dest = op(dest, x)`, the
  // tensor_tensor of that op (nki-language.md 7.7), and is recorded as one: a tensor_tensor's cost
  // depends on its operation (16-bit max streams at 2N, add at N; ISA), so a loop_reduce that left
  // it out was priced as an add whatever its op (issue 11: 2x on trn2 for a 16-bit running max).
  Instruction ins(api, first ? trn::Opcode::TensorCopy : trn::Opcode::TensorTensor, trn::Engine::Vector, t.shape(),
                  to_predicate(a["mask"], api));
  tensor::Array v = ins.input(t);
  if (auto* info = ins.info(); info && !first) {
    info->flops = uint64_t(ins.box().elements());
    info->alu = trn::alu_of(*op.binary);
  }
  Value r = ins.result(dtype_arg(a["dtype"], t.dtype(), api), trn::BufferKind::Sbuf, v);
  r.as<NkiTensorObj>()->loop_reduce = LoopReduceInfo{*op.binary, first};
  return r;
}

// softmax(x) = exp(x - max(x)) / sum(exp(x - max(x))) over `axis`, as the instruction sequence the
// tutorials use.
Value nl_softmax(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.softmax";
  require_fp32_compute(a["compute_dtype"], api);
  NkiTensorObj& x = tile_arg(a["x"], api, "x");
  MaskPtr mask = to_predicate(a["mask"], api);
  Value mx = reduce_core(*find_alu_op("max"), x, a["axis"], true, true, tensor::DType::Float32, api, mask);
  ActivationArgs act;
  act.func = find_alu_op("exp");
  act.bias = mx;
  Value e = activation_core(x, act, api, tensor::DType::Float32, mask);
  Value s = reduce_core(*find_alu_op("add"), *e.as<NkiTensorObj>(), a["axis"], true, false, tensor::DType::Float32,
                        api, mask);
  Value rs = elementwise_unary(in, tensor::UnaryOp::Reciprocal, s, api);
  return elementwise_binary(in, tensor::BinaryOp::Mul, e, rs, api, a["dtype"].is_none() ? make_dtype(x.dtype()) : a["dtype"],
                            mask);
}

}  // namespace

void add_math_functions(ModuleObj& m) {
  using B = tensor::BinaryOp;
  using U = tensor::UnaryOp;
  const std::pair<const char*, B> binaries[] = {
      {"add", B::Add}, {"subtract", B::Sub}, {"multiply", B::Mul}, {"divide", B::Div}, {"power", B::Pow},
      {"maximum", B::Maximum}, {"minimum", B::Minimum}, {"mod", B::Mod}, {"fmod", B::Fmod},
      {"bitwise_and", B::BitAnd}, {"bitwise_or", B::BitOr}, {"bitwise_xor", B::BitXor}, {"left_shift", B::LShift},
      {"right_shift", B::RShift}, {"equal", B::Eq}, {"not_equal", B::Ne}, {"greater", B::Gt},
      {"greater_equal", B::Ge}, {"less", B::Lt}, {"less_equal", B::Le}, {"logical_and", B::LogicalAnd},
      {"logical_or", B::LogicalOr}, {"logical_xor", B::LogicalXor},
  };
  for (auto& [name, op] : binaries) add_binary(m, name, op);
  const std::pair<const char*, U> unaries[] = {
      {"exp", U::Exp}, {"log", U::Log}, {"sqrt", U::Sqrt}, {"rsqrt", U::Rsqrt}, {"square", U::Square},
      {"reciprocal", U::Reciprocal}, {"abs", U::Abs}, {"negative", U::Neg}, {"sign", U::Sign}, {"trunc", U::Trunc},
      {"floor", U::Floor}, {"ceil", U::Ceil}, {"sin", U::Sin}, {"cos", U::Cos}, {"tan", U::Tan}, {"tanh", U::Tanh},
      {"arctan", U::Arctan}, {"sigmoid", U::Sigmoid}, {"relu", U::Relu}, {"gelu", U::Gelu}, {"gelu_dx", U::GeluDx},
      {"gelu_apprx_tanh", U::GeluApproxTanh}, {"gelu_apprx_sigmoid", U::GeluApproxSigmoid},
      {"gelu_apprx_sigmoid_dx", U::GeluApproxSigmoidDx}, {"silu", U::Silu},
      {"silu_dx", U::SiluDx}, {"erf", U::Erf}, {"erf_dx", U::ErfDx}, {"softplus", U::Softplus}, {"mish", U::Mish},
      {"logical_not", U::LogicalNot}, {"invert", U::Invert},
  };
  for (auto& [name, op] : unaries) add_unary(m, name, op);
  add_reduction(m, "sum", "add", false);
  add_reduction(m, "max", "max", false);
  add_reduction(m, "min", "min", false);
  add_reduction(m, "prod", "prod", false);
  add_reduction(m, "mean", "add", true);
  def(m, kNl, "matmul", {req("x"), req("y"), kwonly("transpose_x", Value::from_bool(false)), kwonly("mask")}, nl_matmul);
  def(m, kNl, "transpose", {req("x"), kwonly("dtype"), kwonly("mask")}, [](Interpreter&, BoundArgs& a) {
    NkiTensorObj& t = tile_arg(a["x"], "nl.transpose", "x");
    return transpose_core(t, "nl.transpose", std::nullopt, opt_dtype(a["dtype"], "nl.transpose"),
                          to_predicate(a["mask"], "nl.transpose"));
  });
  def(m, kNl, "where", {req("condition"), req("x"), req("y"), kwonly("dtype"), kwonly("mask")}, nl_where);
  def(m, kNl, "loop_reduce", {req("x"), req("op"), req("loop_indices"), kwonly("dtype"), kwonly("mask")}, nl_loop_reduce);
  def(m, kNl, "softmax", {req("x"), req("axis"), kwonly("dtype"), kwonly("compute_dtype"), kwonly("mask")}, nl_softmax);
}

}  // namespace nki::lib
