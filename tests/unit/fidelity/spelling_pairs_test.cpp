// The same computation spelt two ways simulates the same (issue 11, styles): users' kernels come
// in other styles than the bundled ones, and a cost that depends on the spelling misleads the
// agent (nkibench/styles/nki_api/gqa_full simulated 1.152x its bundled twin after the same
// rewrite chain: its nc_transpose and its maxima kept as columns of one tile). Each pair in
// tests/kernels/spellings/ is one program written two ways; both must compute the reference and
// simulate within `tolerance` of each other, through the compiler stage, on trn1 and trn2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <tuple>

#include "bench/loader.h"
#include "trn/arch_config.h"
#include "trn/cost_model.h"
#include "trn/trace.h"
#include "eval/evaluate.h"
#include "eval/profile_run.h"
#include "simulated_pair.h"
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(ACCELOPT_SOURCE_DIR) / "tests/kernels/spellings";

struct Pair {
  const char* name;
  const char* reference;
  const char* first;
  const char* second;
  // Largest |first / second - 1| of the latencies allowed: what the two spellings really differ
  // in (the idiom loads its identity by DMA, once).
  double tolerance;
};

const Pair kPairs[] = {
    // A [128, 1] column of a wider tile (`neg_max[:, i:i + 1]`) against a [128, 1] tile of its own,
    // as a reduction's destination and an activation's bias, in one loop nest and in two.
    {"column_vs_own_tile", "softmax.ref.py", "softmax_column.py", "softmax_own_tile.py", 0.001},
    {"column_vs_own_tile_two_nests", "softmax.ref.py", "softmax_nests_column.py", "softmax_nests_own_tile.py", 0.001},
    // nisa.nc_transpose against the matmul with an identity flagged ones-and-zeros (fp32 data;
    // src/lower/transpose_identity.cpp). Without the rule 1.16x (trn1) / 1.34x (trn2). With it the
    // PE busy time is equal; on trn1 the idiom's identity load (one more DMA statement, which takes
    // an IO queue of its own) moves the other transfers and the schedule by 2.5%.
    {"nc_transpose_vs_identity_matmul", "pv.ref.py", "pv_nc_transpose.py", "pv_identity_matmul.py", 0.03},
    // nl.matmul(x, y, transpose_x=True) against nisa.nc_matmul(x, y).
    {"matmul_transpose_x_vs_nc_matmul", "matmul.ref.py", "matmul_transpose_x.py", "matmul_nc_matmul.py", 0.001},
    // Session 9's audit (docs/performance/simulator.md, "Style invariance"): spellings outside
    // authors write, each equal before any change to the model.
    // (a) [128, 512] blocks addressed by `nl.mgrid` index grids against slices.
    {"mgrid_vs_slices", "grid.ref.py", "grid_mgrid.py", "grid_slices.py", 0.001},
    // (b) a ragged last block under `mask=` against the full blocks and the tail written out.
    {"masked_tail_vs_explicit_tail", "ragged.ref.py", "ragged_mask.py", "ragged_tail.py", 0.001},
    // (c) the K blocks of the operands in a block-dim buffer against the middle dim of one tile.
    {"block_dim_vs_tile_middle_dim", "matmul.ref.py", "matmul_nc_matmul.py", "matmul_tile_kt.py", 0.001},
    // (d) `acc[...] +=` into a PSUM nl.ndarray, and the newer API's nc_matmul(dst=acc) (first
    // write overwrites, later ones accumulate), against `acc +=` into nl.zeros in PSUM.
    {"psum_ndarray_vs_psum_zeros", "matmul.ref.py", "matmul_psum_ndarray.py", "matmul_nc_matmul.py", 0.001},
    {"dst_accumulate_vs_psum_zeros", "matmul.ref.py", "matmul_dst_accumulate.py", "matmul_nc_matmul.py", 0.001},
    // (f) nl math (`nl.multiply(nl.exp(x), y)`) against the ISA calls it makes.
    {"nl_math_vs_isa", "expmul.ref.py", "expmul_nl.py", "expmul_nisa.py", 0.001},
    // (g) `nl.sum(nl.square(y), axis=1)` against nisa.activation(square) + nisa.tensor_reduce(add).
    {"nl_sum_square_vs_isa", "sumsq.ref.py", "sumsq_nl.py", "sumsq_nisa.py", 0.001},
    // (c) under SBUF pressure: two 160 KiB halves of w per row tile (320 KiB against trn1's 176 and
    // trn2's 224 KiB), loaded slice by slice into a [128, KT, 1024] tile against a block-dim buffer.
    // Before residency by region inside a tile (docs/simulator.md, On-chip memory) the tile was one
    // unit of space: 617.5 vs 645.8 us on trn1 (152 vs 170 MB of HBM reads), 385.9 vs 379.9 us on
    // trn2.
    {"block_dim_vs_tile_middle_dim_under_pressure", "wide.ref.py", "wide_tile_kt.py", "wide_block_dim.py", 0.001},
    // Session 10 (docs/performance/simulator.md, "Spelling robustness"): kernels by other people
    // simulate by what they do; each equal (0.000%) on trn1 and trn2 before any change to the
    // model, but the folded `range` loop of the newer API (last below).
    // The newer `nki` API (destination-first nisa calls, dma_copy into SBUF buffers) against the
    // legacy neuronxcc API (results returned, nl.load / nl.store).
    {"newer_api_vs_neuronxcc", "expmul.ref.py", "expmul_newer_api.py", "expmul_nisa.py", 0.001},
    // Module-level helpers for the loads and the arithmetic against the same calls inline.
    {"module_helper_vs_inline", "expmul.ref.py", "expmul_helper.py", "expmul_nisa.py", 0.001},
    // `nl.multiply(e, y)` against `nisa.tensor_tensor(e, y, op=nl.multiply)`.
    {"nl_multiply_vs_tensor_tensor", "expmul.ref.py", "expmul_nl_multiply.py", "expmul_nisa.py", 0.001},
    // Explicit index expressions (`x[r * 128 + ip, jf]`, `t[ip, jf]`) against slices and whole tiles.
    {"index_expressions_vs_slices", "expmul.ref.py", "expmul_index.py", "expmul_nisa.py", 0.001},
    // `x[rows, ...]` and `t[...]` against `x[rows, :]` and whole tiles.
    {"ellipsis_vs_slices", "expmul.ref.py", "expmul_ellipsis.py", "expmul_nisa.py", 0.001},
    // `nl.ds(start, size)` against the slice `start:start + size`.
    {"nl_ds_vs_slices", "expmul.ref.py", "expmul_ds.py", "expmul_nisa.py", 0.001},
    // `nisa.dma_copy(dst=, src=)` into nl.ndarray SBUF buffers against nl.load / nl.store (legacy API).
    {"dma_copy_vs_load_store", "expmul.ref.py", "expmul_dma_copy.py", "expmul_nisa.py", 0.001},
    // Index grids from `nl.arange(n)[:, None]` / `[None, :]` against `nl.mgrid[0:128, 0:512]`.
    {"arange_vs_mgrid", "grid.ref.py", "grid_arange.py", "grid_mgrid.py", 0.001},
    // Masks that are true on the whole tile against no mask.
    {"full_mask_vs_no_mask", "grid.ref.py", "grid_full_mask.py", "grid_mgrid.py", 0.001},
    // `nisa.tensor_scalar(t, op, c)` against `nl.multiply(t, c)` / `nl.add(t, c)`.
    {"tensor_scalar_vs_nl_scalar_ops", "grid.ref.py", "grid_tensor_scalar.py", "grid_mgrid.py", 0.001},
    // The Python operator `e * yt` against `nisa.tensor_tensor(e, yt, op=nl.multiply)`.
    {"operator_vs_tensor_tensor", "expmul.ref.py", "expmul_operator.py", "expmul_nisa.py", 0.001},
    // A row loop stepping by 128 (`affine_range(0, R, 128)`) against counting tiles (`r * 128`).
    {"stepped_loop_vs_scaled_index", "expmul.ref.py", "expmul_step.py", "expmul_nisa.py", 0.001},
    // A 3-D `reshape` view of the HBM inputs indexed by the tile against slices of the 2-D inputs.
    {"reshape_view_vs_slices", "expmul.ref.py", "expmul_reshape.py", "expmul_nisa.py", 0.001},
    // Legacy `nl.transpose` of a [128, 128] block against `nisa.nc_transpose` (both on TensorE).
    {"nl_transpose_vs_nc_transpose", "pv.ref.py", "pv_nl_transpose.py", "pv_legacy_nc_transpose.py", 0.001},
    // The newer API's loops written `range` against `nl.affine_range` (in that API the loop kinds are
    // aliases of `range`, all unrolled at specialization: nki-language.md section 2).
    {"newer_api_range_vs_affine_range", "matmul.ref.py", "matmul_dst_accumulate_range.py", "matmul_dst_accumulate.py", 0.001},
    // The same for a loop of one-column activations the compiler folds (loop_folding fires in
    // affine loops only): until session 10 a newer-API `range` loop emitted no loop records, so
    // it was not folded: 26.506 vs 5.152 us on trn1, 29.338 vs 3.356 us on trn2.
    // The affine spelling and the reference are the compiler stage's golden kernels.
    {"newer_api_range_vs_affine_range_folded", "../../golden/lower/nki/column_reference.py", "columns_range.py",
     "../../golden/lower/nki/columns_new_api.py", 0.001},
    // In the legacy neuronxcc API Python `range` is rewritten to `sequential_range` instead (LANG:
    // "Python `range(...)` inside a kernel is rewritten to `sequential_range`"; nki-language.md
    // section 5). Until session 12 the model ran it as straight-line code: 24.622 vs 44.035 us on
    // trn1, 18.148 vs 28.496 us on trn2.
    {"legacy_range_vs_sequential_range", "expmul.ref.py", "expmul_range.py", "expmul_sequential_range.py", 0.001},
    // Session 13 (docs/simulator.md, "The high-level nl surface"): each nki.language call against the
    // ISA calls its documentation says it lowers to (nki-language.md 7.1-7.9), and the
    // tool-generated legacy spelling against a hand-written one. All equal on trn1 and trn2 before
    // any change but the two loop_reduce pairs (last).
    // `nl.tanh` / `nl.sigmoid` / `nl.rsqrt` / `nl.gelu_apprx_sigmoid` against `nisa.activation(op=...)`
    // ("a single activation instruction (same as nisa.activation(op=f, data=x))", 7.4).
    {"nl_activations_vs_isa", "acts.ref.py", "acts_nl.py", "acts_nisa.py", 0.001},
    // `(a * b + c) * 2.0 / s` (s a [P, 1] tile) against two tensor_tensor and two tensor_scalar
    // (operators map to the nl APIs, 7.9; a scalar or a partition vector makes a tensor_scalar, 7.3).
    {"operators_vs_isa", "fma.ref.py", "fma_operators.py", "fma_isa.py", 0.001},
    {"nl_binary_apis_vs_isa", "fma.ref.py", "fma_nl.py", "fma_isa.py", 0.001},
    // `nl.max(axis=1, keepdims=True)` / `nl.sum(axis=[1], keepdims=True)` against nisa.tensor_reduce (7.5).
    {"nl_reductions_vs_tensor_reduce", "rowstats.ref.py", "rowstats_nl.py", "rowstats_isa.py", 0.001},
    // An SBUF accumulator from nl.zeros: `acc += t` against `acc = nl.add(acc, t)` into a fresh tile,
    // and nl.full(0) against nl.zeros.
    {"sbuf_iadd_vs_nl_add", "accsum.ref.py", "accsum_iadd.py", "accsum_add.py", 0.001},
    {"nl_full_vs_nl_zeros", "accsum.ref.py", "accsum_full.py", "accsum_iadd.py", 0.001},
    // A [1, F] row meeting a [128, F] tile in an nl.* operation against the row broadcast to the
    // partitions with broadcast_to first: both are the Tensor Engine's ones-row matmul (ARCH2); the
    // implicit one was free (session 18).
    {"implicit_partition_broadcast_vs_broadcast_to", "rowbcast.ref.py", "rowbcast_implicit.py",
     "rowbcast_broadcast_to.py", 0.001},
    // broadcast_to against the instruction ARCH2 says it lowers to, written out: the matmul of the
    // row (moving) with a row of ones flagged is_stationary_onezero. Until session 21 the flag of the
    // written-out matmul halved its fp32 rate ("may give 2x better performance when that operand is
    // FP32", ISA nc_matmul) and the compiler's own ones did not: broadcast_to simulated 22.08 against
    // 18.61 us on trn1 (23.43 / 19.06 us trn2): rewriting it as the ones-matmul looked like a 1.19x
    // (1.23x) gain for the same instruction. The written-out ones are one memset more.
    {"broadcast_to_vs_onezero_ones_matmul", "rowbcast.ref.py", "rowbcast_broadcast_to.py", "rowbcast_ones_matmul.py",
     0.02},
    // The same row as nl.where's `y` (7.6: an element-wise select, broadcast like the other nl.*
    // APIs, 3.7): the implicit one was free there until session 19.
    {"where_implicit_partition_broadcast_vs_broadcast_to", "rowwhere.ref.py", "rowwhere_implicit.py",
     "rowwhere_broadcast_to.py", 0.02},
    // `nl.copy` against `nisa.tensor_copy` (7.1: a copy instruction whose engine the compiler picks).
    {"nl_copy_vs_tensor_copy", "copy.ref.py", "copy_nl.py", "copy_isa.py", 0.001},
    // `nl.where` against `nisa.select_reduce` without a reduction.
    {"nl_where_vs_select_reduce", "select.ref.py", "select_where.py", "select_isa.py", 0.001},
    // `nl.matmul(x, y)` without transpose_x against the transpose it documents (7.6: "the compiler
    // inserts a transpose of x first"): nisa.nc_transpose, a copy to SBUF, nisa.nc_matmul.
    {"nl_matmul_vs_explicit_transpose", "matmul_rows.ref.py", "matmul_rows_nl.py", "matmul_rows_isa.py", 0.001},
    // `nl.load_transpose2d` against `nisa.dma_transpose` (both one DMA transpose, 7.1 and 8.4).
    {"load_transpose2d_vs_dma_transpose", "transpose.ref.py", "transpose_dma.py", "transpose_dma_isa.py", 0.001},
    // A last window cut by `min()` (newer API, no masks) against `mask=`.
    {"min_slice_vs_mask", "ragged.ref.py", "ragged_min.py", "ragged_mask.py", 0.001},
    // The same on the partition dim: a 104-row last tile under `mask=(r * 128 + ip < R)` against `min()`.
    {"min_rows_vs_partition_mask", "ragrows.ref.py", "ragrows_min.py", "ragrows_mask.py", 0.001},
    // `nl.arange` grids with offsets on the free dims against `nl.ds`.
    {"grid_offsets_vs_nl_ds", "grid.ref.py", "grid_offsets.py", "grid_ds.py", 0.001},
    // The NKIBench tool-generated legacy spelling (numbered block-dim buffers declared up front,
    // grids everywhere, integer free indices, every keyword at its default, numpy op names) against
    // the same instructions written by hand.
    {"generated_vs_hand_written", "rmsrows.ref.py", "rmsrows_generated.py", "rmsrows_hand.py", 0.001},
    // `nl.loop_reduce(x, op, loop_indices)` ("dest = op(dest, x)", the first execution writes x; 7.7,
    // 3.6) against the tensor_tensor it is: until session 13 it recorded no ALU operation, so a 16-bit
    // running max was priced as an add (5.506 vs 11.042 us on trn2) ...
    {"loop_reduce_max_vs_tensor_tensor", "accmax16.ref.py", "accmax16_loop_reduce.py", "accmax16_tensor_tensor.py", 0.001},
    // ... and a sum of matmul products into SBUF was not recognised as the accumulation the compiler
    // keeps in PSUM (src/lower psum_accumulation): 24.643 vs 18.557 us on trn1, 24.912 vs 11.178 us on
    // trn2, against `acc += nl.matmul(...)`.
    // `t * np.float16(2.0)` against `nisa.tensor_scalar(t, nl.multiply, 2.0)` on an fp16 tile: a typed
    // scalar keeps the tile's dtype (3.8). `t * 2.0` does not: SpellingPairs.WeakFloatScalarWidens.
    {"typed_scalar_vs_tensor_scalar", "scale16.ref.py", "scale16_typed.py", "scale16_isa.py", 0.001},
    {"loop_reduce_matmul_vs_iadd", "matmul.ref.py", "matmul_loop_reduce.py", "../../golden/lower/nki/sbuf_accumulation.py",
     0.001},
    // `nisa.nc_stream_shuffle` into a destination allocated once before the loop against one per
    // iteration: a shuffle with no 255 entry overwrites its whole destination and reads only src
    // (ISA: max(MIN_II, N)), so the reused tile is renamed like any overwritten one. Until session
    // 22 the trace also read dst, which chained the iterations through it: trn1 30.55 against
    // 19.15 us, trn2 21.40 against 12.30 us.
    {"stream_shuffle_reused_vs_fresh_dst", "shuffle.ref.py", "shuffle_reused_dst.py", "shuffle_fresh_dst.py", 0.001},
    // Four row tiles' PSUM accumulators as one zeroed block-dimension tensor, against a zeroed
    // [128, N] PSUM tile per row tile (session 23): no zero fill of either runs (PSUM zeros start an
    // accumulation group, ARCH2/MM), block by block (PsumAccumulatorBlocksAreNotZeroFilled).
    {"psum_block_zeros_vs_tile_zeros", "matmul.ref.py", "matmul_psum_blocks.py", "matmul_nc_matmul.py", 0.001},
    // Python's sum() over a generator expression of matmul products against the same sum written
    // as a loop (session 46; SumOverAGeneratorMakesEachProductWhenItIsAdded): 98.6 against 49.0 us
    // on trn1 until the interpreter ran generator expressions lazily.
    {"sum_over_generator_vs_loop", "matsum.ref.py", "matsum_generator.py", "matsum_loop.py", 0.001},
};

