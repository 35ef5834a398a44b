#include "trn/cost_model.h"

#include <algorithm>
#include <cmath>

#include "trn/alu_engines.h"

namespace trn {
namespace {

bool any_fp32(const std::vector<Operand>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const Operand& o) { return o.fp32; });
}

bool any_strided(const InstructionInfo& inst) {
  auto strided = [](const Operand& o) { return o.strided; };
  return std::any_of(inst.inputs.begin(), inst.inputs.end(), strided) ||
         std::any_of(inst.outputs.begin(), inst.outputs.end(), strided);
}

bool narrow_operand(const Operand& o) { return o.dtype_bytes <= 2 && !o.fp32; }

bool all_16bit_outputs(const InstructionInfo& inst) {
  return std::all_of(inst.outputs.begin(), inst.outputs.end(), narrow_operand);
}

bool all_16bit(const InstructionInfo& inst) {
  return std::all_of(inst.inputs.begin(), inst.inputs.end(), narrow_operand) && all_16bit_outputs(inst);
}

// tensor_reduce's fast case (ISA): 16-bit in and out, op add or max. The row names bf16; fp16 is
// kept on it as every other 16-bit row of the model (memset's "bf16/fp16", tensor_tensor): read
// as bf16 only, the fp16 CS149 conv2d's max pool (trn2, already 2.29x the device) gets 2.35x.
bool fast_reduction(const InstructionInfo& inst) {
  return (inst.alu == AluOp::Add || inst.alu == AluOp::Max) && !inst.inputs.empty() && all_16bit(inst);
}

// N of the ISA formulas: elements per partition of the main input (the output if none).
uint64_t free_size(const InstructionInfo& inst) {
  if (!inst.inputs.empty()) {
    uint64_t n = 0;
    for (const auto& op : inst.inputs) n = std::max<uint64_t>(n, op.free_elements);
    return n;
  }
  return inst.outputs.empty() ? 1 : inst.outputs.front().free_elements;
}

// Innermost free dimension physically contiguous (unit stride) in every operand.
bool all_contiguous(const InstructionInfo& inst) {
  auto unit = [](const Operand& o) { return o.free_elements <= 1 || o.contiguous_bytes > o.dtype_bytes; };
  return std::all_of(inst.inputs.begin(), inst.inputs.end(), unit) &&
         std::all_of(inst.outputs.begin(), inst.outputs.end(), unit);
}

// Every input read with unit stride along its innermost free dimension (ISA tensor_tensor's
// "stride-1 inputs"). A record that leaves contiguous_bytes unset says nothing about its layout
// and counts as unit stride (records built in tests; the interpreter always sets it).
bool unit_stride_inputs(const InstructionInfo& inst) {
  auto unit = [](const Operand& o) {
    return o.free_elements <= 1 || o.contiguous_bytes == 0 || o.contiguous_bytes > o.dtype_bytes;
  };
  return std::all_of(inst.inputs.begin(), inst.inputs.end(), unit);
}

bool all_in_sbuf(const std::vector<Operand>& ops) {
  return std::all_of(ops.begin(), ops.end(), [](const Operand& o) { return o.buffer == BufferKind::Sbuf; });
}

bool has_psum_input(const InstructionInfo& inst) {
  return std::any_of(inst.inputs.begin(), inst.inputs.end(),
                     [](const Operand& o) { return o.buffer == BufferKind::Psum; });
}

// Matmul dimensions: K (rows), M (stationary free), N (moving free). Falls back to the operand
// shapes (inputs ordered stationary, moving) when the record leaves them 0.
struct MatmulDims {
  uint64_t rows, stationary, moving;
};

MatmulDims matmul_dims(const InstructionInfo& inst) {
  MatmulDims d{inst.matmul_rows, inst.matmul_stationary_cols, inst.matmul_moving_cols};
  if (d.rows == 0 && !inst.inputs.empty()) d.rows = inst.inputs.front().partitions;
  if (d.stationary == 0 && !inst.inputs.empty()) d.stationary = inst.inputs.front().free_elements;
  if (d.moving == 0) {
    if (inst.inputs.size() >= 2) d.moving = inst.inputs[1].free_elements;
    else if (!inst.outputs.empty()) d.moving = inst.outputs.front().free_elements;
  }
  d.rows = std::max<uint64_t>(d.rows, 1);
  d.stationary = std::max<uint64_t>(d.stationary, 1);
  d.moving = std::max<uint64_t>(d.moving, 1);
  return d;
}

