#include "nki/lib/alu_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace nki::lib {

namespace {

using B = tensor::BinaryOp;
using R = tensor::ReduceOp;
using U = tensor::UnaryOp;

struct Entry {
  const char* alias;
  AluOp op;
};

// Activation ids follow the order of nki-language.md 9.2 (identity = 0) so that traces are stable.
const Entry kOps[] = {
    {"add", {"add", B::Add, R::Sum, std::nullopt, 0, false}},
    {"sum", {"add", B::Add, R::Sum, std::nullopt, 0, false}},
    {"subtract", {"subtract", B::Sub, std::nullopt, std::nullopt, 0, false}},
    {"multiply", {"multiply", B::Mul, R::Prod, std::nullopt, 0, false}},
    {"prod", {"multiply", B::Mul, R::Prod, std::nullopt, 0, false}},
    {"divide", {"divide", B::Div, std::nullopt, std::nullopt, 0, false, true}},
    {"true_divide", {"divide", B::Div, std::nullopt, std::nullopt, 0, false, true}},
    {"maximum", {"maximum", B::Maximum, R::Max, std::nullopt, 0, false}},
    {"max", {"maximum", B::Maximum, R::Max, std::nullopt, 0, false}},
    {"amax", {"maximum", B::Maximum, R::Max, std::nullopt, 0, false}},
    {"minimum", {"minimum", B::Minimum, R::Min, std::nullopt, 0, false}},
    {"min", {"minimum", B::Minimum, R::Min, std::nullopt, 0, false}},
    {"amin", {"minimum", B::Minimum, R::Min, std::nullopt, 0, false}},
    {"power", {"power", B::Pow, std::nullopt, std::nullopt, 0, false}},
    {"mod", {"mod", B::Mod, std::nullopt, std::nullopt, 0, false, true}},
    {"remainder", {"mod", B::Mod, std::nullopt, std::nullopt, 0, false, true}},
    {"fmod", {"fmod", B::Fmod, std::nullopt, std::nullopt, 0, false, true}},
    {"equal", {"equal", B::Eq, std::nullopt, std::nullopt, 0, false}},
    {"not_equal", {"not_equal", B::Ne, std::nullopt, std::nullopt, 0, false}},
    {"greater", {"greater", B::Gt, std::nullopt, std::nullopt, 0, false}},
    {"greater_equal", {"greater_equal", B::Ge, std::nullopt, std::nullopt, 0, false}},
    {"less", {"less", B::Lt, std::nullopt, std::nullopt, 0, false}},
    {"less_equal", {"less_equal", B::Le, std::nullopt, std::nullopt, 0, false}},
    {"logical_and", {"logical_and", B::LogicalAnd, std::nullopt, std::nullopt, 0, false}},
    {"logical_or", {"logical_or", B::LogicalOr, std::nullopt, std::nullopt, 0, false}},
    {"logical_xor", {"logical_xor", B::LogicalXor, std::nullopt, std::nullopt, 0, false}},
    {"bitwise_and", {"bitwise_and", B::BitAnd, std::nullopt, std::nullopt, 0, true}},
    {"bitwise_or", {"bitwise_or", B::BitOr, std::nullopt, std::nullopt, 0, true}},
    {"bitwise_xor", {"bitwise_xor", B::BitXor, std::nullopt, std::nullopt, 0, true}},
    {"left_shift", {"left_shift", B::LShift, std::nullopt, std::nullopt, 0, true}},
    {"right_shift", {"right_shift", B::RShift, std::nullopt, std::nullopt, 0, true}},
    {"copy", {"copy", std::nullopt, std::nullopt, U::Copy, 0, false}},
    {"identity", {"copy", std::nullopt, std::nullopt, U::Copy, 0, false}},
    {"square", {"square", std::nullopt, std::nullopt, U::Square, 1, false}},
    {"sigmoid", {"sigmoid", std::nullopt, std::nullopt, U::Sigmoid, 2, false}},
    {"relu", {"relu", std::nullopt, std::nullopt, U::Relu, 3, false}},
    {"gelu", {"gelu", std::nullopt, std::nullopt, U::Gelu, 4, false}},
    {"gelu_dx", {"gelu_dx", std::nullopt, std::nullopt, U::GeluDx, 5, false}},
    {"gelu_apprx_tanh", {"gelu_apprx_tanh", std::nullopt, std::nullopt, U::GeluApproxTanh, 6, false}},
    {"gelu_apprx_sigmoid", {"gelu_apprx_sigmoid", std::nullopt, std::nullopt, U::GeluApproxSigmoid, 7, false}},
    {"silu", {"silu", std::nullopt, std::nullopt, U::Silu, 8, false}},
    {"silu_dx", {"silu_dx", std::nullopt, std::nullopt, U::SiluDx, 9, false}},
    {"tanh", {"tanh", std::nullopt, std::nullopt, U::Tanh, 10, false}},
    {"softplus", {"softplus", std::nullopt, std::nullopt, U::Softplus, 11, false}},
    {"mish", {"mish", std::nullopt, std::nullopt, U::Mish, 12, false}},
    {"erf", {"erf", std::nullopt, std::nullopt, U::Erf, 13, false}},
    {"erf_dx", {"erf_dx", std::nullopt, std::nullopt, U::ErfDx, 14, false}},
    {"exp", {"exp", std::nullopt, std::nullopt, U::Exp, 15, false}},
    {"log", {"log", std::nullopt, std::nullopt, U::Log, 16, false}},
    {"sin", {"sin", std::nullopt, std::nullopt, U::Sin, 17, false}},
    {"arctan", {"arctan", std::nullopt, std::nullopt, U::Arctan, 18, false}},
    {"sqrt", {"sqrt", std::nullopt, std::nullopt, U::Sqrt, 19, false}},
    {"rsqrt", {"rsqrt", std::nullopt, std::nullopt, U::Rsqrt, 20, false}},
    {"reciprocal", {"reciprocal", std::nullopt, std::nullopt, U::Reciprocal, 21, false}},
    {"sign", {"sign", std::nullopt, std::nullopt, U::Sign, 22, false}},
    {"abs", {"abs", std::nullopt, std::nullopt, U::Abs, 23, false}},
    {"absolute", {"abs", std::nullopt, std::nullopt, U::Abs, 23, false}},
    {"cos", {"cos", std::nullopt, std::nullopt, U::Cos, 24, false}},
    {"tan", {"tan", std::nullopt, std::nullopt, U::Tan, 25, false}},
    {"negative", {"negative", std::nullopt, std::nullopt, U::Neg, 26, false}},
    {"floor", {"floor", std::nullopt, std::nullopt, U::Floor, 27, false}},
    {"ceil", {"ceil", std::nullopt, std::nullopt, U::Ceil, 28, false}},
    {"trunc", {"trunc", std::nullopt, std::nullopt, U::Trunc, 29, false}},
    {"logical_not", {"logical_not", std::nullopt, std::nullopt, U::LogicalNot, 30, false}},
    {"invert", {"invert", std::nullopt, std::nullopt, U::Invert, 31, true}},
    {"gelu_apprx_sigmoid_dx", {"gelu_apprx_sigmoid_dx", std::nullopt, std::nullopt, U::GeluApproxSigmoidDx, 32, false}},
};

// "np.add" / "nl.add" / "numpy.add" -> "add"; "<ufunc 'add'>" -> "add".
std::string_view bare_name(std::string_view s) {
  if (auto q = s.find('\''); q != std::string_view::npos) {
    auto q2 = s.find('\'', q + 1);
    if (q2 != std::string_view::npos) return s.substr(q + 1, q2 - q - 1);
  }
  if (auto dot = s.rfind('.'); dot != std::string_view::npos) return s.substr(dot + 1);
  return s;
}

}  // namespace

