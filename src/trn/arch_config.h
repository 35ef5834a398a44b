// NeuronCore hardware parameters: every constant the performance model uses, in one place, each
// with its source (keys of docs/simulator.md and /work/shared/docs/trainium-performance.md).
// Constants marked "calibrated" are not fixed by a publication; docs/simulator.md gives the
// measurements they were chosen against. Nothing here is keyed on a kernel or a task.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace trn {

// One point of the digitized DMA efficiency curve (DMAO figure): relative throughput of a stream
// of [128 x bytes] transfers. Not used as a multiplier: the simulator reproduces it from the
// per-queue fixed cost (TrnEngineModel.OneQueueReproducesThePublishedDmaEfficiencyCurve in
// tests/unit/trn/engine_model_test.cpp checks the agreement).
struct DmaEfficiencyPoint {
  uint32_t bytes;
  double efficiency;
};

struct ArchConfig {
  std::string name;  // "trn1" | "trn2"
  int nc_version = 2;  // NeuronCore generation, nisa.nc_version: gen2 (trn1, NeuronCore-v2), gen3 (trn2, v3)

  // Engine clocks in GHz (ARCH2 / ARCH3 engine tables).
  double tensor_ghz = 0, vector_ghz = 0, scalar_ghz = 0, gpsimd_ghz = 0;
  double profiler_clock_ghz = 0;  // neuron-profile base clock (SCHEMA)

  // Tensor Engine (ARCH2 1.5, ISA nc_matmul).
  uint32_t pe_rows = 128, pe_cols = 128;
  uint32_t mm_init_latency = 64;   // floor of a matmul's initiation interval, PE cycles
  uint32_t fp32_matmul_factor = 4; // fp32 streams at 1/4 rate (ISA, ARCH2)
  uint32_t fp32_passes = 2;        // an fp32 matmul is two FP32_LO_HI instructions (SCHEMA): the
                                   // profiler counts its flops and its SBUF/PSUM bytes twice
  bool pe_transpose_mode = false;  // NC-v3 transpose mode: fp32 transposes at 2x (ARCH3)
  // An fp32 matmul operand flagged is_stationary_onezero / is_moving_onezero halves the fp32
  // factor ("may give 2x better performance when that operand is FP32", ISA nc_matmul).
  bool onezero_halves_fp32 = true;

  // Vector / Scalar / GpSimd instruction costs (engine cycles, ISA "Estimated instruction cost").
  uint32_t min_ii = 64;             // MIN_II
  // Fixed cost of an instruction that waits for its inputs: the static overhead ("add about 100
  // cycles when ... each depends on the previous one", ARCH2, said of VectorE) plus one tensor
  // access request of about 60 cycles (ARCH2), for the operand it waited on: the requests of the
  // operands that were already there are issued while it waits ("partly hidden by
  // instruction-level parallelism", ARCH2). Paid only when the instruction cannot issue behind
  // earlier work of its engine (it depends on a result that is not ready): independent
  // instructions stream back to back at their ISA cost (about 60 ns per small VectorE instruction
  // on the device, issue 11). ScalarE's static overhead is its own (calibrated): the only ScalarE
  // number, dependent 1-element activations at an II of 264 cycles (PERF Opt #5a), leaves
  // 264 - MIN_II - 60 = 140 cycles.
  uint32_t static_overhead = 100;
  // ARCH2's static overhead applies to back-to-back instructions "with N << 128 or each depending
  // on the previous one"; the model charges it to waiting instructions only (fixed_overhead_ns).
  // When non-zero, an instruction streaming fewer elements per partition than this pays the
  // static overhead as streaming time, waiting or not. Off (0): no threshold for "N << 128" is
  // published, and at 64 the Mamba v3 entries move away from the device (trn1 median 0.05448 ->
  // 0.05608, docs/simulator.md, session-21 audit). Kept as a switch (`--set`) for the experiment.
  uint32_t small_instruction_elements = 0;
  uint32_t scalar_static_overhead = 140;
  uint32_t access_overhead = 60;
  uint32_t gpsimd_start = 150;      // GPSIMD_START (ISA iota/affine_select)
  uint32_t min_ii_dynamic = 600;    // MIN_II_DYNAMIC (ISA tensor_copy_dynamic_*)
  uint32_t act_read_accumulator = 64;  // ActReadAccumulator (ARCH2)
  // ScalarE evaluates functions from a table; switching to another function loads its table:
  // the DMAO timelines of two load-exp-store kernels both show a 1.33 us segment before the exp
  // (trainium-measurements 1.6, Trn2: 1600 ScalarE cycles at 1.2 GHz; the same cycles on Trn1).
  uint32_t act_table_load_cycles = 1600;
  // nisa.reciprocal on VectorE, cycles per element (calibrated on silu and adamw; ISA says 8N).
  double vector_reciprocal_factor = 3.0;
  // rsqrt as a GpSimd tensor_scalar step, cycles per element: "4x lower throughput than ScalarE"
  // (SHARED, trainium-performance.md 2: rsqrt via tensor_scalar(op0=rsqrt) on GpSimd), whose
  // activation(rsqrt) is N; NC-v2's statement, used for NC-v3 like the other formulas.
  double gpsimd_rsqrt_factor = 4.0;
  // NC-v3 VectorE performance mode for 16-bit data (ARCH3): tensor_copy / tensor_scalar 4x with
  // SBUF in and out and a contiguous innermost dimension, 2x otherwise; tensor_tensor 2x with
  // both inputs in SBUF. 1 = no performance mode (NC-v2).
  uint32_t vector_perf_mode_copy = 1, vector_perf_mode_copy_partial = 1, vector_perf_mode_tt = 1;
  // NC-v2: VectorE and GpSimd share the SBUF port, VectorE and ScalarE the PSUM port; the compiler
  // serializes their accesses (ARCH2). NC-v3 lifts both limits (ARCH3).
  bool shared_engine_ports = true;

