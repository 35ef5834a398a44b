// The instruction trace: the only thing the performance simulator sees of a kernel.
//
// The NKI interpreter emits one Record per hardware instruction (and one per on-chip tensor
// allocation, so that the simulator knows tile sizes and block structure), in program order,
// to a TraceSink. Records never refer to the AST; `line` is kept only for timelines and reports.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace trn {

enum class Engine : uint8_t { Tensor, Vector, Scalar, GpSimd, Sync, Dma };
enum class BufferKind : uint8_t { Hbm, Sbuf, Psum };

enum class Opcode : uint8_t {
  // DMA (engine Dma): HBM<->SBUF, SBUF<->SBUF
  DmaLoad,       // nl.load, nisa.dma_copy HBM->SBUF
  DmaStore,      // nl.store, nisa.dma_copy SBUF->HBM
  DmaCopy,       // any other dma_copy (HBM->HBM, SBUF->SBUF)
  DmaTranspose,  // nisa.dma_transpose / nl.load_transpose2d
  // Tensor Engine
  MatMul,        // nisa.nc_matmul / nl.matmul (one instruction per <=128x128x512 block)
  Transpose,     // nisa.nc_transpose on the Tensor Engine, nc_matmul(is_transpose=True)
  // Vector / Scalar / GpSimd engines
  Activation,        // nisa.activation (+ optional reduce)
  TensorTensor,      // nisa.tensor_tensor, nl.add/multiply/... of two tiles
  TensorScalar,      // nisa.tensor_scalar, tile-op-scalar, tile-op-(P,1) vector
  TensorReduce,      // nisa.tensor_reduce, nl.sum/max over free axes
  TensorPartitionReduce,
  TensorTensorScan,  // nisa.tensor_tensor_scan
  ScalarTensorTensor,  // nisa.scalar_tensor_tensor: (data op0 operand0) op1 operand1, one instruction
  TensorCopy,        // nl.copy, nisa.tensor_copy, PSUM->SBUF evacuation
  Reciprocal,
  Memset,
  Iota,
  Select,            // affine_select, range_select, where, select_reduce
  Broadcast,         // partition broadcast (tile.broadcast_to of a (1,F) tile)
  CopyPredicated,    // nisa.tensor_copy_predicated: inputs predicate, src (a tile, when not a scalar), dst
  BnStats,           // nisa.bn_stats (ISA: max(MIN_II, N), no 16-bit rate)
  BnAggr,            // nisa.bn_aggr (ISA: max(MIN_II, 13 (N / 3)))
  Other,
};

// The element format of an operand as the kernel declared it (uint8 and float8 are both one byte,
// bf16 and fp16 two: the byte count alone cannot tell them apart). Unset: a record that does not
// name it (built by hand, or read from a trace text without it); dtype_bytes / fp32 then name it.
enum class ElemType : uint8_t {
  Unset, F32, BF16, FP16, FP8, FP8E4M3FN, FP8E5M2, TF32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool,
};
inline constexpr ElemType kLastElemType = ElemType::Bool;

// One operand access: which tile of which tensor, and the shape of the access.
struct Operand {
  BufferKind buffer = BufferKind::Sbuf;
  uint32_t tensor_id = 0;     // from the Alloc record (HBM tensors get ids too)
  uint32_t block = 0;         // flattened block index for block-dimension tensors, else 0
  uint16_t partition_start = 0;
  uint16_t partitions = 1;    // number of partitions touched (HBM: rows of the access)
  uint32_t free_elements = 1; // elements per partition touched
  uint8_t dtype_bytes = 4;
  bool fp32 = true;           // element format is float32 (Tensor Engine runs fp32 at 1/4 rate)
  ElemType elem = ElemType::Unset;  // what the trace prints; costs read dtype_bytes and fp32
  // Access-pattern facts that change costs:
  uint32_t contiguous_bytes = 0;  // longest contiguous run per partition/row (DMA efficiency)
  uint32_t descriptors = 1;       // number of contiguous chunks the DMA must move
  bool strided = false;           // innermost stride > 16 bytes (engines read at half rate)
  // Where the access lies, so that a compiler stage (src/lower) can tell adjacent and
  // overlapping accesses apart. Elements, not bytes.
  int64_t offset = 0;       // first element: on chip, within the partition row of the block;
                            // HBM, the flat index in the tensor
  int64_t row_stride = 0;   // HBM: elements between consecutive rows of the access (0: one row)
  uint32_t pitch = 0;       // elements between consecutive contiguous runs of a row (0: one run)
  uint32_t extent = 0;      // elements from the first to one past the last accessed of a row
                            // (0: unknown, taken as free_elements)
  // HBM: an indirect (dynamic) access, one row per partition at an address read from an index
  // tile at run time (gather/scatter, nl.load(t[idx[i_p, 0], i_f])). Its rows are nowhere known
  // before the run: offset and row_stride say nothing, the access may touch any row of the tensor.
  bool indirect = false;

