// The engine of an elementwise unary language function (`nl.negative(x)`, `-x`, `nl.exp(x)`, ...).
// The Vector Engine's ALU flips a sign, takes an absolute value, rounds, negates a predicate or
// the bits, and copies in one tensor_scalar pass; every other unary function is a lookup in the
// Scalar Engine's activation table. One place for both readers: the interpreter records the
// instruction on this engine (src/nki/lib/language_ops.cpp) and the loop-nest form says it runs
// there (src/loopnest/api.cpp), so the form's engine is the one the profile shows.
// Header-only: the language core includes it without the simulator.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

#include "tensor/ops.h"

namespace trn {

struct VectorUnary {
  std::string_view name;  // the language function, `nl.<name>`
  tensor::UnaryOp op;
};

inline constexpr std::array<VectorUnary, 9> vector_unaries = {{
    {"negative", tensor::UnaryOp::Neg},
    {"abs", tensor::UnaryOp::Abs},
    {"floor", tensor::UnaryOp::Floor},
    {"ceil", tensor::UnaryOp::Ceil},
    {"trunc", tensor::UnaryOp::Trunc},
    {"logical_not", tensor::UnaryOp::LogicalNot},
    {"invert", tensor::UnaryOp::Invert},
    {"bitwise_not", tensor::UnaryOp::Invert},
    {"copy", tensor::UnaryOp::Copy},
}};

// Whether the Vector Engine (not the Scalar Engine's activation table) runs this unary function.
inline bool unary_on_vector_engine(tensor::UnaryOp op) {
  return std::any_of(vector_unaries.begin(), vector_unaries.end(), [op](const VectorUnary& u) { return u.op == op; });
}
inline bool unary_on_vector_engine(std::string_view function) {
  return std::any_of(vector_unaries.begin(), vector_unaries.end(),
                     [function](const VectorUnary& u) { return u.name == function; });
}

}  // namespace trn