const AluOp* find_alu_op(std::string_view name) {
  for (auto& e : kOps)
    if (name == e.alias) return &e.op;
  return nullptr;
}

const AluOp& alu_op(const Value& v, std::string_view api, std::string_view what) {
  const AluOp* op = nullptr;
  if (auto* b = v.as<BuiltinObj>()) op = find_alu_op(bare_name(b->name));
  else if (v.is_object() && !v.is(ObjType::Str)) {
    std::string r = v.repr();
    op = find_alu_op(bare_name(r));
  }
  if (!op) throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be an ALU operator such as nl.add or np.add, "
                                                       "got {}", what, api, v.repr()));
  // "nl.divide exists as a language API but is not in the ISA operator table" (nki-language.md
  // 9.1), and the table has no remainder either (nl.mod, nl.fmod are language APIs only, 7.3): an
  // instruction's operator slot does not take them, whatever the engine. The language calls
  // (nl.divide(x, y), `/`, nl.mod, `%`) stay valid; they do not come through here.
  if (op->language_only && api.starts_with("nisa.")) {
    if (op->name == "divide")
      throw NkiError(ErrorKind::Rule, fmt::format("{} of {} cannot be a divide: nl.divide is a language API, not an "
                                                  "operator of the ISA table (nki-language.md 9.1); divide with "
                                                  "nl.divide(x, y), or multiply by nl.reciprocal (a unary "
                                                  "tensor_scalar step with a dummy operand)", what, api));
    throw NkiError(ErrorKind::Rule, fmt::format("{} of {} cannot be nl.{}: a language API, not an operator of the ISA "
                                                "table (nki-language.md 9.1); call nl.{}(x, y) instead", what, api,
                                                op->name, op->name));
  }
  return *op;
}

