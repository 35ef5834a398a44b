#include "loopnest/scalar_step.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "loopnest/analysis.h"
#include "loopnest/api.h"
#include "loopnest/transform.h"
#include "nki/lib/alu_ops.h"
#include "tensor/dtype.h"

namespace loopnest {

bool commutative(const std::string& op) { return op == "add" || op == "multiply" || op == "maximum" || op == "minimum"; }

bool isa_operator(const std::string& op) {
  const auto* alu = nki::lib::find_alu_op(operator_symbol(op));
  return !alu || !alu->language_only;
}

namespace {

// The ALU operators an elementwise instruction applies (tensor_scalar's op0 and op1, a tensor_tensor's
// op, a language call's own); empty for any other operation.
std::vector<std::string> alu_operators(const Op& op) {
  if (op.api == "nisa.tensor_scalar") {
    std::vector<std::string> out;
    for (const char* p : {"op0", "op1"})
      if (std::string s = symbol_of(op, p); !s.empty()) out.push_back(operator_symbol(s));
    return out;
  }
  if (op.api == "nisa.tensor_tensor") return {operator_symbol(symbol_of(op, "op"))};
  if (is_binary_language_op(op.api) || op.api == "nl.abs" || op.api == "nl.negative" || op.api == "nl.copy" ||
      op.api == "nisa.tensor_copy")
    return {operator_symbol(op.api)};
  return {};
}

bool integer_dtype(const std::string& dtype) {
  auto d = tensor::parse_dtype(dtype);
  return d && !tensor::is_float(*d);
}

}  // namespace

bool keeps_its_value(const Kernel& k, const Op& op) {
  if (!op.dst) return true;
  if (!integer_dtype(k.tensor(storage_of(k, op.dst->tensor)).dtype)) return true;
  static const std::set<std::string> zero_one = {"equal", "not_equal", "greater", "greater_equal", "less",
                                                 "less_equal", "logical_and", "logical_or", "logical_xor"};
  static const std::set<std::string> integral = {"add", "subtract", "multiply", "maximum", "minimum", "abs",
                                                 "negative", "copy", "tensor_copy", "bitwise_and", "bitwise_or",
                                                 "bitwise_xor", "left_shift", "right_shift"};
  const auto ops = alu_operators(op);
  if (ops.empty()) return false;
  if (std::all_of(ops.begin(), ops.end(), [](const std::string& o) { return zero_one.count(o) > 0; })) return true;
  if (!std::all_of(ops.begin(), ops.end(), [](const std::string& o) { return integral.count(o) > 0; })) return false;
  for (const auto& a : op.args) {
    if (a.output) continue;
    if (a.value.kind == Operand::Kind::Tile &&
        !integer_dtype(k.tensor(storage_of(k, a.value.access.tensor)).dtype))
      return false;
    if (a.value.kind == Operand::Kind::Number && std::floor(a.value.number) != a.value.number) return false;
  }
  return true;
}

std::optional<ScalarStep> scalar_step(const Op& op) {
  if (op.api == "nisa.tensor_scalar") {
    const Operand* data = operand(op, "data");
    if (!data || data->kind != Operand::Kind::Tile || op.arg("op1")) return std::nullopt;
    if (const Operand* o1 = operand(op, "op1"); o1 && o1->kind != Operand::Kind::None) return std::nullopt;
    const Operand* c = operand(op, "operand0");
    if (!c || (c->kind != Operand::Kind::Number && c->kind != Operand::Kind::Tile)) return std::nullopt;
    ScalarStep s{data, symbol_of(op, "op0"), *c, symbol_of(op, "reverse0") == "True", "data"};
    // A unary ALU step (op0=nl.rsqrt with a dummy operand) is no `data op operand`: the folds
    // would carry it into a scalar_tensor_tensor, which takes binary operators only.
    if (const auto* alu = nki::lib::find_alu_op(operator_symbol(s.op)); alu && !alu->binary) return std::nullopt;
    return s.op.empty() ? std::nullopt : std::optional<ScalarStep>(s);
  }
  if (op.api == "nisa.reciprocal" || op.api == "nl.reciprocal") {
    const char* p = op.api == "nisa.reciprocal" ? "data" : "x";
    const Operand* data = operand(op, p);
    if (!data || data->kind != Operand::Kind::Tile) return std::nullopt;
    // The unary ALU operator reciprocal with a dummy operand (nki-language.md 9.1), as a fold
    // prints it: not "1.0 divide data", since divide is no ISA operator (9.1).
    return ScalarStep{data, "reciprocal", number_operand(1.0), false, p};
  }
  if (is_binary_language_op(op.api)) {
    const Operand *x = operand(op, "x"), *y = operand(op, "y");
    if (!x || !y) return std::nullopt;
    std::string o = operator_symbol(op.api);
    if (x->kind == Operand::Kind::Tile && y->kind == Operand::Kind::Number) return ScalarStep{x, o, *y, false, "x"};
    if (y->kind == Operand::Kind::Tile && x->kind == Operand::Kind::Number) return ScalarStep{y, o, *x, !commutative(o), "y"};
  }
  return std::nullopt;
}

}  // namespace loopnest