using simulated_pair::Simulated;

Simulated simulate(const Pair& p, const char* kernel, const std::string& arch) {
  return simulated_pair::simulate(kDir, p.reference, kernel, arch);
}

// Both spellings compute the reference (seed 0, numerics on, no profile).
void expect_both_compute_the_reference(const Pair& p) {
  for (const char* kernel : {p.first, p.second}) simulated_pair::expect_computes_the_reference(kDir, p.reference, kernel);
}

// Numerics do not depend on the arch: once per pair.
class SpellingPairNumerics : public ::testing::TestWithParam<Pair> {};

TEST_P(SpellingPairNumerics, BothSpellingsComputeTheReference) { expect_both_compute_the_reference(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Spellings, SpellingPairNumerics, ::testing::ValuesIn(kPairs),
                         [](const auto& info) { return std::string(info.param.name); });

using PairCase = std::tuple<Pair, std::string>;

class SpellingPair : public ::testing::TestWithParam<PairCase> {};

TEST_P(SpellingPair, SimulatesTheSame) {
  const auto& [p, arch] = GetParam();
  const Simulated first = simulate(p, p.first, arch), second = simulate(p, p.second, arch);
  ASSERT_GT(second.latency_us, 0);
  EXPECT_LE(std::abs(first.latency_us / second.latency_us - 1), p.tolerance)
      << p.first << " " << first.latency_us << " us, " << p.second << " " << second.latency_us << " us (" << arch << ")";
  // The Tensor Engine's work is the same instructions at the same rates, to rounding.
  EXPECT_NEAR(first.pe_busy_us, second.pe_busy_us, 1e-3 * std::max(second.pe_busy_us, 1e-3))
      << p.first << " against " << p.second << " (" << arch << ")";
}

INSTANTIATE_TEST_SUITE_P(Spellings, SpellingPair,
                         ::testing::Combine(::testing::ValuesIn(kPairs), ::testing::Values("trn1", "trn2")),
                         [](const auto& info) { return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param); });