// Whether an fp32 operand of a matmul is one the kernel marked as holding only ones and zeros
// (is_stationary_onezero / is_moving_onezero; inputs are ordered stationary, moving).
// A partition broadcast is that matmul too: the data row (moving) against a row of ones the
// compiler makes, flagged is_stationary_onezero (ARCH2: "partition broadcast = matmul with a ones
// row (`is_stationary_onezero=True`; `broadcast_to` along partitions lowers to this)",
// trainium-performance.md 1.4). The record carries only the data row; the ones take its type (an
// fp32 matmul needs both operands fp32), so fp32 data means an fp32 ones operand, flagged.
bool fp32_onezero(const InstructionInfo& inst) {
  const auto& in = inst.inputs;
  if (inst.opcode == Opcode::Broadcast) return any_fp32(in);
  return (inst.stationary_onezero && !in.empty() && in[0].fp32) ||
         (inst.moving_onezero && in.size() >= 2 && in[1].fp32);
}

// ISA nc_matmul: max(min(64, N_stationary), N_moving), 4x for fp32. The 64 is MM_INIT_LATENCY
// (the stationary load hides behind the previous matmul: "background LoadStationary"). An fp32
// operand flagged as ones and zeros "may give 2x better performance" (ISA nc_matmul, the
// is_*_onezero flags; trainium-measurements 2.2): the fp32 factor halves. The transposes of the
// NKIBench kernels are nc_matmul(x, identity, is_moving_onezero=True, is_transpose=True).
uint64_t matmul_cycles(const InstructionInfo& inst, const ArchConfig& arch) {
  MatmulDims d = matmul_dims(inst);
  uint64_t cycles = std::max<uint64_t>(std::min<uint64_t>(arch.mm_init_latency, d.stationary), d.moving);
  if (any_fp32(inst.inputs))
    cycles *= fp32_onezero(inst) && arch.onezero_halves_fp32 ? arch.fp32_matmul_factor / 2 : arch.fp32_matmul_factor;
  return cycles;
}

// ISA nc_transpose (engine=tensor): max(P, min(64, F)); it is a matmul against an identity, so
// fp32 data streams at the fp32 rate too.
uint64_t pe_transpose_cycles(const InstructionInfo& inst, const ArchConfig& arch) {
  if (inst.matmul_moving_cols != 0) return matmul_cycles(inst, arch);
  const Operand* in = inst.inputs.empty() ? nullptr : &inst.inputs.front();
  uint64_t p = in ? in->partitions : 128, f = in ? in->free_elements : 128;
  uint64_t cycles = std::max<uint64_t>(p, std::min<uint64_t>(arch.mm_init_latency, f));
  // fp32 streams at the fp32 rate; NC-v3's transpose mode doubles it (ARCH3).
  if (any_fp32(inst.inputs)) cycles *= arch.fp32_matmul_factor / (arch.pe_transpose_mode ? 2 : 1);
  return cycles;
}

uint64_t ceil_div(uint64_t n, uint32_t d) { return (n + d - 1) / d; }

bool fast_alu(AluOp op) {
  return op == AluOp::Unknown || op == AluOp::Add || op == AluOp::Subtract || op == AluOp::Multiply;
}

// The data an instruction streams is 16-bit: its tile inputs and its outputs. A tensor_scalar's
// per-partition operand ([P, 1], read once per partition like an immediate) is not streamed, so
// its dtype does not take the instruction off the 16-bit path (ARCH3 names "input and output").
bool streamed_16bit(const InstructionInfo& inst) {
  auto streamed_narrow = [](const Operand& o) { return o.free_elements <= 1 || narrow_operand(o); };
  return std::all_of(inst.inputs.begin(), inst.inputs.end(), streamed_narrow) && all_16bit_outputs(inst);
}

// NC-v3 VectorE performance mode (ARCH3): 16-bit tensor_copy / tensor_scalar reach 4x with SBUF
// in and out and contiguous data, 2x when not contiguous or with one side in PSUM.
uint32_t perf_mode_copy(const InstructionInfo& inst, const ArchConfig& arch) {
  if (inst.engine != Engine::Vector || !streamed_16bit(inst)) return 1;
  const bool sbuf = all_in_sbuf(inst.inputs) && all_in_sbuf(inst.outputs);
  return sbuf && all_contiguous(inst) ? arch.vector_perf_mode_copy : arch.vector_perf_mode_copy_partial;
}

