// The layout transformations of the built-in agent (layout_transforms.cpp): fold_partitions and
// chunk_free_axis. The golden before/after pairs (tests/golden/rewrite/ew_*) are checked with the
// rest of the catalogue in builtin_rewrite_test.cpp; here: where they refuse to apply, every site
// of the small kernels computes the same outputs, the NKIBench baselines they are for offer them,
// and the planner's symptoms and pre-checks that steer them.
#include <gtest/gtest.h>

#include "agents/builtin/legality.h"
#include "agents/builtin/planner.h"
#include "agents/builtin/symptoms.h"
#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

using builtin_test::golden_dir;
using builtin_test::read;
using builtin_test::sites_of;

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string bench_kernel(const std::string& name) {
  return read(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/kernels/" + name);
}

double error_after(const std::string& source, const Site& site) {
  auto shapes = builtin_test::input_shapes(source);
  return builtin_test::rel_error(builtin_test::run_source(apply_site(source, site), shapes),
                                 builtin_test::run_source(source, shapes));
}

TEST(BuiltinLayout, FoldPartitionsDoublesRowsAndHalvesTheColumnLoop) {
  std::string source = read(golden_dir() + "/ew_rope.py");
  auto sites = sites_of(source, "fold_partitions");
  ASSERT_EQ(sites.size(), 1u);
  std::string after = apply_site(source, sites[0]);
  EXPECT_NE(after.find("x_fold = x.reshape((2 * x.shape[0], x.shape[1] // 2))"), std::string::npos);
  EXPECT_NE(after.find("for c in nl.affine_range(seq // 2 // block):"), std::string::npos);
  EXPECT_NE(after.find("x_fold[2 * half:2 * d_size, c * block:(c + 1) * block]"), std::string::npos);
  EXPECT_NE(after.find("nl.store(out_fold[0:2 * half"), std::string::npos);
  EXPECT_NE(after.find("return out\n"), std::string::npos);  // the original tensor, not the view
  EXPECT_LT(error_after(source, sites[0]), 1e-6);
  // Folding again (8 -> 16 -> 32 partitions) is still a column loop of fixed row ranges.
  auto again = sites_of(after, "fold_partitions");
  ASSERT_EQ(again.size(), 1u);
  EXPECT_LT(error_after(after, again[0]), 1e-6);
}

TEST(BuiltinLayout, FoldPartitionsRefusesWhatWouldChangeTheResult) {
  std::string source = read(golden_dir() + "/ew_rope.py");
  const std::string cols = "c * block:(c + 1) * block";
  // Rows already tiled by an enclosing loop (the tiles span the partitions the loop walks).
  std::string tiled = replace(replace(source, "    for c in nl.affine_range(seq // block):\n",
                                      "    for r in nl.affine_range(1):\n"
                                      "     for c in nl.affine_range(seq // block):\n"),
                              "x[0:half, " + cols, "x[r * half:(r + 1) * half, " + cols);
  EXPECT_TRUE(sites_of(tiled, "fold_partitions").empty());
  // A literal row range that already fills more than half of the 128 partitions.
  EXPECT_TRUE(sites_of(replace(source, "x[0:half, ", "x[0:96, "), "fold_partitions").empty());
  // Only full-row accesses (`T[:, cols]`): nothing says the tiles leave partitions unused.
  std::string full = read(golden_dir() + "/loops.py");
  EXPECT_TRUE(sites_of(full, "fold_partitions").empty());
  // A reduction along the free axis mixes columns the fold puts on different partitions.
  EXPECT_TRUE(sites_of(replace(source, "high = nl.add(",
                               "high = nisa.tensor_reduce(nl.add, x1, axis=[1], keepdims=True) + nl.add("),
                       "fold_partitions")
                  .empty());
  // A per-partition scalar operand (a (P, 1) tile) would be paired with other rows.
  EXPECT_TRUE(sites_of(replace(source, "low = nisa.tensor_tensor(",
                               "low0 = nisa.tensor_scalar(data=x0, op0=nl.multiply, operand0=x1[:, 0:1])\n"
                               "        low = nisa.tensor_tensor("),
                       "fold_partitions")
                  .empty());
  // A mask numbers the tile's partitions as they were (an index grid made before the loop): on the
  // folded tile it would guard other rows.
  EXPECT_TRUE(sites_of(replace(replace(source, "    block = 512\n", "    block = 512\n    i_p = nl.arange(half)[:, None]\n"),
                               "nl.multiply(x1, cos_tile))", "nl.multiply(x1, cos_tile), mask=(i_p < half - 2))"),
                       "fold_partitions")
                  .empty());
  // An activation's row sum (reduce_res) runs along the free axis, which the fold splits over two
  // partitions: each would hold the sum of half a row.
  EXPECT_TRUE(sites_of(replace(replace(source, "    block = 512\n",
                                       "    block = 512\n    acc = nl.ndarray((half, 1), dtype=nl.float32, buffer=nl.sbuf)\n"),
                               "low = nisa.tensor_tensor(",
                               "e = nisa.activation(op=nl.exp, data=x0, reduce_op=nl.add, reduce_res=acc)\n"
                               "        low = nisa.tensor_tensor("),
                       "fold_partitions")
                  .empty());
  // The loop variable used for anything but placing column tiles.
  EXPECT_TRUE(sites_of(replace(source, "low = nisa.tensor_tensor(", "k = c + 1\n        low = nisa.tensor_tensor("),
                       "fold_partitions")
                  .empty());
}

TEST(BuiltinLayout, ChunkFreeAxisCarriesTheScanAcrossChunks) {
  std::string source = read(golden_dir() + "/ew_scan.py");
  auto sites = sites_of(source, "chunk_free_axis");
  ASSERT_EQ(sites.size(), 3u);  // 512, 1024, 2048 columns: the task pre-check picks among them
  std::string after = apply_site(source, sites[0]);
  EXPECT_NE(after.find("chunk_size = 512\n"), std::string::npos);
  EXPECT_NE(after.find("for chunk in nl.sequential_range(seq // chunk_size):"), std::string::npos);
  EXPECT_NE(after.find("initial=scan_carry[:, s:s + 1]"), std::string::npos);
  EXPECT_NE(after.find("scan_carry[:, s:s + 1] = nl.copy(h[:, chunk_size - 1:chunk_size])"), std::string::npos);
  EXPECT_NE(after.find("nl.load(b[s:s + 1, chunk_start:chunk_start + chunk_size]).broadcast_to((128, chunk_size))"),
            std::string::npos);
  // Loads that do not depend on the row width stay outside the chunk loop.
  EXPECT_LT(after.find("a_tile = nl.load(a[c0:c0 + 128, :])"), after.find("for chunk in"));
  EXPECT_LT(error_after(source, sites[0]), 1e-6);
  EXPECT_LT(error_after(source, sites[1]), 1e-6);  // one chunk of 1024: the same kernel
  // The chunk size is a variable: free_size retunes it and the carry's last column follows.
  Site halve;
  for (const auto& s : sites_of(after, "free_size"))
    if (s.params.count("var") && s.params.at("var") == "chunk_size" && s.params.at("value") == "256") halve = s;
  ASSERT_FALSE(halve.transform.empty());
  std::string smaller = apply_site(after, halve);
  auto shapes = builtin_test::input_shapes(source);
  auto want = builtin_test::run_source(source, shapes);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(smaller, shapes), want), 1e-6);
  // The chunked kernel offers no second chunking (its tiles are no longer full rows).
  EXPECT_TRUE(sites_of(after, "chunk_free_axis").empty());
}

