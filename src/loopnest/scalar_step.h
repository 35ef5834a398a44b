// One scalar step of an elementwise chain, whatever its spelling: a single-op
// nisa.tensor_scalar, an nl.X of a tile and a number (or a column), or a reciprocal. The folds
// (fold.cpp) and fold_scale_through_reduce read chains through it.
#pragma once

#include <optional>
#include <string>

#include "loopnest/form.h"

namespace loopnest {

// One scalar step `data op operand` (reverse: `operand op data`): a single-op tensor_scalar, an
// nl.X of a tile and a number, or a reciprocal (1 / data).
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

}  // namespace loopnest