  // The compiler's instruction scheduler orders each engine's stream by readiness over a window
  // of this many instructions in program order (SCHED, ISA-NEW: "an automatic instruction
  // scheduler may reorder independent instructions"; the window is not published). Among the
  // instructions of the window that touch no tile an earlier one of the window touches, the one
  // that can start first is placed first. 1 = program order (first-fit placement only).
  uint32_t reorder_window = 32;

  // Latency a dependent instruction on another engine sees after its producer finishes: the
  // semaphore signal and wait between two engines (not published; calibrated).
  double semaphore_ns = 0;
  // TensorE result latency before a dependent sees a matmul's PSUM (MM_INIT_LATENCY, PE cycles).
  uint32_t pe_latency = 64;
  // PE cycles a matmul accumulating into a PSUM region waits after the previous matmul into that
  // region stops streaming (in place of pe_latency, which other readers of the result wait; until
  // 3 Dec 2026 it was pe_latency on both generations). Not published: PSUM accumulation is a
  // near-memory read-add-write controlled by the PE itself, and the PE is "deeply pipelined: cost
  // is the initiation interval between instruction launches, not latency" (ARCH2). Trn1
  // (calibrated): 64, MM_INIT_LATENCY; its calibrate entries move away from the device without it
  // (rmsnorm_matmul 0.955x -> 0.935x, swiglu 0.887x -> 0.867x at 0). Trn2: 0 (make_trn2).
  uint32_t pe_accumulate_turnaround = 64;
  // An activation that switches ScalarE's function table runs after the ScalarE instructions
  // before it in program order (docs/simulator.md, "Dependences and program order";
  // rmsnorm_matmul's idle PE, gqa_full's overlapped softmax).
  bool act_table_switch_in_order = true;

  // On-chip memories per partition (ARCH2 1.3, ALLOC).
  uint32_t partitions = 128;
  uint32_t sbuf_bytes_per_partition = 0;
  uint32_t psum_bytes_per_partition = 16 * 1024;
  uint32_t psum_banks = 8;