const AluOp& binary_alu_op(const Value& v, std::string_view api, std::string_view what) {
  const AluOp& op = alu_op(v, api, what);
  if (!op.binary) throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be a binary ALU operator", what, api));
  return op;
}

const AluOp& scalar_step_op(const Value& v, std::string_view api, std::string_view what) {
  const AluOp& op = alu_op(v, api, what);
  if (op.binary || (op.unary && trn::unary_alu_row(*op.unary))) return op;
  throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be an ALU operator (a binary one, or rsqrt, reciprocal "
                                              "or abs), got {}: an activation function runs in nisa.activation",
                                              what, api, op.name));
}

trn::AluStep step_alu(const AluOp& op) {
  if (op.binary) return {trn::alu_of(*op.binary), std::nullopt};
  return {trn::alu_of(*op.unary), op.unary};
}

bool is_bitvec(tensor::BinaryOp op) {
  return op == B::BitAnd || op == B::BitOr || op == B::BitXor || op == B::LShift || op == B::RShift;
}

namespace {

const char* engine_name(trn::Engine e) {
  switch (e) {
    case trn::Engine::Vector: return "Vector";
    case trn::Engine::Scalar: return "Scalar";
    case trn::Engine::GpSimd: return "GpSimd";
    case trn::Engine::Tensor: return "Tensor";
    default: return trn::to_string(e);
  }
}

std::string engine_list(trn::EngineSet set) {
  std::string s;
  for (trn::Engine e : {trn::Engine::Vector, trn::Engine::Scalar, trn::Engine::GpSimd})
    if (set & trn::engine_bit(e)) s += fmt::format("{}{}", s.empty() ? "" : " or ", engine_name(e));
  return s;
}

}  // namespace

trn::Engine place_alu(trn::AluForm form, std::initializer_list<tensor::BinaryOp> ops, tensor::DType out,
                      std::optional<trn::Engine> user, std::string_view api) {
  std::vector<trn::AluStep> steps;
  for (auto op : ops) steps.push_back({trn::alu_of(op), std::nullopt});
  return place_alu(form, steps, out, user, api);
}

trn::Engine place_alu(trn::AluForm form, std::span<const trn::AluStep> steps, tensor::DType out,
                      std::optional<trn::Engine> user, std::string_view api) {
  trn::AluPlacement p = trn::alu_placement(form, steps, trn::is_integer32(out));
  if (!user) return p.chosen;
  if (!(p.allowed & trn::engine_bit(*user))) {
    // One engine, an operator's own row or ScalarE's pair rule: the operation is the reason ("with
    // a bitvec operator runs on the Vector Engine only", "with op rsqrt runs on the Scalar or GpSimd").
    if (std::popcount(p.allowed) == 1 || p.row == &trn::scalar_tensor_scalar_row || p.row->ops != trn::kAnyAlu)
      throw NkiError(ErrorKind::Rule, fmt::format("{} with {} runs on the {} Engine only, not on the {} Engine", api,
                                                  p.row->what, engine_list(p.allowed), engine_name(*user)));
    throw NkiError(ErrorKind::Rule, fmt::format("{} runs on the {} Engine, not on the {} Engine", api,
                                                engine_list(p.allowed), engine_name(*user)));
  }
  return *user;
}