// (e) `nl.load_transpose2d` against a load, nisa.nc_transpose and a PSUM-to-SBUF copy: both compute
// x.T, but a DMA transpose has a published cost of its own, so the pair is held to that relation,
// not to equality. The loads of the two spellings move the same bytes; the transposing ones cost
// in addition, per [128, 128] fp16 block: on NC-v2 one descriptor per element (PERF: "far below
// load bandwidth"), on NC-v3 the data at 90% of copy throughput from HBM (ARCH3).
TEST(SpellingPairs, LoadTranspose2dCostsWhatTheDmaTransposeIsPublishedToCost) {
  const Pair p{"load_transpose2d_vs_nc_transpose", "transpose.ref.py", "transpose_dma.py", "transpose_pe.py", 0};
  expect_both_compute_the_reference(p);
  const double blocks = 8, elements = 128 * 128;
  {
    const trn::ArchConfig& a = trn::arch_config("trn1");
    ASSERT_EQ(a.dma_transpose_from_hbm, 0);
    const Simulated dma = simulate(p, p.first, "trn1"), pe = simulate(p, p.second, "trn1");
    const double extra = blocks * elements / a.dma_engines * a.dma_descriptor_ns * 1e-3;
    EXPECT_NEAR(dma.dma_load_us - pe.dma_load_us, extra, 0.02 * extra) << dma.dma_load_us << " " << pe.dma_load_us;
    EXPECT_EQ(dma.pe_busy_us, 0);
    EXPECT_GT(pe.pe_busy_us, 0);
  }
  {
    const trn::ArchConfig& a = trn::arch_config("trn2");
    ASSERT_GT(a.dma_transpose_from_hbm, 0);
    const Simulated dma = simulate(p, p.first, "trn2"), pe = simulate(p, p.second, "trn2");
    // At most the data's 1 / 0.9 (the per-transfer costs are common to both), and not free.
    const double ratio = dma.dma_load_us / pe.dma_load_us;
    EXPECT_LE(ratio, 1 / a.dma_transpose_from_hbm + 1e-6) << dma.dma_load_us << " " << pe.dma_load_us;
    EXPECT_GT(ratio, 1 + 0.8 * (1 / a.dma_transpose_from_hbm - 1)) << dma.dma_load_us << " " << pe.dma_load_us;
  }
}

