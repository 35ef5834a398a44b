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
// nisa.tensor_scalar, tensor_tensor, scalar_tensor_tensor): not a language-only operator of
// nki::lib's ALU table (divide, which "exists as a language API but is not in the ISA operator
// table", nki-language.md 9.1; mod, fmod, absent from it), which the interpreter refuses there.
bool isa_operator(const std::string& op);
// Whether the tile `op` writes holds the value its instruction computed, so that a fold may compute
// that value inside the next instruction instead (whose fp32 math never stores it). A float tile
// does: a narrow one (bf16) rounds it, which the fold skips, the folded result the more precise
// one. An integer tile does when its value is integral anyway: a comparison's 0 / 1, or integers
// combined by add, subtract, multiply, max, min, abs or a bitvec operator with integral numbers.
// Otherwise the write truncates (`nl.multiply(t, 8.0, dtype=nl.int32)`, a quantization): folding
// it away changes the result.
bool keeps_its_value(const Kernel& k, const Op& op);

}  // namespace loopnest