// ... and 16-bit tensor_tensor 2x with both inputs in SBUF.
uint32_t perf_mode_tt(const InstructionInfo& inst, const ArchConfig& arch) {
  if (inst.engine != Engine::Vector || !all_in_sbuf(inst.inputs)) return 1;
  return arch.vector_perf_mode_tt;
}

uint64_t floor_ii(uint64_t cycles, const ArchConfig& arch) {
  return std::max<uint64_t>(arch.min_ii, cycles);
}

// n elements at a calibrated (possibly fractional) cycles-per-element rate, rounded up.
uint64_t scaled(double factor, uint64_t n) { return uint64_t(std::ceil(factor * double(n))); }

// Cycles per element of a tensor_scalar's costliest unary step on its engine (1: none costs more
// than the instruction's N).
double unary_step_rate(const InstructionInfo& inst, const ArchConfig& arch) {
  double rate = 1;
  for (AluOp op : {inst.alu, inst.alu1}) {
    if (op == AluOp::Reciprocal && inst.engine == Engine::Vector) rate = std::max(rate, arch.vector_reciprocal_factor);
    if (op == AluOp::Rsqrt && inst.engine == Engine::GpSimd) rate = std::max(rate, arch.gpsimd_rsqrt_factor);
  }
  return rate;
}

