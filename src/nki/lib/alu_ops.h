// ALU operators and activation functions named by `op=`, `op0=`, `reduce_op=` arguments: the
// nl.* function objects and the numpy ufuncs accepted as aliases (np.add, np.max, np.exp, ...).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "nki/value.h"
#include "tensor/ops.h"
#include "trn/alu_engines.h"
#include "trn/trace.h"

namespace nki::lib {

struct AluOp {
  std::string_view name;                      // canonical nl name: "add", "maximum", "exp"
  std::optional<tensor::BinaryOp> binary;     // as a two-operand ALU op
  std::optional<tensor::ReduceOp> reduce;     // as a reduction operator
  std::optional<tensor::UnaryOp> unary;       // as an activation function
  uint16_t activation_id = 0;                 // trace id of the activation function (0 = identity)
  bool bitvec = false;                        // integer bit-pattern op
  // A language API (nl.divide(x, y), nl.mod, nl.fmod) with no row in the ISA operator table
  // (nki-language.md 9.1): no op=, op0= or op1= of a nisa.* instruction takes it. The interpreter
  // refuses it there (alu_op) and the loop-nest moves never print it there (isa_operator).
  bool language_only = false;
};

// The operator an argument names; Type error naming `api`/`what` when it names none.
const AluOp& alu_op(const Value& v, std::string_view api, std::string_view what);
// The same for an operand slot that takes a binary operator (an instruction's op0/op1, a
// reduction's op): Type error "op0 of nisa.tensor_scalar must be a binary ALU operator" when it
// has no binary form. The one place this is checked: the cores take the operator as given.
const AluOp& binary_alu_op(const Value& v, std::string_view api, std::string_view what);
// The same for a tensor_scalar step (op0/op1): a binary operator, or a unary ALU operator (rsqrt,
// reciprocal, abs: nki-language.md 9.1), which computes op(data) and ignores its dummy operand.
// An activation-only function (nl.exp) is a Type error saying so.
const AluOp& scalar_step_op(const Value& v, std::string_view api, std::string_view what);
// The step a step operator (binary or unary ALU operator) is to the engine table and the trace.
trn::AluStep step_alu(const AluOp& op);
// Lookup by bare name ("add", "amax", "true_divide"); nullptr if unknown.
const AluOp* find_alu_op(std::string_view name);

// Applies a binary ALU op element-wise in the engines' float32 (or integer for bitvec ops).
tensor::Array apply_binary(tensor::BinaryOp op, const tensor::Array& a, const tensor::Array& b, tensor::DType out);

// Bitvec ops (bitwise and/or/xor, shifts) work on raw integer bits: "bitvec requires integer
// dtypes" (nki-language.md 8.3). A float input or result is refused with a Rule error naming
// `api`, including the quiet case of promotion (int32 with uint32 -> float32, 3.8).
// `inputs`: the dtypes of the tile operands (scalars are weak and do not count).
void check_bitvec_dtypes(tensor::BinaryOp op, std::initializer_list<tensor::DType> inputs, tensor::DType out,
                         std::string_view api);
bool is_bitvec(tensor::BinaryOp op);

// The engine an instruction applying `ops` to `out`-typed data runs on, by the ISA table
// (trn/alu_engines.h): the kernel's engine= when given, refused with a Rule error naming `api`
// when the table does not let that engine run it; otherwise the compiler's pick.
trn::Engine place_alu(trn::AluForm form, std::initializer_list<tensor::BinaryOp> ops, tensor::DType out,
                      std::optional<trn::Engine> user, std::string_view api);
trn::Engine place_alu(trn::AluForm form, std::span<const trn::AluStep> steps, tensor::DType out,
                      std::optional<trn::Engine> user, std::string_view api);

// One ALU op on two scalars in double (callers round to float32 per step).
double apply_scalar(tensor::BinaryOp op, double a, double b);

}  // namespace nki::lib
