// Moves that let the engines overlap across iterations (issue 13: gqa_full and
// matmul_add_rmsnorm, where the Tensor Engine waited on another engine every iteration):
//   - pipeline_prep on a loop that transposes blocks of a tile made before it (attention's P) and
//     feeds them to matmuls: the loop splits, the Tensor Engine runs the transposes back to back
//     instead of waiting for each block's copy out of PSUM;
//   - in_place: elementwise results written over a tile that dies there, so a row's epilogue holds
//     fewer SBUF tiles and the next row's loads no longer wait for space.
// Each is found in the three styles of the task's kernel (bundled, legacy_grid, nki_api), keeps
// the outputs of a small kernel, and lowers the simulated latency of the full-size kernel.
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "loopnest/arg_spec.h"
#include "builtin_test_support.h"

namespace agents::builtin {
namespace {

using builtin_test::golden_dir;
using builtin_test::read;
using builtin_test::simulated_ms;

using Args = std::vector<loopnest::ArgSpec>;
using builtin_test::arrays;
using builtin_test::style_kernel;

// The task's arguments as the kernels take them (the reference's transform_to_nki_inputs).
const Args& gqa_args() {
  static const Args args = arrays({{32, 128, 16, 128}, {1, 8, 4, 128, 8, 128}, {1, 32, 128, 1024}});
  return args;
}

// The loop-nest site of `transform` whose anchor (trip counts / op) starts with `needle`, or fails.
Site site_in(const std::string& source, const Args& args, const std::string& transform, const std::string& needle) {
  for (auto& s : find_sites(source, args))
    if (s.transform == transform && s.params.count("anchor") && s.params.at("anchor").rfind(needle, 0) == 0) return s;
  ADD_FAILURE() << "no " << transform << " site at " << needle;
  return Site{};
}

TEST(BuiltinOverlap, PipelinePrepSplitsTheTransposeLoopOfPAndKeepsTheResult) {
  std::string source = read(golden_dir() + "/attn_pv.py");
  Args args = loopnest::arg_specs_from_header(source);
  Site s = site_in(source, args, "pipeline_prep", "2x8/");  // the kv-tile loop inside the query loop
  std::string after = apply_site(source, s, args);
  // The transposes' copies land in a tile per kv block; the matmuls read them in a loop of their own.
  EXPECT_NE(after.find("p_t[t, :, :]"), std::string::npos) << after;
  auto shapes = builtin_test::input_shapes(source);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(after, shapes), builtin_test::run_source(source, shapes)),
            1e-6);
}

TEST(BuiltinOverlap, PipelinePrepOfPGainsOnGqaInEveryStyle) {
  const std::string task = "gqa_full_B1_N4096_QH16_KH8_D128";
  for (const char* style : {"bundled", "legacy_grid", "nki_api"}) {
    SCOPED_TRACE(style);
    std::string kernel = style_kernel(style, task);
    Site s = site_in(kernel, gqa_args(), "pipeline_prep", "16x32x32/");
    double before = simulated_ms(task, kernel), after = simulated_ms(task, apply_site(kernel, s, gqa_args()));
    // 23.9 -> 16.8 ms on simulator v2 with ScalarE/VectorE holding their queue behind a wait on
    // a TensorE result (21.0 -> 11.9 ms before that rule; docs/performance/builtin_agent.md).
    EXPECT_LT(after, 0.8 * before);
  }
}

// A tile read again later (x_tile) or by every iteration (g_tile) is never overwritten; the tiles
// that die take the results, and a row needs one tile where it needed three.
const char* kEpilogue = R"(# inputs: 256x512 512
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, g):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    g_tile = nl.load(g.reshape((1, 512))).broadcast_to((128, 512))
    for m in nl.affine_range(2):
        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])
        sq = nl.multiply(x_tile, x_tile)
        y = nl.multiply(sq, g_tile)
        z = nl.add(y, x_tile)
        nl.store(out[m * 128:(m + 1) * 128, :], value=z)
    return out
)";

TEST(BuiltinOverlap, InPlaceWritesOnlyOverTilesThatDie) {
  std::string source = kEpilogue;
  Args args = loopnest::arg_specs_from_header(source);
  Site s = site_in(source, args, "in_place", "2/");
  std::string after = apply_site(source, s, args);
  EXPECT_NE(after.find("sq[...] = nl.multiply(sq, g_tile)"), std::string::npos) << after;
  EXPECT_NE(after.find("sq[...] = nl.add(sq, x_tile)"), std::string::npos) << after;
  EXPECT_NE(after.find("value=sq"), std::string::npos) << after;
  EXPECT_EQ(after.find("g_tile[...] ="), std::string::npos) << after;
  EXPECT_EQ(after.find("x_tile[...] ="), std::string::npos) << after;
  auto shapes = builtin_test::input_shapes(source);
  EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(after, shapes), builtin_test::run_source(source, shapes)),
            1e-6);
  // Tiles made before the loop are read by every iteration: never overwritten inside it.
  std::string shared = source;
  shared.replace(shared.find("    for m in"), 0, "    x_tile = nl.load(x[0:128, :])\n");
  shared.replace(shared.find("        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])\n"),
                 std::string("        x_tile = nl.load(x[m * 128:(m + 1) * 128, :])\n").size(), "");
  for (const auto& site : find_sites(shared, args))
    if (site.transform == "in_place") {
      std::string text = apply_site(shared, site, args);
      EXPECT_EQ(text.find("x_tile[...] ="), std::string::npos) << text;
      EXPECT_EQ(text.find("g_tile[...] ="), std::string::npos) << text;
      EXPECT_LT(builtin_test::rel_error(builtin_test::run_source(text, shapes), builtin_test::run_source(shared, shapes)),
                1e-6);
    }
}

TEST(BuiltinOverlap, InPlaceEpilogueGainsOnMatmulAddRmsnormInEveryStyle) {
  const std::string task = "matmul_add_rmsnorm_M4096_N2048_K2048";
  const Args args = arrays({{4096, 2048}, {2048, 2048}});
  Args all = args;
  loopnest::ArgSpec eps;
  eps.is_array = false;
  eps.dtype = "float";
  eps.scalar = 1e-5;
  all.push_back(eps);
  for (const auto& a : arrays({{4096, 2048}, {2048}})) all.push_back(a);
  for (const char* style : {"bundled", "legacy_grid", "nki_api"}) {
    SCOPED_TRACE(style);
    std::string kernel = style_kernel(style, task);
    Site s = site_in(kernel, all, "in_place", "32/");
    double before = simulated_ms(task, kernel), after = simulated_ms(task, apply_site(kernel, s, all));
    // 2.14 -> 1.72 ms (bundled, legacy_grid), 1.89 ms (nki_api) on simulator v2.
    EXPECT_LT(after, 0.9 * before);
  }
}

}  // namespace
}  // namespace agents::builtin