// Vector/Scalar/GpSimd instructions (ISA "Estimated instruction cost" table).
uint64_t elementwise_cycles(const InstructionInfo& inst, const ArchConfig& arch) {
  const uint64_t n = free_size(inst);
  const bool gpsimd = inst.engine == Engine::GpSimd;
  uint64_t cycles = 0;
  switch (inst.opcode) {
    case Opcode::Activation:
      cycles = floor_ii(n, arch) + (inst.has_reduce ? arch.act_read_accumulator : 0);
      break;
    case Opcode::TensorScalar: {
      // A unary ALU step costs what the operator costs on the engine running it (since session 26,
      // when the trace began to name it): a reciprocal on VectorE is the VectorE reciprocal (ISA
      // reciprocal 8N, "VectorE ~8x lower throughput", SHARED; the model's calibrated factor), an
      // rsqrt on GpSimd 4x ScalarE's N (SHARED). Otherwise N for one or two steps (ISA), through
      // NC-v3's performance mode.
      const double step_rate = unary_step_rate(inst, arch);
      cycles = step_rate > 1 ? floor_ii(scaled(step_rate, n), arch)
                             : floor_ii(ceil_div(n, perf_mode_copy(inst, arch)), arch);
      cycles += inst.has_reduce ? arch.min_ii : 0;
      break;
    }
    case Opcode::TensorTensor:
      // One PSUM input or all-16-bit SBUF inputs stream at 1 element/cycle, otherwise 2 (ISA).
      // The 16-bit fast path is for add, subtract and multiply (an unrecorded operation counts)
      // on stride-1 inputs (until session 25 any stride: two bf16 multiplies on the interleaved
      // halves t[:, k::2] cost N where the ISA gives 2N). NC-v3's performance mode still doubles
      // such a strided one (ARCH3 names no contiguity for tensor_tensor).
      if (has_psum_input(inst)) cycles = floor_ii(n, arch);
      else if (all_16bit(inst) && fast_alu(inst.alu) && unit_stride_inputs(inst))
        cycles = floor_ii(ceil_div(n, perf_mode_tt(inst, arch)), arch);
      else if (all_16bit(inst) && fast_alu(inst.alu))
        cycles = floor_ii(ceil_div(2 * n, perf_mode_tt(inst, arch)), arch);
      else cycles = floor_ii(2 * n, arch);
      break;
    case Opcode::TensorTensorScan:
      cycles = floor_ii(2 * n, arch);
      break;
    case Opcode::ScalarTensorTensor:
      // ISA cost table: N when data and operand1 are bf16 (here: 16-bit), op0 subtract, op1 multiply
      // and N even; otherwise 2N, one instruction (trainium-performance.md 2, trainium-measurements 2.3).
      cycles = streamed_16bit(inst) && inst.scalar_alu == AluOp::Subtract && inst.alu == AluOp::Multiply && n % 2 == 0
                   ? floor_ii(n, arch)
                   : floor_ii(2 * n, arch);
      break;
    case Opcode::TensorReduce:
      // ISA tensor_reduce: N/2 when input and output are bf16 (here 16-bit) and the operation is
      // add or max; otherwise N (until session 24: N/2 for any 16-bit reduction, op unrecorded).
      cycles = floor_ii(fast_reduction(inst) ? n / 2 : n, arch);
      break;
    case Opcode::BnStats:
      // ISA bn_stats: max(MIN_II, N), whatever the data type (traced as a tensor_reduce until session 24).
      cycles = floor_ii(n, arch);
      break;
    case Opcode::BnAggr:
      // ISA bn_aggr: max(MIN_II, 13 (N / 3)), N the bn_stats values (6 per group) per partition
      // (a tensor_reduce at N until session 24).
      cycles = floor_ii(13 * (n / 3), arch);
      break;
    case Opcode::TensorCopy:
      cycles = floor_ii(ceil_div(n, perf_mode_copy(inst, arch)), arch);
      break;
    case Opcode::Reciprocal:
      // The ISA page says 8N on VectorE; the calibration data says otherwise (docs/simulator.md).
      cycles = inst.engine == Engine::Vector ? floor_ii(scaled(arch.vector_reciprocal_factor, n), arch)
                                             : floor_ii(n, arch);
      break;
    case Opcode::Memset:
      // ISA memset ("Vector (or GpSimd)"): max(MIN_II, N), N/2 for a zero fill of 16-bit data, on
      // whichever engine runs it. GPSIMD_START is published for iota, affine_select and
      // local_gather only, so a GpSimd memset does not pay it (until session 23 it did: 150 + N).
      cycles = floor_ii(all_16bit(inst) && !inst.nonzero_fill ? n / 2 : n, arch);
      break;
    case Opcode::Iota:
      cycles = arch.gpsimd_start + n;
      break;
    case Opcode::Select:
      cycles = gpsimd ? arch.gpsimd_start + n : floor_ii(n, arch);
      break;
    case Opcode::CopyPredicated:
      // ISA tensor_copy_predicated: max(MIN_II, N) when src and predicate are split between SBUF
      // and PSUM, max(MIN_II, 2N) when both are in SBUF (trainium-performance.md 2; the
      // tensor_tensor rule: two streams from one SRAM). Inputs: predicate, src tile (absent for a
      // scalar src, then only the predicate streams), dst. Until session 23 it was a select at N.
      cycles = inst.inputs.size() >= 3 && inst.inputs[0].buffer == BufferKind::Sbuf &&
                       inst.inputs[1].buffer == BufferKind::Sbuf
                   ? floor_ii(2 * n, arch)
                   : floor_ii(n, arch);
      break;
    case Opcode::TensorPartitionReduce:
      // Not published; a GpSimd pass over the data after its start-up, like affine_select.
      cycles = arch.gpsimd_start + n;
      break;
    default:
      cycles = floor_ii(n, arch);
      break;
  }
  if (gpsimd && inst.opcode != Opcode::Iota && inst.opcode != Opcode::Select &&
      inst.opcode != Opcode::TensorPartitionReduce && inst.opcode != Opcode::Memset)
    cycles = std::max<uint64_t>(cycles, arch.gpsimd_start + n);
  // Innermost stride above 16 bytes halves the SBUF/PSUM interface rate (ARCH2 1.3).
  if (any_strided(inst)) cycles *= 2;
  return cycles;
}

}  // namespace

double result_latency_ns(Engine engine, const ArchConfig& arch) {
  return engine == Engine::Tensor ? arch.pe_latency / arch.tensor_ghz : 0;
}

