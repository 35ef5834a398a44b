// Instruction implementations shared by nki.language and nki.isa: Tensor Engine matmul and
// transpose, free-axis reductions, tensor_scalar, tensor_tensor, activation and scans.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "nki/lib/alu_ops.h"
#include "nki/lib/index_expr.h"
#include "nki/lib/nki_tensor.h"

namespace nki::lib {

using MaskPtr = std::shared_ptr<const Predicate>;

// stationary (K, M), moving (K, N) -> PSUM (M, N) = stationary.T @ moving, fp32.
// `stationary_onezero` / `moving_onezero`: nc_matmul's hints that the operand holds only ones and
// zeros (recorded in the trace: the cost model halves fp32 passes for them). `pe_cells`: the PE
// sub-arrays of its tile_position / tile_size (trn/engine_timeline.h), 0 for the whole grid.
Value matmul_core(const NkiTensorObj& stationary, const NkiTensorObj& moving, std::string_view api, MaskPtr mask,
                  bool is_transpose, bool stationary_onezero = false, bool moving_onezero = false,
                  trn::PeCells pe_cells = 0);
// (P, F) -> (F, P): Tensor Engine (PSUM result) or Vector Engine (SBUF result, <= 32x32).
Value transpose_core(const NkiTensorObj& t, std::string_view api, std::optional<trn::Engine> engine,
                     std::optional<tensor::DType> dtype, MaskPtr mask);
// Reduction over free axes; `negate` multiplies the result by -1.
Value reduce_core(const AluOp& op, const NkiTensorObj& t, const Value& axis, bool keepdims, bool negate,
                  std::optional<tensor::DType> dtype, std::string_view api, MaskPtr mask, bool mean = false);
// An element-wise two-operand instruction with explicit opcode/engine (nisa.tensor_tensor).
Value binary_core(tensor::BinaryOp op, const Value& x, const Value& y, std::string_view api,
                  std::optional<tensor::DType> dtype, MaskPtr mask, trn::Opcode opcode, trn::Engine engine,
                  bool same_partitions);
struct ScalarStep {
  const AluOp* op = nullptr;  // binary (binary_alu_op) or, in tensor_scalar, unary ALU (scalar_step_op); null: none
  Value operand;
  bool reverse = false;
};
// The fused per-partition reduction of nisa.tensor_scalar_reduce: reduce_op over the free axes of
// the instruction's result, written into reduce_res by the same instruction.
struct ScalarReduce {
  const AluOp* op = nullptr;          // a reduction operator (op->reduce)
  const NkiTensorObj* res = nullptr;  // (P, 1) destination, or null: the result is not kept
};
// data <op0> operand0 [<op1> operand1] with scalar or per-partition vector operands. The steps'
// operators are binary or unary ALU ones (the callers take them with binary_alu_op or
// scalar_step_op, the one check). With `reduce`,
// the one instruction also reduces its result into reduce_res (tensor_scalar_reduce).
Value tensor_scalar_core(const NkiTensorObj& data, const ScalarStep& s0, const ScalarStep& s1, std::string_view api,
                         std::optional<tensor::DType> dtype, MaskPtr mask, trn::Engine engine, bool user_engine,
                         const ScalarReduce* reduce = nullptr);
// (data <op0> operand0) <op1> operand1 as ONE Vector Engine instruction (nisa.scalar_tensor_tensor):
// the ISA prices it as one (2N, or N on the bf16 subtract-multiply path), not as the tensor_scalar
// and tensor_tensor it computes.
Value scalar_tensor_tensor_core(const NkiTensorObj& data, const ScalarStep& s0, const AluOp& op1, const Value& operand1,
                                bool reverse1, std::string_view api, std::optional<tensor::DType> dtype, MaskPtr mask);
struct ActivationArgs {
  const AluOp* func = nullptr;
  Value bias, scale = Value::from_float(1.0);
  const AluOp* reduce_op = nullptr;
  const NkiTensorObj* reduce_res = nullptr;
  int reduce_cmd = 0;  // idle=0, reset=1, reduce=2, reset_reduce=3
};
Value activation_core(const NkiTensorObj& data, const ActivationArgs& a, std::string_view api,
                      std::optional<tensor::DType> dtype, MaskPtr mask);
Value scan_core(const NkiTensorObj& d0, const NkiTensorObj& d1, const Value& initial, const AluOp& op0,
                const AluOp& op1, bool reverse0, bool reverse1, std::optional<tensor::DType> dtype, MaskPtr mask);
// Per-partition operand check of nisa.* instructions (no partition broadcast).
void check_same_partitions(const NkiTensorObj& a, const NkiTensorObj& b, std::string_view api, std::string_view an,
                           std::string_view bn);
std::optional<tensor::DType> opt_dtype(const Value& v, std::string_view api);

}  // namespace nki::lib
