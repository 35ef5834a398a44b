#include "nki/lib/compute_ops.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/instruction.h"
#include "trn/tile_limits.h"

namespace nki::lib {

using tensor::DType;

std::optional<tensor::DType> opt_dtype(const Value& v, std::string_view api) {
  if (v.is_none()) return std::nullopt;
  return to_dtype(v, api);
}

void check_same_partitions(const NkiTensorObj& a, const NkiTensorObj& b, std::string_view api, std::string_view an,
                           std::string_view bn) {
  int64_t pa = a.shape().empty() ? 1 : a.shape()[0], pb = b.shape().empty() ? 1 : b.shape()[0];
  if (pa != pb)
    throw NkiError(ErrorKind::Rule, fmt::format("err_num_partition_mismatch: {}{} and {}{} have different partition "
                                                "counts ({})", an, tensor::shape_str(a.shape()), bn,
                                                tensor::shape_str(b.shape()), api));
}

namespace {

// The Tensor Engine reads SBUF; a PSUM operand (a transpose result passed as `stationary`) is
// legal NKI because the compiler copies it to SBUF first. The trace keeps the PSUM operand as
// written; the compiler stage (src/lower, psum_copies) inserts the copy. HBM is refused by
// tile_arg before this point.
void require_on_chip(const NkiTensorObj& t, std::string_view api, std::string_view what) {
  if (!t.on_chip())
    throw NkiError(ErrorKind::Rule, fmt::format("err_unsupported_memory: the Tensor Engine reads {} of {} from SBUF, "
                                                "but it is in {}", what, api, trn::to_string(t.storage->buffer)));
}

// `p` is `t` padded to rank 2 (padded / PaddedRef).
void check_2d(const NkiTensorObj& p, const NkiTensorObj& t, std::string_view api, std::string_view what) {
  if (p.view.ndim() != 2)
    throw NkiError(ErrorKind::Value, fmt::format("{} of {} must be a 2-D tile, got shape {}", what, api,
                                                 tensor::shape_str(t.shape())));
}

NkiTensorObj as_2d(const NkiTensorObj& t, std::string_view api, std::string_view what) {
  NkiTensorObj p = padded(t, 2);
  check_2d(p, t, api, what);
  return p;
}

double scalar_value(const Value& v, std::string_view api, std::string_view what) {
  auto s = scalar_arg(v);
  if (!s) throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be a scalar or a per-partition tile, got {}",
                                                      what, api, v.type_name()));
  return *s;
}

// A scalar-or-vector operand as an array for the engine math (vector tiles are read as (P, 1)).
tensor::Array step_operand(Instruction& ins, const NkiTensorObj& data, const Value& operand, std::string_view api,
                           std::string_view what) {
  if (auto* t = operand.as<NkiTensorObj>()) {
    NkiTensorObj& v = tile_arg(operand, api, what);
    check_same_partitions(data, v, api, "data", what);
    int64_t free = 1;
    for (size_t k = 1; k < v.shape().size(); ++k) free *= v.shape()[k];
    if (free != 1)
      throw NkiError(ErrorKind::Value, fmt::format("{} of {} must be a scalar or a (P, 1) vector, got shape {}", what,
                                                   api, tensor::shape_str(t->shape())));
    NkiTensorObj col = padded(v, int(ins.space().size()));
    return ins.input(col);
  }
  double v = scalar_value(operand, api, what);
  return ins.computing() ? tensor::Array::scalar(DType::Float32, v) : no_values();
}

}  // namespace