namespace {

// tensor_scalar / single-input tensor_copy that the user left to the compiler.
bool movable(const InstructionInfo& inst) {
  if (inst.engine_chosen_by_user) return false;
  // The newer API's tensor_copy on NC-v2 has no ScalarE form (nki-language.md 12.2): it stays
  // where it was traced (VectorE), a PSUM evacuation too.
  if (inst.no_scalar_engine) return false;
  if (inst.engine != Engine::Vector && inst.engine != Engine::Scalar) return false;
  if (inst.opcode != Opcode::TensorScalar && inst.opcode != Opcode::TensorCopy) return false;
  // tensor_scalar_reduce (a tensor_scalar with its reduction fused) is VectorE's alone (ISA).
  if (inst.has_reduce) return false;
  // Only to an engine the ISA table lets run its operations (a bitvec or subtract tensor_scalar stays on
  // VectorE). Asked as non-integer data: the one row that depends on the data (32-bit integer
  // add/subtract/multiply) puts the instruction on GpSimd, which never gets here.
  if (inst.opcode == Opcode::TensorScalar) {
    const Engine other = inst.engine == Engine::Vector ? Engine::Scalar : Engine::Vector;
    const std::array<AluOp, 2> steps{inst.alu, inst.alu1};
    const size_t n = inst.alu1 == AluOp::Unknown ? 1 : 2;
    if (!(alu_placement(AluForm::TensorScalar, std::span<const AluOp>(steps.data(), n), false).allowed &
          engine_bit(other)))
      return false;
  }
  // GpSimd cannot read PSUM and ScalarE reads one input: only single-input forms move.
  for (size_t idx = 1; idx < inst.inputs.size(); ++idx)
    if (inst.inputs[idx].free_elements > 1) return false;
  return true;
}

}  // namespace

bool engine_is_flexible(const InstructionInfo& inst) { return movable(inst) && !has_psum_input(inst); }

Engine placed_engine(const InstructionInfo& inst) {
  if (movable(inst) && has_psum_input(inst)) return Engine::Scalar;
  return inst.engine;
}

double engine_ghz(Engine engine, const ArchConfig& arch) {
  switch (engine) {
    case Engine::Tensor: return arch.tensor_ghz;
    case Engine::Vector: return arch.vector_ghz;
    case Engine::Scalar: return arch.scalar_ghz;
    case Engine::GpSimd: return arch.gpsimd_ghz;
    case Engine::Sync:
    case Engine::Dma: return arch.profiler_clock_ghz;
  }
  return arch.profiler_clock_ghz;
}

uint64_t instruction_cycles(const InstructionInfo& inst, const ArchConfig& arch) {
  if (inst.engine == Engine::Tensor) {
    if (inst.opcode == Opcode::Transpose) return pe_transpose_cycles(inst, arch);
    return matmul_cycles(inst, arch);  // MatMul, Broadcast (matmul with ones) and the rest
  }
  if (inst.engine == Engine::Sync || inst.engine == Engine::Dma) return 0;
  return elementwise_cycles(inst, arch);
}

double instruction_ns(const InstructionInfo& inst, const ArchConfig& arch) {
  return double(instruction_cycles(inst, arch)) / engine_ghz(inst.engine, arch);
}

double small_static_ns(const InstructionInfo& inst, const ArchConfig& arch) {
  if (!arch.small_instruction_elements) return 0;
  if (inst.engine == Engine::Tensor || inst.engine == Engine::Sync || inst.engine == Engine::Dma) return 0;
  if (free_size(inst) >= arch.small_instruction_elements) return 0;
  const uint32_t static_cycles = inst.engine == Engine::Scalar ? arch.scalar_static_overhead : arch.static_overhead;
  return double(static_cycles) / engine_ghz(inst.engine, arch);
}

double fixed_overhead_ns(const InstructionInfo& inst, const ArchConfig& arch) {
  if (inst.engine == Engine::Tensor || inst.engine == Engine::Sync || inst.engine == Engine::Dma) return 0;
  // One access request exposed: the operand the instruction waited on (ArchConfig).
  const uint32_t static_cycles = inst.engine == Engine::Scalar ? arch.scalar_static_overhead : arch.static_overhead;
  return double(static_cycles + arch.access_overhead) / engine_ghz(inst.engine, arch);
}

uint64_t hardware_flops(const InstructionInfo& inst, const ArchConfig& arch) {
  if (inst.engine != Engine::Tensor) return 0;
  MatmulDims d = matmul_dims(inst);
  if (inst.opcode == Opcode::Transpose && inst.matmul_moving_cols == 0 && !inst.inputs.empty()) {
    // A transpose of [P, F] is a matmul of the data (stationary) with a PxP identity (moving).
    d = {inst.inputs.front().partitions, inst.inputs.front().free_elements,
         inst.inputs.front().partitions};
  }
  uint64_t flops = 2 * d.rows * d.stationary * d.moving;
  if (any_fp32(inst.inputs)) flops *= arch.fp32_passes;
  return flops;
}