  uint64_t bytes() const { return uint64_t(partitions) * free_elements * dtype_bytes; }
  bool operator==(const Operand&) const = default;
};

enum class RecordKind : uint8_t {
  Alloc,        // a tensor was created (nl.ndarray/zeros/..., a fresh instruction result, an input)
  Instruction,
  LoopBegin,    // entering a loop (for timelines and loop-aware scheduling)
  LoopIteration,
  LoopEnd,
  Kernel,       // kernel-level attributes (decorators), once at the start of the kernel call
};

enum class LoopKind : uint8_t { Affine, Sequential, Static, Python };

struct AllocInfo {
  uint32_t tensor_id = 0;
  BufferKind buffer = BufferKind::Sbuf;
  uint32_t blocks = 1;               // product of block dims (1 for a plain tile)
  uint16_t partitions = 1;           // partition dim size (HBM: 1)
  uint64_t bytes_per_partition = 0;  // per block (HBM: total bytes of the tensor)
  // SBUF tiles with more than one free dim: the size of the first free dim. A [128, KT, N] tile
  // is KT regions of N elements a partition, each its own unit of residency like a block of a
  // block-dimension tensor [KT, par 128, N] (docs/simulator.md, On-chip memory). 1 otherwise.
  uint32_t regions = 1;
  bool is_kernel_input = false;
  bool is_kernel_output = false;
  bool zero_initialized = false;     // nl.zeros / memset at creation (counts as an instruction separately)
  std::string name;                  // name= or the Python variable, for reports
};

// The ALU operation of a two-input elementwise instruction, where the trace records it
// (tensor_tensor, tensor_scalar's op0, in-place updates). Power and the bitvec operators are named
// because they decide the engine (trn/alu_engines.h); Other is every other operation.
// Rsqrt, Reciprocal and Abs are the unary ALU operators a tensor_scalar step takes with a dummy
// operand (nki-language.md 9.1); named since session 26 (before: Other), because they decide the
// engines that may run the step and its cost (trn/alu_engines.h, cost_model.cpp).
// The ALU operation an instruction applies, as the kernel names it (nl.greater is `greater`, not a
// class of operations): the trace says what runs. Costs key on classes of them (cost_model.cpp
// fast_alu, alu_engines.h); a name added here costs what `other` costs unless a row says otherwise.
enum class AluOp : uint8_t {
  Unknown, Add, Subtract, Multiply, Max, Min, Other, Power, Bitwise,
  Divide, Mod, Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, LogicalAnd, LogicalOr, LogicalXor,
  Rsqrt, Reciprocal, Abs,
};
inline constexpr AluOp kLastAluOp = AluOp::Abs;


// Kernel-level attributes: compiler directives given as decorators.
struct KernelInfo {
  // @nki.compiler.skip_middle_end_transformations: the compiler's middle end (loop
  // vectorization and the other loop-level rewrites) is off, program order is what runs.
  bool skip_middle_end_transformations = false;
  // The other nki.compiler directives the kernel uses (as a decorator, a `with` block or a
  // loop's directives=); a later Kernel record of the same call repeats the earlier ones.
  bool enable_stack_allocator = false;  // @nki.compiler.enable_stack_allocator
  bool force_auto_alloc = false;        // nki.compiler.force_auto_alloc
  bool no_reorder = false;              // `with nki.compiler.no_reorder():` (keep program order there)
  bool multi_buffer = false;            // nki.compiler.multi_buffer(n) on a loop
};

// The 32x32 sub-arrays of the Tensor Engine's 128x128 PE grid an instruction occupies (PE
// tiling: nc_matmul's tile_position / tile_size), bit 4 * row_quadrant + column_quadrant.
using PeCells = uint16_t;
inline constexpr PeCells kWholePeGrid = 0xFFFF;
inline constexpr int kPeQuadrants = 4;

