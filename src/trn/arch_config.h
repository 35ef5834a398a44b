// NeuronCore hardware parameters: every constant the performance model uses, in one place, each
// with its source (keys of docs/simulator.md and /work/shared/docs/trainium-performance.md).
// Nothing here is keyed on a kernel or a task.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace trn {

// One point of the DMA efficiency curve: share of peak bandwidth reached when every partition row
// moves `bytes` contiguous bytes.
struct DmaEfficiencyPoint {
  uint32_t bytes;
  double efficiency;
};

struct ArchConfig {
  std::string name;  // "trn1" | "trn2"

  // Engine clocks in GHz (ARCH2 / ARCH3 engine tables).
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0, gpsimd_ghz = 0;
  double profiler_clock_ghz = 0;  // neuron-profile base clock (SCHEMA)

  // Tensor Engine (ARCH2 1.5, ISA nc_matmul).
  uint32_t pe_rows = 128, pe_cols = 128;
  uint32_t mm_init_latency = 64;   // floor of a matmul's initiation interval, PE cycles
  uint32_t fp32_matmul_factor = 4; // fp32 streams at 1/4 rate
  uint32_t fp32_flops_factor = 2;  // profiler counts fp32 matmuls twice (AO data, derived)

  // Fixed per-instruction costs (engine cycles).
  uint32_t min_ii = 64;             // MIN_II (ISA)
  // Static per-instruction overhead of VectorE/ScalarE/GpSimd instructions: "on the order of 100
  // cycles" (PERF Opt #5a), "add 100 engine cycles per instruction" (ARCH2).
  uint32_t static_overhead = 100;
  uint32_t gpsimd_start = 150;      // GPSIMD_START (ISA iota/affine_select)
  uint32_t min_ii_dynamic = 600;    // MIN_II_DYNAMIC (ISA tensor_copy_dynamic_*)
  uint32_t act_read_accumulator = 64;  // ActReadAccumulator (ARCH2)
  // nisa.reciprocal on VectorE, cycles per element (calibrated, docs/simulator.md; ISA says 8).
  double vector_reciprocal_factor = 3.0;
  // tensor_tensor with both inputs in SBUF (not all 16-bit), cycles per element (calibrated,
  // docs/simulator.md; the ISA table says 2).
  double tensor_tensor_sbuf_factor = 1.5;

  // Result latency after an instruction's busy time, in engine cycles: a dependent instruction
  // sees it, the engine does not (it starts independent work). ScalarE: the measured 264-cycle II
  // of dependent 1-element activations (PERF Opt #5a) minus MIN_II and the static overhead;
  // VectorE/GpSimd: none published beyond the static overhead; TensorE: MM_INIT_LATENCY.
  uint32_t pe_latency = 64, act_latency = 100, dve_latency = 0, pool_latency = 0;

  // On-chip memories per partition (ARCH2 1.3, ALLOC).
  uint32_t partitions = 128;
  uint32_t sbuf_bytes_per_partition = 0;
  uint32_t psum_bytes_per_partition = 16 * 1024;
  uint32_t psum_banks = 8;

  // DMA (DMAO, DMABW, ARCH2 1.6).
  uint32_t dma_engines = 16;
  double dma_engine_bytes_per_ns = 0;  // per engine peak
  double hbm_bytes_per_ns = 0;         // per NeuronCore HBM bandwidth cap
  double dma_fixed_ns = 1300;          // per-transfer setup + semaphore latency
  std::array<DmaEfficiencyPoint, 11> dma_efficiency{};

  // Peak figures used by the profile summary.
  double tensor_peak_flops() const { return 2.0 * pe_rows * pe_cols * tensor_ghz * 1e9; }
  double profiler_hbm_bytes_per_s = 0;  // ridge-point denominator (410e9 on trn1)
  double dma_bytes_per_ns() const;      // aggregate DMA bandwidth, capped by HBM
  double dma_efficiency_at(uint64_t contiguous_bytes) const;  // interpolated, 0..1
};

// Returns the configuration named "trn1" or "trn2"; throws std::invalid_argument otherwise.
const ArchConfig& arch_config(std::string_view name);

}  // namespace trn