// `nl.matmul(x, y)` without transpose_x against the same product with x loaded already transposed
// (`nl.load_transpose2d`, then transpose_x=True): the documentation says the first lowers to a
// Tensor Engine transpose of each x block before its matmul (nki-language.md 7.6), so it costs the
// PE exactly those transposes more, each `max(P, min(64, F))` cycles for 16-bit data (ISA
// nc_transpose), and the matmuls themselves are the same.
TEST(SpellingPairs, NlMatmulWithoutTransposeXCostsItsDocumentedTransposes) {
  const Pair p{"nl_matmul_vs_pretransposed", "matmul_rows.ref.py", "matmul_rows_nl.py", "matmul_rows_pretransposed.py", 0};
  expect_both_compute_the_reference(p);
  const double blocks = (512 / 128) * (512 / 128), cycles = 128;  // M/128 x K/128 blocks of [128, 128]
  for (const std::string arch : {"trn1", "trn2"}) {
    const trn::ArchConfig& a = trn::arch_config(arch);
    const Simulated nl_form = simulate(p, p.first, arch), pre = simulate(p, p.second, arch);
    const double transposes_us = blocks * cycles / a.tensor_ghz * 1e-3;
    EXPECT_NEAR(nl_form.pe_busy_us - pre.pe_busy_us, transposes_us, 1e-3 * transposes_us)
        << arch << ": " << nl_form.pe_busy_us << " vs " << pre.pe_busy_us << " us of PE";
  }
}

