// Per-instruction costs: the published "estimated instruction cost" formulas (nki.isa pages, v2.21
// to v2.26) plus fixed per-instruction overheads, and the DMA transfer model. Pure functions of an
// instruction and an ArchConfig; the scheduler decides when things run. Examples with the numbers
// worked out by hand: tests/unit/trn/cost_model_test.cpp.
#pragma once

#include <cstdint>

#include "trn/arch_config.h"
#include "trn/trace.h"

namespace trn {

// Streaming cycles of a compute-engine instruction, in the clock of `inst.engine`: how long it
// occupies its engine once its inputs are there (the ISA "estimated instruction cost").
uint64_t instruction_cycles(const InstructionInfo& inst, const ArchConfig& arch);

// Streaming time in ns of a compute-engine instruction.
double instruction_ns(const InstructionInfo& inst, const ArchConfig& arch);

// Fixed cost in ns of a Vector/Scalar/GpSimd instruction that has to wait for its inputs: the
// static overhead plus the per-access overhead of each tensor operand (ArchConfig). An
// instruction whose inputs were ready while its engine was still busy hides it (0 on TensorE,
// whose pipeline latency is result_latency_ns).
// The static overhead an instruction below ArchConfig::small_instruction_elements pays while
// streaming (0 when the switch is off, for other engines and larger instructions).
double small_static_ns(const InstructionInfo& inst, const ArchConfig& arch);
double fixed_overhead_ns(const InstructionInfo& inst, const ArchConfig& arch);

// Result latency in ns of an instruction on `engine` after its streaming ends (TensorE only).
double result_latency_ns(Engine engine, const ArchConfig& arch);

// Whether the compiler may place this instruction on another engine (nki.isa.unknown_engine):
// tensor_scalar and tensor_copy run on VectorE or ScalarE (SBUF inputs only: see placed_engine),
// except one without a ScalarE form on its NeuronCore (InstructionInfo::no_scalar_engine).
bool engine_is_flexible(const InstructionInfo& inst);

// The engine the compiler gives an instruction: the recorded one, except that a flexible
// instruction reading PSUM (a PSUM evacuation) goes to ScalarE. On NC-v2 VectorE and ScalarE
// cannot access PSUM at the same time (ARCH2), so splitting evacuations between them gains
// nothing; the real profiles show them on ScalarE (matmul: VectorE 0.000% active, ScalarE 6.8%).
Engine placed_engine(const InstructionInfo& inst);

// Clock (GHz) of an engine; DMA and Sync use the profiler base clock.
double engine_ghz(Engine engine, const ArchConfig& arch);

// Hardware FLOPs as neuron-profile counts them (Tensor Engine instructions only, else 0).
uint64_t hardware_flops(const InstructionInfo& inst, const ArchConfig& arch);

// One DMA transfer: `setup_ns` is the fixed cost its queue spends before the data moves (one
// transfer at a time per queue, overlapped with the data of earlier transfers); `duration_ns` is
// how long its data moves on the engines it spans; `fabric_ns` is how long it occupies the core's
// whole DMA capacity (a transfer on few engines leaves the rest to other queues).
// Which way a transfer's data crosses the HBM interface: from HBM (loads, reloads), to HBM
// (stores, spill saves), both (HBM to HBM) or neither (SBUF to SBUF).
enum class DmaDirection : uint8_t { FromHbm, ToHbm, Both, OnChip };

struct DmaTiming {
  double setup_ns = 0;
  double duration_ns = 0;
  double fabric_ns = 0;
  // The DMA engines the transfer moves on, each for duration_ns: `engines` of them from
  // `first_engine` (the ones serving its SBUF partitions, DMAO).
  uint32_t first_engine = 0, engines = 0;
  // With separate directions (ArchConfig::dma_directions): how long its HBM bytes occupy the
  // core's HBM bandwidth, which the two directions share.
  double hbm_ns = 0;
  DmaDirection direction = DmaDirection::FromHbm;
};

enum class DmaTransposeKind : uint8_t { None, FromHbm, OnChip };

struct DmaShape {
  uint64_t bytes = 0;
  uint32_t partitions = 1;   // SBUF partitions (or HBM rows) the transfer spans
  uint64_t descriptors = 1;  // contiguous chunks (DMA buffers) the transfer is made of
  DmaTransposeKind transpose = DmaTransposeKind::None;
  // The HBM side: contiguous runs the engines read or write there (0: no HBM side, an SBUF-to-SBUF
  // copy) and the bytes of each. Rows that follow each other in HBM make one run.
  uint64_t hbm_runs = 0;
  uint64_t hbm_run_bytes = 0;
  DmaDirection direction = DmaDirection::FromHbm;
  // Element-granular access (a DMA transpose, or an HBM row strided inside): its elements and
  // their size; each element is a contiguous run of its own (ARCH2: a transfer is a list of
  // contiguous DMA buffers).
  uint64_t element_runs = 0;
  uint32_t element_bytes = 0;
  // dst_rmw_op: the transfer also reads its destination (accumulates into it).
  bool rmw = false;
  // The first SBUF partition it spans (0 without an SBUF side): which DMA engines move it.
  uint32_t first_partition = 0;
};

DmaTiming dma_timing(const DmaShape& shape, const ArchConfig& arch);

// The DMA shape of a DMA instruction record (uses its SBUF- and HBM-side operands).
DmaShape dma_shape(const InstructionInfo& inst);

}  // namespace trn