Value matmul_core(const NkiTensorObj& stationary0, const NkiTensorObj& moving0, std::string_view api, MaskPtr mask,
                  bool is_transpose, bool stationary_onezero, bool moving_onezero, trn::PeCells pe_cells) {
  // References, not as_2d copies (a copy of a tensor object copies its view): operands are 2-D
  // tiles already except for a 1-D partition vector.
  PaddedRef sref(stationary0, 2), mref(moving0, 2);
  const NkiTensorObj& s = *sref;
  const NkiTensorObj& m = *mref;
  check_2d(s, stationary0, api, "stationary");
  check_2d(m, moving0, api, "moving");
  require_on_chip(s, api, "stationary");
  require_on_chip(m, api, "moving");
  int64_t k = s.shape()[0], cols_s = s.shape()[1], cols_m = m.shape()[1];
  if (m.shape()[0] != k)
    throw NkiError(ErrorKind::Rule, fmt::format("err_num_partition_mismatch: the contraction (partition) sizes of "
                                                "stationary{} and moving{} differ ({})", tensor::shape_str(s.shape()),
                                                tensor::shape_str(m.shape()), api));
  if (cols_s > trn::limits::gemm_stationary_fmax)
    throw NkiError(ErrorKind::Rule, fmt::format("stationary free size {} exceeds {} (gemm_stationary_fmax) ({})",
                                                cols_s, trn::limits::gemm_stationary_fmax, api));
  if (cols_m > trn::limits::gemm_moving_fmax)
    throw NkiError(ErrorKind::Rule, fmt::format("moving free size {} exceeds {} (gemm_moving_fmax) ({})", cols_m,
                                                trn::limits::gemm_moving_fmax, api));
  Instruction ins(api, is_transpose ? trn::Opcode::Transpose : trn::Opcode::MatMul, trn::Engine::Tensor,
                  {cols_s, cols_m}, std::move(mask));
  const Box& box = ins.box();
  tensor::Array a = no_values(), b = no_values();
  if (!box.empty()) {
    a = ins.input_box(s, Box{{0, box.lo[0]}, {k, box.hi[0]}});
    b = ins.input_box(m, Box{{0, box.lo[1]}, {k, box.hi[1]}});
  }
  tensor::Array r = no_values();
  if (ins.computing()) {
    r = tensor::Array::zeros(box.shape(), DType::Float32);
    tensor::matmul_tn_accumulate(a, b, r, false);
  }
  if (auto* info = ins.info()) {
    info->matmul_rows = uint32_t(k);
    info->matmul_stationary_cols = uint32_t(box.extent(0));
    info->matmul_moving_cols = uint32_t(box.extent(1));
    info->stationary_onezero = stationary_onezero;
    info->moving_onezero = moving_onezero;
    info->pe_cells = pe_cells;
    info->flops = uint64_t(2) * uint64_t(k) * uint64_t(box.elements());
  }
  return ins.result(DType::Float32, trn::BufferKind::Psum, r);
}

Value transpose_core(const NkiTensorObj& t0, std::string_view api, std::optional<trn::Engine> engine,
                     std::optional<tensor::DType> dtype, MaskPtr mask) {
  NkiTensorObj t = as_2d(t0, api, "data");
  if (t0.view.ndim() > 2)
    throw NkiError(ErrorKind::Rule, fmt::format("err_exceed_max_supported_dimension: {} transposes 2-D tiles only, "
                                                "got shape {}", api, tensor::shape_str(t0.shape())));
  int64_t p = t.shape()[0], f = t.shape()[1];
  if (f > 128)
    throw NkiError(ErrorKind::Rule, fmt::format("err_size_of_dimension_exceed_arch_limit: free size {} exceeds 128, "
                                                "the largest tile {} can transpose", f, api));
  trn::Engine e = engine.value_or(trn::Engine::Tensor);
  bool tensor_engine = e == trn::Engine::Tensor;
  if (tensor_engine) require_on_chip(t, api, "data");
  Instruction ins(api, tensor_engine ? trn::Opcode::Transpose : trn::Opcode::TensorCopy, e, {f, p}, std::move(mask));
  const Box& box = ins.box();
  tensor::Array a = no_values();
  if (!box.empty()) a = ins.input_box(t, Box{{box.lo[1], box.lo[0]}, {box.hi[1], box.hi[0]}});
  tensor::Array r = no_values();
  if (ins.computing()) r = tensor::transpose(a, {1, 0});
  if (auto* info = ins.info(); info && tensor_engine) {
    info->matmul_rows = uint32_t(p);
    info->matmul_stationary_cols = uint32_t(f);
    info->matmul_moving_cols = uint32_t(p);
    info->flops = uint64_t(2) * uint64_t(p) * uint64_t(box.elements());
  }
  DType out = dtype.value_or(tensor_engine ? DType::Float32 : t.dtype());
  if (tensor_engine && !dtype) out = t.dtype() == DType::Float32 ? DType::Float32 : t.dtype();
  return ins.result(out, tensor_engine ? trn::BufferKind::Psum : trn::BufferKind::Sbuf, r);
}