// PE tiling (ISA nc_matmul tile_position / tile_size; trainium-performance.md, Tensor Engine: "the
// 128 rows can be split 2x64 (NC-v2+) ... parallel small matmuls on disjoint tiles"): the K=64
// matmuls of two independent products on the two row halves of the grid run side by side, so the
// PE is active about half as long as with the same matmuls on the whole grid, which take turns.
// The sum of four row tiles accumulated in HBM by DMA read-modify-writes (`dma_copy(dst=out,
// src=t, dst_rmw_op=np.add)`) against VectorE adds into an SBUF accumulator and one store: both
// compute the sum; the accumulating DMAs read the output back (nki-language.md 8.4), so each of
// the three costs the DMA engines twice a plain store of the tile, and the HBM counters see the
// output read three times. Until session 22 an accumulating store cost a plain store's time.
TEST(SpellingPairs, AnAccumulatingDmaCostsTwiceAStoreOfItsTile) {
  const Pair p{"dma_accumulate_vs_vector_add", "rowsum.ref.py", "rowsum_dma_accumulate.py", "rowsum_vector_add.py", 0};
  expect_both_compute_the_reference(p);
  for (const std::string arch : {"trn1", "trn2"}) {
    const Simulated dma = simulate(p, p.first, arch), vec = simulate(p, p.second, arch);
    // vec stores the tile once: one plain store's data time. dma stores it once and accumulates
    // three times.
    ASSERT_GT(vec.dma_store_us, 0) << arch;
    EXPECT_NEAR(dma.dma_store_us, (1 + 3 * 2) * vec.dma_store_us, 0.01 * dma.dma_store_us)
        << arch << ": " << dma.dma_store_us << " vs one store " << vec.dma_store_us << " us";
    EXPECT_NEAR(dma.dma_load_us, vec.dma_load_us, 1e-6) << arch;
  }
}

// A stream shuffle moves data across partitions in VectorE's reshape banks (ARCH2): with src as
// its one input it must not look like a single-input copy the compiler may balance onto ScalarE
// (which reads its own partitions only).
TEST(SpellingPairs, AStreamShuffleStaysOnVectorE) {
  const Pair p{"stream_shuffle", "shuffle.ref.py", "shuffle_fresh_dst.py", "shuffle_reused_dst.py", 0};
  for (const std::string arch : {"trn1", "trn2"})
    for (const char* kernel : {p.first, p.second}) {
      const Simulated s = simulate(p, kernel, arch);
      EXPECT_GT(s.vector_scalar_us, 0) << kernel << " " << arch;
      EXPECT_EQ(s.scalar_us, 0) << kernel << " " << arch;
    }
}