// The cells of a tile at (row, col) of size (rows, cols), in PE rows and columns (rows hold the
// contraction dim, columns the stationary's free dim); 0 when no tile is given.
inline PeCells pe_cells_of_tile(int64_t row, int64_t col, int64_t rows, int64_t cols) {
  constexpr int64_t quadrant = 128 / kPeQuadrants;
  if (rows <= 0 || cols <= 0) return 0;
  auto last = [](int64_t at, int64_t size) { return std::min<int64_t>((at + size + quadrant - 1) / quadrant, kPeQuadrants); };
  PeCells cells = 0;
  for (int64_t r = row / quadrant; r < last(row, rows); ++r)
    for (int64_t c = col / quadrant; c < last(col, cols); ++c) cells |= PeCells(1u << (r * kPeQuadrants + c));
  return cells;
}

struct InstructionInfo {
  Opcode opcode = Opcode::Other;
  Engine engine = Engine::Vector;
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;
  bool accumulate = false;       // output is read-modify-written (PSUM +=, SBUF +=, loop_reduce)
  bool engine_chosen_by_user = false;
  // The kernel's API has no Scalar Engine form of the instruction on this NeuronCore (the newer
  // API's tensor_copy on NC-v2, nki-language.md 12.2): the compiler never balances it onto ScalarE.
  bool no_scalar_engine = false;
  uint64_t flops = 0;            // arithmetic work as neuron-profile counts it (matmul: 2*M*N*K)
  uint32_t matmul_rows = 0;      // Tensor Engine: K (contraction = partitions of operands)
  uint32_t matmul_stationary_cols = 0;  // M, free size of the stationary operand
  uint32_t matmul_moving_cols = 0;      // N, free size of the moving operand
  // nc_matmul's is_stationary_onezero / is_moving_onezero: the kernel says that operand holds only
  // ones and zeros (an identity for a transpose, a ones vector), so its fp32 passes halve (ISA).
  bool stationary_onezero = false;
  bool moving_onezero = false;
  // nc_matmul's PE tile (tile_position / tile_size): the sub-arrays it occupies; 0 = the whole grid.
  PeCells pe_cells = 0;
  uint16_t activation_func = 0;  // which function (table switch costs), 0 = none/identity
  bool has_reduce = false;       // activation writing reduce_res / tensor_scalar_reduce
  AluOp alu = AluOp::Unknown;    // tensor_tensor / tensor_scalar (op0) / in-place update: the operation
  AluOp scalar_alu = AluOp::Unknown;  // scalar_tensor_tensor: its scalar step (op0); `alu` is op1
  AluOp alu1 = AluOp::Unknown;   // tensor_scalar: its second step (op1); Unknown when it has none
  // memset: the value is not zero (ISA memset: only a zero fill of 16-bit data runs at N/2).
  bool nonzero_fill = false;
};

struct LoopInfo {
  LoopKind kind = LoopKind::Affine;
  uint32_t loop_id = 0;   // unique per loop statement execution
  int64_t trip_count = 0;
  int64_t iteration = 0;  // for LoopIteration
};

struct Record {
  RecordKind kind = RecordKind::Instruction;
  uint64_t seq = 0;      // position in program order
  uint32_t line = 0;     // kernel source line
  AllocInfo alloc;       // kind == Alloc
  InstructionInfo inst;  // kind == Instruction
  LoopInfo loop;         // kind == Loop*
  KernelInfo kernel;     // kind == Kernel
  // Bit mask of the compiler-stage rules (src/lower) that created or changed this record; 0 for
  // a record as the kernel issued it.
  uint16_t lowered_by = 0;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void consume(const Record& record) = 0;
  virtual void finish() {}
};

// Collects every record (tests, `accelopt trace`, and simulators that need two passes).
class TraceBuffer : public TraceSink {
 public:
  void consume(const Record& record) override { records.push_back(record); }
  std::vector<Record> records;
};

const char* to_string(Engine e);
const char* to_string(BufferKind b);
const char* to_string(Opcode op);
const char* to_string(LoopKind k);
const char* to_string(AluOp op);
// " skip_middle_end_transformations no_reorder ..." (the set attributes, each after a space).
std::string kernel_attributes(const KernelInfo& k);

