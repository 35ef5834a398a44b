// One scalar step of an elementwise chain, whatever its spelling: a single-op
// nisa.tensor_scalar, an nl.X of a tile and a number (or a column), or a reciprocal. The folds
// (fold.cpp) and fold_scale_through_reduce read chains through it.
#pragma once

#include <optional>
#include <string>

#include "loopnest/form.h"

namespace loopnest {

// One scalar step `data op operand` (reverse: `operand op data`): a single-op tensor_scalar, an
// nl.X of a tile and a number, or a reciprocal (op "reciprocal", unary: its operand is the dummy
// 1.0 a tensor_scalar step takes, nki-language.md 9.1). An nl.divide step has op "divide", which
// is no ISA operator: a move prints it only as nl.divide (isa_operator).
struct ScalarStep {
  const Operand* data = nullptr;
  std::string op;
  Operand operand;
  bool reverse = false;
  std::string data_param;  // the parameter holding `data`
};
std::optional<ScalarStep> scalar_step(const Op& op);
// Whether an ALU operator's operands may swap (add, multiply, maximum, minimum).
bool commutative(const std::string& op);
// Whether a move may print `op` as the operator of an ISA instruction (op=, op0=, op1= of
// nisa.tensor_scalar, tensor_tensor, scalar_tensor_tensor): not divide, which "exists as a
// language API but is not in the ISA operator table" (nki-language.md 9.1); the interpreter
// refuses it there (alu_ops.cpp).
bool isa_operator(const std::string& op);

}  // namespace loopnest