TEST(BuiltinLayout, ChunkFreeAxisWithoutScanIsAnAffineLoop) {
  // silu-like full-row elementwise body: no carry, the chunks are independent.
  std::string source = R"(# inputs: 128x1024
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    parts, cols = x.shape
    out = nl.ndarray((parts, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(parts // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        res = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        res[...] = nl.multiply(t, nl.exp(t))
        nl.store(out[r * 128:(r + 1) * 128, :], value=res)
    return out
)";
  // `res[...] = ...` slices a full-width tile: refused.
  EXPECT_TRUE(sites_of(source, "chunk_free_axis").empty());
  std::string plain = replace(
      replace(source, "        res = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)\n", ""),
                              "res[...] = nl.multiply(t, nl.exp(t))",
                              "e = nl.zeros((128, cols), dtype=nl.float32, buffer=nl.sbuf)\n"
                              "        res = nl.multiply(t, nl.exp(e))");
  auto sites = sites_of(plain, "chunk_free_axis");
  ASSERT_FALSE(sites.empty());
  std::string after = apply_site(plain, sites[0]);
  EXPECT_NE(after.find("for chunk in nl.affine_range(cols // chunk_size):"), std::string::npos);
  EXPECT_EQ(after.find("scan_carry"), std::string::npos);
  EXPECT_LT(error_after(plain, sites[0]), 1e-6);
}

TEST(BuiltinLayout, ChunkFreeAxisRefusesWhatWouldChangeTheResult) {
  std::string source = read(golden_dir() + "/ew_scan.py");
  // A reduction along the row mixes chunks.
  EXPECT_TRUE(sites_of(replace(source, "acc += nisa.tensor_tensor(h, c_row, op=nl.multiply)",
                               "acc += nisa.tensor_reduce(nl.add, h, axis=[1], keepdims=True)"),
                       "chunk_free_axis")
                  .empty());
  // A scan that starts from a tile (someone else's carry) or a non-zero value.
  EXPECT_TRUE(sites_of(replace(source, "initial=0,", "initial=1.0,"), "chunk_free_axis").empty());
  // A column of a full-width tile is read: its index would change meaning.
  EXPECT_TRUE(sites_of(replace(source, "delta_u = nisa.tensor_tensor(delta_tile, u_tile, op=nl.multiply)",
                               "delta_u = nisa.tensor_tensor(delta_tile, u_tile, op=nl.multiply)\n"
                               "        last = nl.copy(delta_u[:, 0:1])"),
                       "chunk_free_axis")
                  .empty());
  // The row width used for something else than tile shapes (here an index computation).
  EXPECT_TRUE(sites_of(replace(source, "        c0 = ct * 128\n", "        c0 = ct * 128 + seq * 0\n"),
                       "chunk_free_axis")
                  .empty());
}

TEST(BuiltinLayout, ChunkSizesMustTileTheTask) {
  TaskInfo task;
  task.kernel_file_name = "mamba_M7168_C256_S16_0.py";
  auto dims = task_dimensions(task);
  std::string mamba = bench_kernel("mamba_M7168_C256_S16_0.py");
  std::set<std::string> kept;
  for (const auto& s : sites_of(mamba, "chunk_free_axis"))
    if (plausible(s, dims, mamba)) kept.insert(s.params.at("value"));
  EXPECT_EQ(kept, (std::set<std::string>{"512", "1024"}));  // 2048 does not divide 7168
}

TEST(BuiltinLayout, BaselinesOfferTheirLayoutRewrite) {
  EXPECT_EQ(sites_of(bench_kernel("rope_single_freq_apply_B1_H64_N4096_D128_0.py"), "fold_partitions").size(), 1u);
  EXPECT_EQ(sites_of(bench_kernel("mamba_M7168_C256_S16_0.py"), "chunk_free_axis").size(), 3u);
  // Full 128-row tiles: nothing to fold; blocked columns: nothing to chunk.
  for (const char* k : {"adamw_M10944_N2048_0.py", "silu_M4096_N7168_0.py", "matmul_M4096_N12288_K5120_0.py"}) {
    SCOPED_TRACE(k);
    EXPECT_TRUE(sites_of(bench_kernel(k), "fold_partitions").empty());
    EXPECT_TRUE(sites_of(bench_kernel(k), "chunk_free_axis").empty());
  }
}

TEST(BuiltinLayout, EngineMoveReachesAnAccumulatedProduct) {
  std::string source = read(golden_dir() + "/ew_scan.py");
  Site move;
  for (const auto& s : sites_of(source, "engine_move"))
    if (s.params.at("engine") == "gpsimd" && s.summary.find("acc +=") != std::string::npos) move = s;
  ASSERT_FALSE(move.transform.empty());
  std::string after = apply_site(source, move);
  EXPECT_NE(after.find("acc += nisa.tensor_tensor(h, c_row, op=nl.multiply, engine=nisa.gpsimd_engine)"),
            std::string::npos);
  EXPECT_LT(error_after(source, move), 1e-6);
}

TEST(BuiltinLayout, SymptomsForNarrowTransfersAndStalls) {
  trn::Profile p;
  p.latency = 2.25;
  // rope's baseline: 64-partition transfers keep the queues busy twice their fabric share.
  p.engine_busy_ms = {{"dma", 1.18}, {"dma_load", 1.57}, {"dma_store", 0.79}, {"dve", 2.24}};
  EXPECT_TRUE(diagnose(p).count("narrow_dma"));
  EXPECT_FALSE(diagnose(p).count("latency_bound"));
  p.engine_busy_ms = {{"dma", 1.31}, {"dma_load", 1.06}, {"dma_store", 0.26}, {"dve", 1.8}};
  EXPECT_FALSE(diagnose(p).count("narrow_dma"));
  // mamba's baseline: no engine above 64% busy.
  p.latency = 2.12;
  p.engine_busy_ms = {{"dma", 0.07}, {"dve", 1.36}, {"pe", 0.66}, {"act", 0.17}};
  EXPECT_TRUE(diagnose(p).count("latency_bound"));
}

TEST(BuiltinLayout, ThePlannerPrefersTheRewritesOnTheirSymptoms) {
  Site fold{"fold_partitions", {{"line", "16"}, {"factor", "2"}}, ""};
  Site chunk{"chunk_free_axis", {{"line", "15"}, {"value", "1024"}, {"width", "seq"}}, ""};
  Site grow{"free_size", {{"line", "15"}, {"from", "1024"}, {"value", "2048"}, {"var", "block"}}, ""};
  // rope's baseline symptoms: the fold outweighs a larger block; without them it is a long shot.
  Symptoms rope{"narrow_dma", "dve_busy"};
  EXPECT_GT(prior_weight(fold, rope, nullptr), prior_weight(grow, rope, nullptr));
  EXPECT_LT(prior_weight(fold, {"dve_busy"}, nullptr), prior_weight(grow, {"dve_busy"}, nullptr));
  Symptoms mamba{"latency_bound", "pe_idle"};
  EXPECT_GT(prior_weight(chunk, mamba, nullptr), prior_weight(grow, mamba, nullptr));
  EXPECT_LT(prior_weight(chunk, {"dve_busy"}, nullptr), prior_weight(grow, {"dve_busy"}, nullptr));
}

}  // namespace
}  // namespace agents::builtin