inline const char* to_string(Engine e) {
  switch (e) {
    case Engine::Tensor: return "pe";
    case Engine::Vector: return "dve";
    case Engine::Scalar: return "act";
    case Engine::GpSimd: return "pool";
    case Engine::Sync: return "sp";
    case Engine::Dma: return "dma";
  }
  return "?";
}
inline const char* to_string(BufferKind b) {
  switch (b) {
    case BufferKind::Hbm: return "hbm";
    case BufferKind::Sbuf: return "sbuf";
    case BufferKind::Psum: return "psum";
  }
  return "?";
}
inline const char* to_string(LoopKind k) {
  switch (k) {
    case LoopKind::Affine: return "affine_range";
    case LoopKind::Sequential: return "sequential_range";
    case LoopKind::Static: return "static_range";
    case LoopKind::Python: return "range";
  }
  return "?";
}
inline std::string kernel_attributes(const KernelInfo& k) {
  std::string s;
  if (k.skip_middle_end_transformations) s += " skip_middle_end_transformations";
  if (k.enable_stack_allocator) s += " enable_stack_allocator";
  if (k.force_auto_alloc) s += " force_auto_alloc";
  if (k.no_reorder) s += " no_reorder";
  if (k.multi_buffer) s += " multi_buffer";
  return s;
}
inline const char* to_string(AluOp op) {
  switch (op) {
    case AluOp::Unknown: return "unknown";
    case AluOp::Add: return "add";
    case AluOp::Subtract: return "subtract";
    case AluOp::Multiply: return "multiply";
    case AluOp::Max: return "max";
    case AluOp::Min: return "min";
    case AluOp::Other: return "other";
    case AluOp::Power: return "power";
    case AluOp::Bitwise: return "bitwise";
    case AluOp::Divide: return "divide";
    case AluOp::Mod: return "mod";
    case AluOp::Equal: return "equal";
    case AluOp::NotEqual: return "not_equal";
    case AluOp::Less: return "less";
    case AluOp::LessEqual: return "less_equal";
    case AluOp::Greater: return "greater";
    case AluOp::GreaterEqual: return "greater_equal";
    case AluOp::LogicalAnd: return "logical_and";
    case AluOp::LogicalOr: return "logical_or";
    case AluOp::LogicalXor: return "logical_xor";
    case AluOp::Rsqrt: return "rsqrt";
    case AluOp::Reciprocal: return "reciprocal";
    case AluOp::Abs: return "abs";
  }
  return "?";
}
// The trace text's name of an element format, its bytes and whether it is float32; "" for Unset.
struct ElemTypeInfo {
  const char* name;
  uint8_t bytes;
  bool fp32;
};
inline ElemTypeInfo elem_info(ElemType t) {
  switch (t) {
    case ElemType::Unset: return {"", 4, true};
    case ElemType::F32: return {"f32", 4, true};
    case ElemType::BF16: return {"bf16", 2, false};
    case ElemType::FP16: return {"fp16", 2, false};
    case ElemType::FP8: return {"fp8", 1, false};
    case ElemType::FP8E4M3FN: return {"fp8e4m3fn", 1, false};
    case ElemType::FP8E5M2: return {"fp8e5m2", 1, false};
    case ElemType::TF32: return {"tf32", 4, false};
    case ElemType::F64: return {"f64", 8, false};
    case ElemType::I8: return {"i8", 1, false};
    case ElemType::I16: return {"i16", 2, false};
    case ElemType::I32: return {"i32", 4, false};
    case ElemType::I64: return {"i64", 8, false};
    case ElemType::U8: return {"u8", 1, false};
    case ElemType::U16: return {"u16", 2, false};
    case ElemType::U32: return {"u32", 4, false};
    case ElemType::U64: return {"u64", 8, false};
    case ElemType::Bool: return {"bool", 1, false};
  }
  return {"", 4, true};
}
inline const char* to_string(Opcode op) {
  switch (op) {
    case Opcode::DmaLoad: return "dma_load";
    case Opcode::DmaStore: return "dma_store";
    case Opcode::DmaCopy: return "dma_copy";
    case Opcode::DmaTranspose: return "dma_transpose";
    case Opcode::MatMul: return "matmul";
    case Opcode::Transpose: return "transpose";
    case Opcode::Activation: return "activation";
    case Opcode::TensorTensor: return "tensor_tensor";
    case Opcode::TensorScalar: return "tensor_scalar";
    case Opcode::TensorReduce: return "tensor_reduce";
    case Opcode::TensorPartitionReduce: return "tensor_partition_reduce";
    case Opcode::TensorTensorScan: return "tensor_tensor_scan";
    case Opcode::ScalarTensorTensor: return "scalar_tensor_tensor";
    case Opcode::TensorCopy: return "tensor_copy";
    case Opcode::Reciprocal: return "reciprocal";
    case Opcode::Memset: return "memset";
    case Opcode::Iota: return "iota";
    case Opcode::Select: return "select";
    case Opcode::Broadcast: return "broadcast";
    case Opcode::CopyPredicated: return "copy_predicated";
    case Opcode::BnStats: return "bn_stats";
    case Opcode::BnAggr: return "bn_aggr";
    case Opcode::Other: return "other";
  }
  return "?";
}

}  // namespace trn