  // DMA (DMAO, DMABW, ARCH2 1.6).
  uint32_t dma_engines = 16;
  double dma_engine_bytes_per_ns = 0;  // achievable per-engine rate (DMAO/DMABW tables)
  double hbm_bytes_per_ns = 0;         // per NeuronCore HBM bandwidth cap
  // Per-transfer fixed cost ("descriptor setup, synchronization, and semaphore-to-start latency
  // ~1300 ns", DMABW). A queue sets up one transfer at a time, overlapped with the data of the
  // transfers before it: a stream of small transfers on one queue is bound by it (this is the
  // digitized efficiency curve), a stream of large ones by bandwidth.
  double dma_fixed_ns = 1300;
  // IO queues the compiler spreads a kernel's transfers over (not published; calibrated).
  uint32_t dma_queues = 1;
  // How transfers pick their IO queue. Per statement (1): each DMA statement of the kernel (its
  // source line) keeps one queue, so a loop's stream of loads from one statement is in order on
  // one queue, one fixed cost at a time (DMAO: a transfer goes to one queue, in order within a
  // queue; the Trn1 matmul tutorial's loops of single-statement loads take 1.17-1.22 us per
  // transfer, the DMABW fixed cost). Round robin (0): consecutive transfers alternate queues.
  bool dma_queue_per_statement = false;
  // What a "statement" is for that rule: the HBM tensor and direction of the transfers (true) or
  // the kernel's source line (false).
  bool dma_queue_per_tensor = true;
  // The DMA engines serve their queues round robin (DMAO: "round-robin between queues" on
  // NC-v2/v3), so a transfer whose data is ready shares the engines with the transfers of other
  // queues already in flight instead of waiting for all of them (true). False: the engines serve
  // transfers in the order they were placed, across queues (the rule until 2 Dec 2026).
  bool dma_round_robin = true;
  // Reads from HBM and writes to HBM move on separate paths, each at the engines' rate, and share
  // only the core's HBM bandwidth (true); false: loads and stores share one capacity of
  // dma_engines x dma_engine_bytes_per_ns (docs/simulator.md, DMA, "Directions").
  bool dma_directions = false;
  // Per contiguous chunk (DMA buffer) per engine: descriptor processing (not published;
  // calibrated). Dominates element-granular transfers (transposes, 4-byte strides).
  double dma_descriptor_ns = 0;
  // Smallest HBM payload a DMA descriptor costs its engine (bytes): a contiguous HBM run shorter
  // than this occupies the engine moving it as long as a run of this size would (0: off). The
  // published rules key DMA efficiency on the bytes per descriptor ("aim for desc_bytes of at least
  // 4 KB", DMA efficiency investigation; ">= 2 KiB minimum recommended", DMABW); the floor is
  // what makes repeated small loads cost the engines, shared by all queues (docs/simulator.md, DMA).
  double dma_min_descriptor_bytes = 0;
  // NC-v3 DMA transpose (ARCH3): HBM->SBUF at 90% and SBUF->SBUF at 50% of copy throughput. 0 on
  // NC-v2, where a DMA transpose moves one element per descriptor (PERF: far below load rate).
  double dma_transpose_from_hbm = 0, dma_transpose_on_chip = 0;
  // An element-granular HBM access (a DMA transpose without NC-v3's transposer, a row strided
  // inside) is made of runs of one element: true, each pays the short-row floor
  // (dma_min_descriptor_bytes) as short HBM rows do, ~90 ns per element on Trn1; false (kept),
  // one dma_descriptor_ns each. Off: no suite entry separates the two, and the transposing store
  // of issue 11 costs microseconds, not the floor's hundreds (docs/simulator.md, DMA, session 22).
  bool dma_element_runs_floor = false;
  // A DMA with dst_rmw_op (accumulate into the destination) reads the destination as well as its
  // source: its engines move the bytes twice and an HBM destination is read and written (true);
  // false: priced as a plain copy (the rule until 4 Dec 2026, session 22).
  bool dma_rmw_reads_dst = true;
  // Each DMA engine moves one transfer at a time (ARCH2: "one transfer at a time per engine;
  // engines run in parallel") and serves its 8 consecutive SBUF partitions (DMAO): true, a
  // transfer occupies the engines of its SBUF partitions for its data time, so two transfers on
  // the same partitions take turns there even when the core's capacity has room; false, every
  // transfer only shares the core's capacity (the rule until session 25: eight [16, N] tiles on
  // partitions 0-15 moved side by side on "their" 2 engines).
  bool dma_engine_occupancy = true;
  std::array<DmaEfficiencyPoint, 11> dma_efficiency{};

  // Fixed cost of starting a kernel run on the device, inside every measured whole-run latency:
  // an nki.benchmark NeuronCore latency (NCL) and a profile's total_time / device execution time
  // (SCHEMA: the hardware span between the run's start and stop notifications, idle included;
  // MAMBA: each NEFF run has start-up and tear-down time). Added to the simulated latency when
  // comparing with those numbers. trainium-measurements.md §0/§1.9 (Trn2, CS149): a one-iteration
  // vector add (FREE_DIM=200) reports NCL p99 15 us, "most of it fixed cost"; one iteration of that
  // dependent DMA-in -> VectorE op -> DMA-out chain costs 1.86-1.89 us on the device (the 100- and
  // 200-iteration runs, §5), so 15 - ~2 = 13 us; the profiled one- and two-iteration 256K vector
  // adds (total_time 28 / 26 us) hold the same ~13 us beside work simulated at 14.3 / 13.9 us. No
  // Trn1 figure is published; the same value is used there.
  double launch_offset_us = 13.0;

  // Peak figures used by the profile summary.
  double tensor_peak_flops() const { return 2.0 * pe_rows * pe_cols * tensor_ghz * 1e9; }
  double profiler_hbm_bytes_per_s = 0;  // ridge-point denominator (410e9 on trn1)
  double dma_bytes_per_ns() const;      // aggregate DMA bandwidth, capped by HBM
  // The least time in ns the DMA engines need to move `read_bytes` from and `write_bytes` to HBM
  // (per direction and HBM-capped with dma_directions; else all at dma_bytes_per_ns()).
  double hbm_traffic_floor_ns(double read_bytes, double write_bytes) const;
  double dma_efficiency_at(uint64_t contiguous_bytes) const;  // interpolated, 0..1
};

// Returns the configuration named "trn1" or "trn2"; throws std::invalid_argument otherwise.
const ArchConfig& arch_config(std::string_view name);

// Sets one numeric parameter by its member name (e.g. "semaphore_ns", "dma_queues"), for
// sensitivity scans and calibration (bench/sim_calibrate); throws std::invalid_argument naming the
// parameter when it is unknown or the value is out of range.
void set_parameter(ArchConfig& arch, std::string_view name, double value);

}  // namespace trn
