// The form's reading of the ISA engine table (trn/alu_engines.h): which ALU operations an
// elementwise instruction applies, in which instruction (tensor_tensor or tensor_scalar), on which
// data, decided as the interpreter decides them, so that the engine the lift gives an operation
// and the moves engine_assign offers are the ones the trace and the check use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loopnest/form.h"
#include "trn/alu_engines.h"

namespace loopnest {

struct AluUse {
  trn::AluForm form = trn::AluForm::TensorTensor;
  std::vector<trn::AluStep> ops;  // tensor_scalar: op0 then op1 (a unary ALU operator there too)
  bool integer32 = false;       // the result is a 32-bit integer (int32, uint32)
  trn::AluPlacement placement() const { return trn::alu_placement(form, ops, integer32); }
};

// nisa.tensor_tensor, nisa.tensor_scalar and the binary language functions (nl.add(x, y), and
// the operators the lift spells as them): a tile with a tile is a tensor_tensor, with a number or
// a [P, 1] tile a tensor_scalar (language_ops.cpp). `result_dtype` is the data the instruction
// writes ("" : the op's dtype=, result or destination tensor). nullopt for other operations and
// operators given as something other than a name.
std::optional<AluUse> alu_use(const Kernel& k, const Op& op, const std::string& result_dtype = "");

// The engine the compiler picks for the op (the table's), or its API's engine for other operations.
Engine default_engine(const Kernel& k, const Op& op, const std::string& result_dtype = "");

// Whether the ISA table lets engine `e` run the op's ALU operations (true for other operations).
bool alu_may_run_on(const Kernel& k, const Op& op, Engine e);

trn::Engine to_trn(Engine e);
Engine from_trn(trn::Engine e);

}  // namespace loopnest