void check_bitvec_dtypes(tensor::BinaryOp op, std::initializer_list<tensor::DType> inputs, tensor::DType out,
                         std::string_view api) {
  if (!is_bitvec(op)) return;
  const char* name = op == B::BitAnd ? "bitwise_and" : op == B::BitOr ? "bitwise_or" : op == B::BitXor ? "bitwise_xor"
                     : op == B::LShift ? "left_shift" : "right_shift";
  auto bits = [](tensor::DType d) { return tensor::is_integer(d) || d == tensor::DType::Bool; };
  for (tensor::DType in : inputs)
    if (!bits(in))
      throw NkiError(ErrorKind::Rule, fmt::format("{} ({}) is a bitvec operation on raw integer bits and needs "
                                                  "integer operands, got a {} tile",
                                                  api, name, tensor::name(in)));
  if (bits(out)) return;
  std::string why;
  std::vector<tensor::DType> ins(inputs);
  if (ins.size() == 2 && ins[0] != ins[1])
    why = fmt::format(" ({} with {} promotes to {})", tensor::name(ins[0]), tensor::name(ins[1]), tensor::name(out));
  else if (ins.size() == 1 && tensor::itemsize(ins[0]) == 4 && !tensor::is_signed(ins[0]))
    why = fmt::format(" ({} with a Python int, taken as int32, promotes to {})", tensor::name(ins[0]), tensor::name(out));
  throw NkiError(ErrorKind::Rule, fmt::format("{} ({}) is a bitvec operation on raw integer bits and needs an integer "
                                              "result, but its result dtype is {}{}: use a typed scalar such as "
                                              "np.uint32(13), or dtype= an integer type on the call",
                                              api, name, tensor::name(out), why));
}

namespace {

// A 32-bit integer add, subtract or multiply runs on GpSimd's integer lanes ("32-bit integer
// add/subtract/multiply run on GpSimd", nki-language.md 8.3; "16x FP32/INT32 lanes",
// trainium-performance.md §2, the ALU table's row in trn/alu_engines.h): exact, where the fp32
// datapath of the other engines rounds above 2^24. An outside author's gather index, a row base
// of up to 33.5M plus a label, came out one element off. A scalar operand counts as integer when
// its value is whole.
bool integer_lanes(tensor::BinaryOp op, const tensor::Array& a, const tensor::Array& b, tensor::DType out) {
  if (op != B::Add && op != B::Sub && op != B::Mul) return false;
  if (!trn::is_integer32(out) || !tensor::is_integer(a.dtype())) return false;
  if (tensor::is_integer(b.dtype())) return true;
  if (b.size() != 1) return false;
  double v = b.item();
  return std::isfinite(v) && v == std::trunc(v);
}

}  // namespace

tensor::Array apply_binary(tensor::BinaryOp op, const tensor::Array& a, const tensor::Array& b, tensor::DType out) {
  const bool exact = is_bitvec(op) || integer_lanes(op, a, b, out) || integer_lanes(op, b, a, out);
  return tensor::binary(op, a, b, exact ? tensor::DType::Int64 : tensor::DType::Float32, out);
}

double apply_scalar(tensor::BinaryOp op, double a, double b) {
  switch (op) {
    case B::Add: return a + b;
    case B::Sub: return a - b;
    case B::Mul: return a * b;
    case B::Div: return a / b;
    case B::Maximum: return std::max(a, b);
    case B::Minimum: return std::min(a, b);
    case B::Pow: return std::pow(a, b);
    case B::Eq: return a == b;
    case B::Ne: return a != b;
    case B::Lt: return a < b;
    case B::Le: return a <= b;
    case B::Gt: return a > b;
    case B::Ge: return a >= b;
    default: break;
  }
  tensor::Array la = tensor::Array::scalar(tensor::DType::Float64, a), ra = tensor::Array::scalar(tensor::DType::Float64, b);
  return tensor::binary(op, la, ra, tensor::DType::Float64, tensor::DType::Float64).item();
}

}  // namespace nki::lib