Value reduce_core(const AluOp& op, const NkiTensorObj& t, const Value& axis_v, bool keepdims, bool negate,
                  std::optional<tensor::DType> dtype, std::string_view api, MaskPtr mask, bool mean) {
  if (!op.reduce)
    throw NkiError(ErrorKind::Type, fmt::format("{} is not a reduction operator ({})", op.name, api));
  int n = t.view.ndim();
  std::vector<int64_t> axes64 = to_int_list(axis_v, "axis");
  std::vector<int> axes;
  for (auto a : axes64) {
    int64_t ax = a < 0 ? a + n : a;
    if (ax < 0 || ax >= n)
      throw NkiError(ErrorKind::Value, fmt::format("axis {} is out of range for a tile of rank {} ({})", a, n, api));
    if (ax == 0)
      throw NkiError(ErrorKind::Rule, fmt::format("the partition axis 0 cannot be reduced by {}; reduce free axes "
                                                  "only (use a matmul with a ones vector to sum partitions)", api));
    axes.push_back(int(ax));
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  Instruction ins(api, trn::Opcode::TensorReduce, trn::Engine::Vector, t.shape(), std::move(mask));
  tensor::Array a = ins.input(t);
  tensor::Shape out_shape;
  Box out_box;
  for (int k = 0; k < n; ++k) {
    bool reduced = std::find(axes.begin(), axes.end(), k) != axes.end();
    if (reduced && !keepdims) continue;
    out_shape.push_back(reduced ? 1 : t.shape()[k]);
    out_box.lo.push_back(reduced ? 0 : ins.box().lo[k]);
    out_box.hi.push_back(reduced ? 1 : ins.box().hi[k]);
  }
  DType out = dtype.value_or(t.dtype());
  tensor::Array r = no_values();
  if (ins.computing()) {
    r = tensor::reduce(mean ? tensor::ReduceOp::Mean : *op.reduce, a, axes, keepdims, DType::Float32);
    if (negate) r = tensor::unary(tensor::UnaryOp::Neg, r, DType::Float32, DType::Float32);
    r = tensor::reshape(r, out_box.shape());
  }
  if (auto* info = ins.info()) {
    info->flops = uint64_t(ins.box().elements());
    // The operation decides the cost (ISA tensor_reduce: bf16 add / max at N/2, the rest N).
    if (op.binary) info->alu = trn::alu_of(*op.binary);
  }
  return ins.result_shaped(out_shape, out_box, out, trn::BufferKind::Sbuf, r);
}

Value binary_core(tensor::BinaryOp op, const Value& x, const Value& y, std::string_view api,
                  std::optional<tensor::DType> dtype, MaskPtr mask, trn::Opcode opcode, trn::Engine engine,
                  bool same_partitions) {
  NkiTensorObj& a = tile_arg(x, api, "data1");
  NkiTensorObj& b = tile_arg(y, api, "data2");
  if (same_partitions) check_same_partitions(a, b, api, "data1", "data2");
  if (a.storage->buffer == trn::BufferKind::Psum && b.storage->buffer == trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, fmt::format("at most one input of {} may be in PSUM", api));
  tensor::Shape space = partition_broadcast(a.shape(), b.shape(), api);
  DType out = dtype.value_or(tensor::nki_promote(a.dtype(), b.dtype()));
  check_bitvec_dtypes(op, {a.dtype(), b.dtype()}, out, api);
  Instruction ins(api, opcode, engine, space, std::move(mask));
  tensor::Array av = ins.input(a), bv = ins.input(b);
  tensor::Array r = no_values();
  if (ins.computing()) r = apply_binary(op, av, bv, out);
  if (auto* info = ins.info()) {
    info->flops = uint64_t(ins.box().elements());
    info->alu = trn::alu_of(op);
  }
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

namespace {

// nisa.tensor_scalar_reduce is ONE Vector Engine instruction, `max(MIN_II, N) + MIN_II` (ISA
// tensor_scalar_reduce, trainium-performance.md 2): the reduction is written by the instruction
// itself, so reduce_res is a second output of it (has_reduce adds the MIN_II), not a tensor_reduce
// pass over the result. Numerics: the reduction of the result as the instruction returns it,
// accumulated in fp32, then stored in reduce_res's dtype.
void write_scalar_reduction(Instruction& ins, const ScalarReduce& red, const tensor::Array& result,
                            std::string_view api) {
  if (red.op && !red.op->reduce)
    throw NkiError(ErrorKind::Type, fmt::format("{} is not a reduction operator ({})", red.op->name, api));
  if (auto* info = ins.info()) info->has_reduce = true;
  if (!red.res) return;
  if (!red.op) throw NkiError(ErrorKind::Type, fmt::format("reduce_res of {} needs a reduce_op", api));
  NkiTensorObj res = padded(*red.res, 2);
  const tensor::Shape& rs = res.shape();
  int64_t res_free = 1;
  for (size_t k = 1; k < rs.size(); ++k) res_free *= rs[k];
  if (res_free != 1 || rs[0] != ins.space()[0])
    throw NkiError(ErrorKind::Value, fmt::format("reduce_res{} of {} must have shape ({}, 1)", tensor::shape_str(rs),
                                                 api, ins.space()[0]));
  Box rb = Box::full(rs);
  rb.lo[0] = ins.box().lo[0];
  rb.hi[0] = ins.box().hi[0];
  res.view.check_bounds(res.storage->shape, rb, api);
  if (ins.computing()) {
    std::vector<int> axes;
    for (int k = 1; k < result.ndim(); ++k) axes.push_back(k);
    tensor::Array v = tensor::reduce(*red.op->reduce, result, axes, false, DType::Float32);
    write_region(res, rb, tensor::reshape(v, rb.shape()), nullptr);
  }
  if (auto* info = ins.info()) info->outputs.push_back(make_operand(res, rb));
  res.storage->written = true;
}

}  // namespace

namespace {

// One tensor_scalar step on `x`: `x op operand` (reversed: `operand op x`), or a unary ALU
// operator's op(x) in fp32 as the activation computes it, its dummy operand ignored (9.1).
tensor::Array apply_step(const ScalarStep& s, const tensor::Array& x, const tensor::Array& operand, DType out) {
  if (!s.op->binary) return tensor::unary(*s.op->unary, x, DType::Float32, out);
  return s.reverse ? apply_binary(*s.op->binary, operand, x, out) : apply_binary(*s.op->binary, x, operand, out);
}

}  // namespace

Value tensor_scalar_core(const NkiTensorObj& data, const ScalarStep& s0, const ScalarStep& s1, std::string_view api,
                         std::optional<tensor::DType> dtype, MaskPtr mask, trn::Engine engine, bool user_engine,
                         const ScalarReduce* reduce) {
  Instruction ins(api, trn::Opcode::TensorScalar, engine, data.shape(), std::move(mask));
  if (auto* info = ins.info()) info->engine_chosen_by_user = user_engine;
  tensor::Array d = ins.input(data);
  tensor::Array o0 = step_operand(ins, data, s0.operand, api, "operand0");
  tensor::Array o1 = s1.op ? step_operand(ins, data, s1.operand, api, "operand1") : no_values();
  DType out = dtype.value_or(data.dtype());
  if (s0.op->binary) check_bitvec_dtypes(*s0.op->binary, {data.dtype()}, out, api);
  if (s1.op && s1.op->binary) check_bitvec_dtypes(*s1.op->binary, {data.dtype()}, out, api);
  tensor::Array r = no_values();
  if (ins.computing()) {
    bool two = s1.op != nullptr;
    // Between two bitvec ops the bits stay integer; arithmetic goes through fp32.
    DType mid = !two ? out : s0.op->binary && is_bitvec(*s0.op->binary) ? DType::Int64 : DType::Float32;
    r = apply_step(s0, d, o0, mid);
    if (two) r = apply_step(s1, r, o1, out);
  }
  if (auto* info = ins.info()) {
    info->flops = uint64_t(ins.box().elements()) * (s1.op ? 2 : 1);
    // Both steps: which engines may run the instruction depends on the pair (ScalarE runs only
    // multiply-then-add, multiply or add; trn/alu_engines.h). A unary ALU step records as Other,
    // which the cost model never moves off the engine it was placed on.
    info->alu = step_alu(*s0.op).op;
    if (s1.op) info->alu1 = step_alu(*s1.op).op;
  }
  if (reduce) write_scalar_reduction(ins, *reduce, r, api);
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

Value scalar_tensor_tensor_core(const NkiTensorObj& data, const ScalarStep& s0, const AluOp& op1, const Value& operand1,
                                bool reverse1, std::string_view api, std::optional<tensor::DType> dtype, MaskPtr mask) {
  NkiTensorObj& other = tile_arg(operand1, api, "operand1");
  check_same_partitions(data, other, api, "data", "operand1");
  if (data.storage->buffer == trn::BufferKind::Psum && other.storage->buffer == trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, fmt::format("at most one input of {} may be in PSUM", api));
  // The intermediate is fp32, except after a bitvec op, which keeps the integer bits.
  DType mid = is_bitvec(*s0.op->binary) ? data.dtype() : DType::Float32;
  DType out = dtype.value_or(data.dtype());
  check_bitvec_dtypes(*s0.op->binary, {data.dtype()}, mid, api);
  check_bitvec_dtypes(*op1.binary, {mid, other.dtype()}, out, api);
  tensor::Shape space = partition_broadcast(data.shape(), other.shape(), api);
  Instruction ins(api, trn::Opcode::ScalarTensorTensor, trn::Engine::Vector, space, std::move(mask));
  tensor::Array d = ins.input(data);
  tensor::Array o0 = step_operand(ins, data, s0.operand, api, "operand0");
  tensor::Array o1 = ins.input(other);
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Array t = s0.reverse ? apply_binary(*s0.op->binary, o0, d, mid) : apply_binary(*s0.op->binary, d, o0, mid);
    r = reverse1 ? apply_binary(*op1.binary, o1, t, out) : apply_binary(*op1.binary, t, o1, out);
  }
  if (auto* info = ins.info()) {
    info->flops = uint64_t(ins.box().elements()) * 2;
    info->scalar_alu = trn::alu_of(*s0.op->binary);
    info->alu = trn::alu_of(*op1.binary);
  }
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

Value activation_core(const NkiTensorObj& data, const ActivationArgs& a, std::string_view api,
                      std::optional<tensor::DType> dtype, MaskPtr mask) {
  if (!a.func->unary)
    throw NkiError(ErrorKind::Type, fmt::format("op of {} must be an activation function such as nl.exp, got {}", api,
                                                a.func->name));
  Instruction ins(api, trn::Opcode::Activation, trn::Engine::Scalar, data.shape(), std::move(mask));
  tensor::Array d = ins.input(data);
  tensor::Array scale = no_values(), bias = no_values();
  if (auto* st = a.scale.as<NkiTensorObj>()) {
    if (st->dtype() != DType::Float32)
      throw NkiError(ErrorKind::Rule, fmt::format("err_activation_scale_invalid_type: scale of {} must be float32, "
                                                  "got {}", api, tensor::name(st->dtype())));
    scale = step_operand(ins, data, a.scale, api, "scale");
  } else {
    double v = scalar_value(a.scale, api, "scale");
    scale = ins.computing() ? tensor::Array::scalar(DType::Float32, v) : no_values();
  }
  if (!a.bias.is_none()) {
    auto* bt = a.bias.as<NkiTensorObj>();
    if (bt && bt->dtype() != DType::Float32 && bt->dtype() != DType::Float16 && bt->dtype() != DType::BFloat16)
      throw NkiError(ErrorKind::Rule, fmt::format("err_activation_bias_invalid_type: bias of {} must be "
                                                  "float32/float16/bfloat16, got {}", api, tensor::name(bt->dtype())));
    // "bias: a per-partition vector (P, 1)" (nki-language.md 8.2, 10.1 err_activation_bias_invalid_type);
    // a scalar bias exists only "from NeuronCore-v3" (12.2, the newer API). On NeuronCore-v2 a number
    // is refused; from v3 it is taken as the broadcast constant.
    if (!bt && KernelContext::current().nc_version < 3)
      throw NkiError(ErrorKind::Rule, fmt::format("err_activation_bias_invalid_type: bias of {} must be a (P, 1) "
                                                  "float32/float16/bfloat16 vector tile on NeuronCore-v2, got {} (a "
                                                  "scalar bias only from NeuronCore-v3, nki-language.md 8.2, 12.2)",
                                                  api, a.bias.repr()));
    bias = step_operand(ins, data, a.bias, api, "bias");
  }
  DType out = dtype.value_or(data.dtype());
  KernelContext& ctx = KernelContext::current();
  tensor::Array r = no_values(), r32 = no_values();
  bool reducing = a.reduce_cmd >= 2 && ctx.numerics;
  if (ins.computing()) {
    tensor::Array x = apply_binary(tensor::BinaryOp::Mul, d, scale, DType::Float32);
    if (!a.bias.is_none()) x = apply_binary(tensor::BinaryOp::Add, x, bias, DType::Float32);
    // The accumulation registers add the fp32 results, before the output's rounding.
    if (reducing && out != DType::Float32) {
      r32 = tensor::unary(*a.func->unary, x, DType::Float32, DType::Float32);
      r = tensor::astype(r32, out);
    } else {
      r = r32 = tensor::unary(*a.func->unary, x, DType::Float32, out);
    }
  }
  if (auto* info = ins.info()) {
    info->activation_func = a.func->activation_id;
    info->flops = uint64_t(ins.box().elements());
    // The reduction into the accumulation registers is free ("scale/bias/reduction are free", ISA
    // activation); reading the registers into reduce_res is ActReadAccumulator, about 64 ScalarE
    // cycles (ARCH2), which the call's one cost includes: `max(MIN_II, N) + MIN_II` (ISA
    // activation_reduce = activation + ActReadAccumulator).
    info->has_reduce = a.reduce_res != nullptr;
  }
  if (a.reduce_cmd != 0 && ctx.numerics) {
    int64_t p = data.shape().empty() ? 1 : data.shape()[0];
    if (ctx.act_registers.size() < size_t(p)) ctx.act_registers.resize(size_t(p), 0.0);
    if (a.reduce_cmd == 1 || a.reduce_cmd == 3) std::fill(ctx.act_registers.begin(), ctx.act_registers.end(), 0.0);
    if (a.reduce_cmd >= 2 && ins.computing()) {
      std::vector<int> axes;
      for (int k = 1; k < r32.ndim(); ++k) axes.push_back(k);
      tensor::Array sums = tensor::reduce(tensor::ReduceOp::Sum, r32, axes, false, DType::Float64);
      for (int64_t i = 0; i < sums.size(); ++i) ctx.act_registers[size_t(ins.box().lo[0] + i)] += sums.get({i});
    }
  }
  // reduce_res is written by this instruction (a second output), after its reduction: the
  // readout is ScalarE's own (the registers are ScalarE's) and costs the has_reduce cycles above.
  // Until session 20 it was a separate one-element tensor_copy, which the engine balancing moved
  // to VectorE (semaphore + VectorE fixed cost + MIN_II) on top of the activation's 64.
  if (a.reduce_res) {
    NkiTensorObj res = padded(*a.reduce_res, 2);
    const int64_t p = res.shape()[0];
    const Box box = Box::full(res.shape());
    ctx.note_format(res.storage->dtype, api);
    res.view.check_bounds(res.storage->shape, box, api);
    if (ctx.numerics && !box.empty()) {
      std::vector<double> col(static_cast<size_t>(p), 0.0);
      for (int64_t i = 0; i < p; ++i) col[size_t(i)] = i < int64_t(ctx.act_registers.size()) ? ctx.act_registers[size_t(i)] : 0.0;
      write_region(res, box, tensor::Array::from_values({p, 1}, DType::Float32, col), nullptr);
    }
    if (auto* info = ins.info()) info->outputs.push_back(make_operand(res, box));
    res.storage->written = true;
  }
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

Value scan_core(const NkiTensorObj& d0, const NkiTensorObj& d1, const Value& initial, const AluOp& op0,
                const AluOp& op1, bool reverse0, bool reverse1, std::optional<tensor::DType> dtype, MaskPtr mask) {
  constexpr std::string_view api = "nisa.tensor_tensor_scan";
  check_same_partitions(d0, d1, api, "data0", "data1");
  // "data0, data1: ... not both in PSUM" (nki-language.md 8.3, 10.1), as for tensor_tensor.
  if (d0.storage->buffer == trn::BufferKind::Psum && d1.storage->buffer == trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, fmt::format("at most one input of {} may be in PSUM", api));
  if (d0.shape() != d1.shape())
    throw NkiError(ErrorKind::Value, fmt::format("data0{} and data1{} of {} must have the same shape",
                                                 tensor::shape_str(d0.shape()), tensor::shape_str(d1.shape()), api));
  if (!op0.binary || !op1.binary) throw NkiError(ErrorKind::Type, fmt::format("op0 and op1 of {} must be binary ALU ops", api));
  NkiTensorObj a0 = as_2d(d0, api, "data0"), a1 = as_2d(d1, api, "data1");
  Instruction ins(api, trn::Opcode::TensorTensorScan, trn::Engine::Vector, a0.shape(), std::move(mask));
  tensor::Array x = ins.input(a0), y = ins.input(a1);
  tensor::Array init = step_operand(ins, a0, initial, api, "initial");
  DType out = dtype.value_or(tensor::nki_promote(d0.dtype(), d1.dtype()));
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Shape s = ins.box().shape();
    tensor::Array xf = tensor::astype(x, DType::Float64).contiguous(), yf = tensor::astype(y, DType::Float64).contiguous();
    tensor::Array initf = tensor::astype(tensor::broadcast_to(init, {s[0], 1}), DType::Float64).contiguous();
    const double* xp = xf.f64();
    const double* yp = yf.f64();
    const double* ip = initf.f64();
    std::vector<double> vals(size_t(s[0] * s[1]));
    auto f32 = [](double v) { return double(float(v)); };
    for (int64_t p = 0; p < s[0]; ++p) {
      double acc = ip[p];
      for (int64_t i = 0; i < s[1]; ++i) {
        double a = xp[p * s[1] + i], b = yp[p * s[1] + i];
        double t = f32(reverse0 ? apply_scalar(*op0.binary, acc, a) : apply_scalar(*op0.binary, a, acc));
        acc = f32(reverse1 ? apply_scalar(*op1.binary, b, t) : apply_scalar(*op1.binary, t, b));
        vals[size_t(p * s[1] + i)] = acc;
      }
    }
    r = tensor::Array::from_values(s, DType::Float32, vals);
  }
  if (auto* info = ins.info()) info->flops = uint64_t(ins.box().elements()) * 2;
  Value res = ins.result(out, trn::BufferKind::Sbuf, r);
  return res;
}

}  // namespace nki::lib
