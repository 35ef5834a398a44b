#include "loopnest/scalar_step.h"

#include "loopnest/api.h"
#include "loopnest/transform.h"
#include "nki/lib/alu_ops.h"

namespace loopnest {

bool commutative(const std::string& op) { return op == "add" || op == "multiply" || op == "maximum" || op == "minimum"; }

bool isa_operator(const std::string& op) { return op != "divide" && op != "true_divide"; }

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