// The zero fill nl.zeros(..., buffer=nl.psum) emits is one memset per block of the tensor; none of
// them runs, since the first matmul of each accumulation group writes its bank (ARCH2, MM; a matmul
// accumulating into PSUM a memset wrote is undefined, ISA-NEW). Until session 23 only the first
// block's fill was skipped: the block-dim spelling cost three VectorE memsets of [128, 512] fp32
// (1.51 us on trn1) that the tile-per-row-tile spelling did not.
TEST(SpellingPairs, PsumAccumulatorBlocksAreNotZeroFilled) {
  const Pair p{"psum_block_zeros_vs_tile_zeros", "matmul.ref.py", "matmul_psum_blocks.py", "matmul_nc_matmul.py", 0};
  for (const std::string arch : {"trn1", "trn2"}) {
    const Simulated blocks = simulate(p, p.first, arch), tiles = simulate(p, p.second, arch);
    EXPECT_EQ(tiles.vector_us, 0) << arch;
    EXPECT_EQ(blocks.vector_us, 0) << arch << ": " << blocks.vector_us << " us of VectorE (zero fills)";
    EXPECT_NEAR(blocks.latency_us, tiles.latency_us, 1e-3 * tiles.latency_us) << arch;
  }
}

// sum() over a generator expression of [128, 512] fp32 matmul products, sixteen per row tile (32
// KiB per partition together, twice a PSUM partition): Python makes each product when sum() asks
// for the next item, so the trace is product, add, product, add, each product dead after its add,
// and nothing is spilled. Until session 46 the interpreter evaluated a generator expression whole
// before its consumer ran: every product of a row tile was live at once and the memory model
// spilled eight of the sixteen to HBM and back (4 MiB each way here, 2x the loop's latency); an
// outside author's matmul + rmsnorm and swiglu kernels showed 256 MiB of such spill, and HBM
// writes 9x their output.
TEST(SpellingPairs, SumOverAGeneratorMakesEachProductWhenItIsAdded) {
  for (const std::string arch : {"trn1", "trn2"}) {
    eval::ProfileRun run = eval::profile_kernel(
        eval::trace_request_from_files((kDir / "matsum.ref.py").string(), (kDir / "matsum_generator.py").string()),
        arch);
    ASSERT_TRUE(run.profile.has_value()) << arch;
    const trn::Profile& p = *run.profile;
    EXPECT_EQ(p.spill_save_bytes, 0u) << arch;
    EXPECT_EQ(p.spill_reload_bytes, 0u) << arch;
    EXPECT_EQ(p.hbm_write_bytes, 256u * 512 * 4) << arch;  // the output, once
  }
}

// A memset costs max(MIN_II, N) of the engine that runs it ("Vector (or GpSimd)", ISA memset;
// trainium-performance.md 2). The same zeroed SBUF accumulator written `nl.zeros` (engine left to
// the compiler: GpSimd) and `nisa.memset(engine=nisa.vector_engine)`: the fill streams the same
// cycles on either engine, each at its own clock. GPSIMD_START (~150 cycles) is published for
// iota, affine_select and local_gather, not memset; until session 23 the GpSimd memset paid it
// (150 + N).
TEST(SpellingPairs, AMemsetCostsTheSameCyclesOnGpSimdAsOnVectorE) {
  const Pair p{"nl_zeros_vs_vector_memset", "accsum.ref.py", "accsum_iadd.py", "accsum_vector_memset.py", 0};
  expect_both_compute_the_reference(p);
  for (const std::string arch : {"trn1", "trn2"}) {
    const trn::ArchConfig cfg = trn::arch_config(arch);
    const Simulated zeros = simulate(p, p.first, arch), memset = simulate(p, p.second, arch);
    // The adds are the same VectorE instructions in both; the vector memset adds its fill to them.
    const double gpsimd_cycles = zeros.gpsimd_us * 1e3 * cfg.gpsimd_ghz;
    const double vector_cycles = (memset.vector_us - zeros.vector_us) * 1e3 * cfg.vector_ghz;
    EXPECT_EQ(memset.gpsimd_us, 0) << arch;
    ASSERT_GT(gpsimd_cycles, 512) << arch;  // N = 512 columns
    EXPECT_NEAR(gpsimd_cycles, vector_cycles, 1.0) << arch;
  }
}

// nisa.tensor_copy_predicated streams src and predicate: N cycles when one of them is in PSUM,
// 2N when both are in SBUF (ISA; the same two-SRAM rule as tensor_tensor). The same program with
// the matmul product as src straight from PSUM, and evacuated to SBUF first: the second costs the
// evacuation (a PSUM copy, on ScalarE: Engine choice) plus N more VectorE cycles for its
// predicated copy. Until session 23 the predicated copy was a select at N either way.
TEST(SpellingPairs, APredicatedCopyFromSbufStreamsTwoInputs) {
  const Pair p{"predcopy_from_psum_vs_sbuf", "predcopy.ref.py", "predcopy_from_psum.py", "predcopy_from_sbuf.py", 0};
  expect_both_compute_the_reference(p);
  for (const std::string arch : {"trn1", "trn2"}) {
    const trn::ArchConfig cfg = trn::arch_config(arch);
    const Simulated psum = simulate(p, p.first, arch), sbuf = simulate(p, p.second, arch);
    const double n = 512;  // columns of the tiles
    const double expected_us = (n / cfg.scalar_ghz + n / cfg.vector_ghz) * 1e-3;
    EXPECT_NEAR(sbuf.vector_scalar_us - psum.vector_scalar_us, expected_us, 1e-3)
        << arch << ": " << sbuf.vector_scalar_us << " vs " << psum.vector_scalar_us << " us of VectorE + ScalarE";
  }
}