namespace {

// Contiguous chunks an operand is made of: per partition (or HBM row) its bytes over its longest
// contiguous run; element by element when the innermost stride is not unit.
uint64_t chunks(const Operand& op) {
  const uint64_t row = uint64_t(op.free_elements) * op.dtype_bytes;
  uint64_t run = op.contiguous_bytes ? std::min<uint64_t>(op.contiguous_bytes, row) : row;
  run = std::max<uint64_t>(run, 1);
  // HBM rows that follow each other (row stride = row length) make one contiguous region; the
  // rows of an indirect access are each their own (one descriptor per index at the least).
  if (op.buffer == BufferKind::Hbm && !op.indirect && run == row && uint64_t(op.row_stride) == op.free_elements)
    return 1;
  return uint64_t(std::max<uint16_t>(op.partitions, 1)) * ((row + run - 1) / run);
}

uint32_t dma_engines_for(uint32_t partitions, const ArchConfig& arch) {
  // Each engine serves partitions/engines consecutive partitions (DMAO), so a transfer over few
  // partitions uses few engines.
  const uint32_t per_engine = std::max<uint32_t>(1, arch.partitions / arch.dma_engines);
  return std::min<uint32_t>(arch.dma_engines, (std::max<uint32_t>(partitions, 1) + per_engine - 1) / per_engine);
}

// How long the engines are busy with the transfer's HBM descriptors at the least: each run
// shorter than dma_min_descriptor_bytes costs its engine as long as one of that size.
double descriptor_floor_ns(const DmaShape& shape, uint32_t engines, const ArchConfig& arch) {
  if (arch.dma_min_descriptor_bytes <= 0 || shape.hbm_runs == 0) return 0;
  // A run longer than the engines' shares is split between them (each moves its consecutive
  // partitions, DMAO): one piece per engine.
  const bool split = shape.hbm_runs < engines;
  const double piece = split ? double(shape.hbm_run_bytes * shape.hbm_runs) / engines : double(shape.hbm_run_bytes);
  if (piece >= arch.dma_min_descriptor_bytes) return 0;
  const double runs_per_engine = split ? 1.0 : std::ceil(double(shape.hbm_runs) / engines);
  return runs_per_engine * arch.dma_min_descriptor_bytes / arch.dma_engine_bytes_per_ns;
}

}  // namespace

DmaShape dma_shape(const InstructionInfo& inst) {
  DmaShape s;
  const Operand* src = inst.inputs.empty() ? nullptr : &inst.inputs.front();
  const Operand* dst = inst.outputs.empty() ? nullptr : &inst.outputs.front();
  const Operand* any = dst ? dst : src;
  if (!any) return s;
  s.bytes = any->bytes();
  s.partitions = 1;
  s.descriptors = 1;
  bool on_chip_src = false;
  for (const Operand* op : {src, dst}) {
    if (!op) continue;
    if (op->buffer != BufferKind::Hbm) {
      if (op->partitions >= s.partitions) s.first_partition = op->partition_start;
      s.partitions = std::max<uint32_t>(s.partitions, op->partitions);
    }
    s.descriptors = std::max(s.descriptors, chunks(*op));
  }
  on_chip_src = src && src->buffer != BufferKind::Hbm;
  const bool hbm_src = src && src->buffer == BufferKind::Hbm, hbm_dst = dst && dst->buffer == BufferKind::Hbm;
  s.direction = hbm_src && hbm_dst ? DmaDirection::Both
                : hbm_src          ? DmaDirection::FromHbm
                : hbm_dst          ? DmaDirection::ToHbm
                                   : DmaDirection::OnChip;
  // The HBM side's contiguous runs (one when its rows follow each other), where the trace gives
  // its layout (a row stride; records built without one, in tests, say nothing about it) and each
  // row is contiguous: a strided row is an access pattern, priced per element (descriptors).
  for (const Operand* op : {src, dst})
    if (op && op->buffer == BufferKind::Hbm && (op->partitions <= 1 || op->row_stride != 0 || op->indirect) &&
        (op->contiguous_bytes == 0 || op->contiguous_bytes >= uint64_t(op->free_elements) * op->dtype_bytes)) {
      s.hbm_runs = chunks(*op);
      s.hbm_run_bytes = s.hbm_runs ? (op->bytes() + s.hbm_runs - 1) / s.hbm_runs : 0;  // no runs: nothing moves
    }
  // An HBM row strided inside (a transposing store `out[jf, ip]`, a column gather) is a list of
  // short contiguous runs, one descriptor each.
  for (const Operand* op : {src, dst})
    if (op && op->buffer == BufferKind::Hbm && !op->indirect && op->contiguous_bytes != 0 &&
        op->contiguous_bytes < uint64_t(op->free_elements) * op->dtype_bytes && chunks(*op) > s.element_runs) {
      s.element_runs = chunks(*op);
      s.element_bytes = uint32_t(op->contiguous_bytes);
    }
  if (inst.opcode == Opcode::DmaTranspose) {
    s.transpose = on_chip_src ? DmaTransposeKind::OnChip : DmaTransposeKind::FromHbm;
    // The transposed side is written (or read) one element per row.
    uint64_t elements = any->dtype_bytes ? s.bytes / any->dtype_bytes : s.bytes;
    s.descriptors = std::max(s.descriptors, elements);
    s.element_runs = elements;
    s.element_bytes = std::max<uint8_t>(any->dtype_bytes, 1);
  }
  s.rmw = inst.accumulate;
  return s;
}