TEST(SpellingPairs, MatmulsOnDisjointPeTilesRunSideBySide) {
  const Pair p{"pe_tiles_rows_vs_whole", "pe_tiles.ref.py", "pe_tiles_rows.py", "pe_tiles_whole.py", 0};
  expect_both_compute_the_reference(p);
  for (const std::string arch : {"trn1", "trn2"}) {
    const Simulated rows = simulate(p, p.first, arch), whole = simulate(p, p.second, arch);
    // Half, and on trn1 a little more: each product's chain of accumulating matmuls waits the
    // accumulation turnaround (64 of every 512 + 64 cycles) that the other half does not fill.
    const double ratio = rows.pe_busy_us / whole.pe_busy_us;
    EXPECT_GT(ratio, 0.48) << arch << ": " << rows.pe_busy_us << " vs " << whole.pe_busy_us << " us of PE";
    EXPECT_LT(ratio, 0.6) << arch << ": " << rows.pe_busy_us << " vs " << whole.pe_busy_us << " us of PE";
    EXPECT_LT(rows.latency_us, 0.8 * whole.latency_us) << arch << ": " << rows.latency_us << " vs " << whole.latency_us;
  }
}

// `t * 2.0` on an fp16 tile against `nisa.tensor_scalar(t, nl.multiply, 2.0)`: the documentation
// says they differ. A Python float is weakly typed as float32, so the operator's product is a
// float32 tile ("fp16_tile + 1.2 -> float32"), while a single-input API keeps its input's dtype
// (nki-language.md 3.8). On NC-v3 a 16-bit VectorE tensor_scalar runs in performance mode and an
// fp32 result does not (ARCH3), so the operator costs the compute engines more; NC-v2 has no such
// mode, so there the two cost the same.
TEST(SpellingPairs, WeakFloatScalarWidensA16BitTileAsDocumented) {
  const Pair p{"weak_float_vs_tensor_scalar", "scale16.ref.py", "scale16_operator.py", "scale16_isa.py", 0};
  expect_both_compute_the_reference(p);
  {
    ASSERT_EQ(trn::arch_config("trn1").vector_perf_mode_copy, 1u);
    const Simulated weak = simulate(p, p.first, "trn1"), kept = simulate(p, p.second, "trn1");
    EXPECT_NEAR(weak.vector_scalar_us, kept.vector_scalar_us, 1e-6) << "trn1";
  }
  {
    ASSERT_GT(trn::arch_config("trn2").vector_perf_mode_copy, 1u);
    const Simulated weak = simulate(p, p.first, "trn2"), kept = simulate(p, p.second, "trn2");
    EXPECT_GT(weak.vector_scalar_us, 1.5 * kept.vector_scalar_us) << weak.vector_scalar_us << " vs " << kept.vector_scalar_us;
  }
}

// The instructions with a fused reduction (has_reduce) in the trace of the pair's first kernel;
// fails the test when the trace holds an instruction of one of the `absent` opcodes (the separate
// pass the fusion replaces).
std::vector<trn::InstructionInfo> fused_reductions(const Pair& p, std::initializer_list<trn::Opcode> absent) {
  eval::TraceRequest req = eval::trace_request_from_files((kDir / p.reference).string(), (kDir / p.first).string());
  trn::TraceBuffer trace;
  EXPECT_EQ(eval::trace_kernel(req, trace).status, eval::Status::Ok);
  std::vector<trn::InstructionInfo> fused;
  for (const trn::Record& r : trace.records) {
    if (r.kind != trn::RecordKind::Instruction) continue;
    for (trn::Opcode o : absent) EXPECT_NE(r.inst.opcode, o) << "a separate pass the fused instruction replaces";
    if (r.inst.has_reduce) fused.push_back(r.inst);
  }
  return fused;
}