DmaTiming dma_timing(const DmaShape& shape, const ArchConfig& arch) {
  DmaTiming t;
  t.setup_ns = arch.dma_fixed_ns;
  t.direction = shape.direction;
  if (shape.bytes == 0) return t;
  // An accumulating DMA (dst_rmw_op) reads its destination before writing it: its engines move
  // the payload twice (source and destination reads), and an HBM destination is both read and
  // written (nki-language.md 8.4: it "accumulates into the destination instead of overwriting").
  const bool rmw = shape.rmw && arch.dma_rmw_reads_dst;
  if (rmw && shape.direction == DmaDirection::ToHbm) t.direction = DmaDirection::Both;
  const double moved = rmw ? 2 : 1;
  const double hbm_sides = (shape.direction == DmaDirection::Both ? 2 : shape.direction == DmaDirection::OnChip ? 0 : 1) +
                           (rmw && shape.direction == DmaDirection::ToHbm ? 1 : 0);
  t.hbm_ns = hbm_sides * double(shape.bytes) / arch.hbm_bytes_per_ns;
  const uint32_t engines = dma_engines_for(shape.partitions, arch);
  const uint32_t per_engine = std::max<uint32_t>(1, arch.partitions / arch.dma_engines);
  t.engines = engines;
  t.first_engine = std::min<uint32_t>(shape.first_partition / per_engine, arch.dma_engines - engines);
  // The engines share the core's bandwidth (HBM cap included).
  const double rate = std::min(engines * arch.dma_engine_bytes_per_ns, arch.dma_bytes_per_ns());
  double descriptors = moved * double(shape.descriptors);
  double data_ns = moved * double(shape.bytes) / rate;
  const double mode = shape.transpose == DmaTransposeKind::None     ? 0
                      : shape.transpose == DmaTransposeKind::FromHbm ? arch.dma_transpose_from_hbm
                                                                     : arch.dma_transpose_on_chip;
  if (shape.transpose == DmaTransposeKind::None || mode > 0)
    data_ns = std::max(data_ns, descriptor_floor_ns(shape, engines, arch));
  // Element-granular runs (NC-v2's DMA transpose, HBM rows strided inside) are descriptors far
  // shorter than the floor, each paying it like a short HBM row: DMABW ("< 256 B per partition:
  // severely overhead-bound"), PERF Opt #10 (load_transpose2d "much lower bandwidth"). NC-v3's
  // transposer (mode > 0) moves whole rows at its published share of the copy instead.
  if (arch.dma_element_runs_floor && shape.element_runs > 0 && mode == 0) {
    DmaShape runs = shape;
    runs.hbm_runs = shape.element_runs;
    runs.hbm_run_bytes = shape.element_bytes;
    data_ns = std::max(data_ns, moved * descriptor_floor_ns(runs, engines, arch));
  }
  // NC-v3 transposes in hardware at a share of the throughput of the same copy (ARCH3: "up to
  // 90%"), so at least as long as that copy with its short-row floor; NC-v2 moves one element per
  // descriptor (PERF: far below load bandwidth).
  if (mode > 0) data_ns /= mode, descriptors = double(shape.partitions);
  t.duration_ns = data_ns + descriptors / engines * arch.dma_descriptor_ns;
  t.fabric_ns = t.duration_ns * double(engines) / arch.dma_engines;
  return t;
}

}  // namespace trn