// nisa.tensor_scalar_reduce is ONE Vector Engine instruction costing `max(MIN_II, N) + MIN_II`
// (ISA tensor_scalar_reduce; trainium-performance.md 2), with reduce_res written by that
// instruction. Until session 20 it was traced as a tensor_scalar followed by a tensor_reduce over
// its result (about 2N, and the tensor_scalar could move to ScalarE). Against the explicit pair
// it computes: the same values, one instruction per tile at N + MIN_II, and the explicit
// tensor_reduce's N cycles less on the compute engines.
TEST(SpellingPairs, TensorScalarReduceIsOneVectorInstructionOfNPlusMinII) {
  const Pair p{"tensor_scalar_reduce_vs_explicit", "scalered.ref.py", "scalered_fused.py", "scalered_explicit.py", 0};
  expect_both_compute_the_reference(p);
  const uint64_t n = 2048, tiles = 4;  // scalered.ref.py: COLS, TILES
  const auto fused = fused_reductions(p, {trn::Opcode::TensorReduce});
  ASSERT_EQ(fused.size(), tiles);
  for (const std::string arch : {"trn1", "trn2"}) {
    const trn::ArchConfig& a = trn::arch_config(arch);
    for (const trn::InstructionInfo& inst : fused) {
      EXPECT_EQ(inst.opcode, trn::Opcode::TensorScalar);
      EXPECT_EQ(inst.outputs.size(), 2u) << "the result and reduce_res";
      EXPECT_FALSE(trn::engine_is_flexible(inst)) << "Vector Engine only (ISA)";
      EXPECT_EQ(trn::placed_engine(inst), trn::Engine::Vector);
      EXPECT_EQ(trn::instruction_cycles(inst, a), std::max<uint64_t>(a.min_ii, n) + a.min_ii) << arch;
    }
    // The explicit tensor_reduces' N cycles each, less the fused MIN_II, counted at the faster of
    // the two engines' clocks (the explicit pair's tensor_scalar may run on ScalarE).
    const Simulated one = simulate(p, p.first, arch), two = simulate(p, p.second, arch);
    const double reduce_us = double(tiles * (n - a.min_ii)) / std::max(a.vector_ghz, a.scalar_ghz) * 1e-3;
    EXPECT_GT(two.vector_scalar_us - one.vector_scalar_us, reduce_us)
        << arch << ": " << one.vector_scalar_us << " vs " << two.vector_scalar_us << " us of VectorE + ScalarE";
  }
}

// nisa.activation_reduce (and activation with reduce_res) is one ScalarE instruction costing
// `max(MIN_II, N) + MIN_II` (ISA activation_reduce = activation + ActReadAccumulator, about 64
// ScalarE cycles, ARCH2), writing its result and reduce_res. Until session 20 the readout was a
// separate one-element tensor_copy which the engine balancing moved to VectorE (whose SBUF
// port it then waited for, with a semaphore), on top of the 64 cycles already on the activation.
TEST(SpellingPairs, ActivationReduceIsOneScalarInstructionOfNPlusMinII) {
  const Pair p{"activation_reduce_vs_explicit", "expsum.ref.py", "expsum_fused.py", "expsum_explicit.py", 0};
  expect_both_compute_the_reference(p);
  const uint64_t n = 2048, tiles = 4;  // expsum.ref.py: COLS, TILES
  // No separate readout of the accumulators (a tensor_copy) and no reduction pass.
  const auto fused = fused_reductions(p, {trn::Opcode::TensorCopy, trn::Opcode::TensorReduce});
  ASSERT_EQ(fused.size(), tiles);
  for (const std::string arch : {"trn1", "trn2"}) {
    const trn::ArchConfig& a = trn::arch_config(arch);
    for (const trn::InstructionInfo& inst : fused) {
      EXPECT_EQ(inst.opcode, trn::Opcode::Activation);
      EXPECT_EQ(trn::placed_engine(inst), trn::Engine::Scalar);
      EXPECT_EQ(inst.outputs.size(), 2u) << "the result and reduce_res";
      EXPECT_EQ(trn::instruction_cycles(inst, a), std::max<uint64_t>(a.min_ii, n) + a.act_read_accumulator) << arch;
    }
    // The explicit tensor_reduces' N VectorE cycles each, less the fused readout's 64 ScalarE ones.
    const Simulated one = simulate(p, p.first, arch), two = simulate(p, p.second, arch);
    const double saved_us = double(tiles * n) / a.vector_ghz * 1e-3 - double(tiles * a.act_read_accumulator) / a.scalar_ghz * 1e-3;
    EXPECT_GT(two.vector_scalar_us - one.vector_scalar_us, saved_us)
        << arch << ": " << one.vector_scalar_us << " vs " << two.vector_scalar_us << " us of VectorE + ScalarE";
  }
}

}  // namespace

// The same pass over 64- instead of 512-column tiles: 256 B per partition row per transfer
// instead of 2 KiB. Loop vectorization (LANG, the only published middle-end transformation) is
// published for instructions; a loop that issues DMAs keeps its iterations, each small DMA its
// per-transfer cost: DMABW (< 256 B per partition "severely overhead-bound", ~1300 ns
// per transfer), the DMA overview's curve (256 B at 0.10 of the 32 KiB rate, 2 KiB at 0.80), and
// NAD V0/V1 (trainium-measurements 1.3: the device profile keeps one transfer per [128, 128]
// bf16 tile, 256 B rows, V2's row loads 1.36x faster with the same bytes). Until session 24
// loop_folding merged the column loop's loads and stores too, and the 64-column pass simulated
// faster than the 512-column one (trn1 47.66 vs 47.94 us, trn2 35.41 vs 35.70 us); now 333.5 vs
// 47.9 us trn1 (one queue per statement, 1.3 us a transfer), 115.8 vs 35.7 us trn2.
TEST(SpellingPairs, SmallTilesKeepTheirPerTransferDmaCost) {
  const Pair p{"mix_cols512_vs_cols64", "mix.ref.py", "mix_cols512.py", "mix_cols64.py", 0};
  expect_both_compute_the_reference(p);
  for (const std::string arch : {"trn1", "trn2"}) {
    const Simulated wide = simulate(p, p.first, arch), narrow = simulate(p, p.second, arch);
    EXPECT_GT(narrow.latency_us, 2.0 * wide.latency_us) << arch << ": " << narrow.latency_us << " vs " << wide.latency_us;
  }
}
