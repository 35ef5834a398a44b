// hoist_compute (src/loopnest/hoist_compute.cpp): an instruction that does not depend on an
// enclosing loop moves before it with the loads feeding it, into buffers with one tile per
// iteration of the inner loops it uses. The chunked selective scan in three styles
// (tests/kernels/chunk_scan_{tiles,grid,api}.py) offers the same site: `d * u` out of the state
// loop, with the loads of d and u; applied, delta and u are read once instead of once per state. A
// variant that writes the delta tile inside the state loop, or stores to delta there, is refused.
// That every site keeps the kernel's outputs is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <gtest/gtest.h>

#include "corpus.h"
#include "count_loads.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::loads_of;
using loopnest_test::read;
using loopnest_test::source_dir;

std::string kernel_text(const std::string& style) {
  return read(source_dir() + "/tests/kernels/chunk_scan_" + style + ".py");
}

std::vector<loopnest::Site> sites_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args,
                                     const std::string& transform = "hoist_compute") {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == transform) out.push_back(s);
  return out;
}

// The sites moving `d * u` (the newer API's kernel also offers the b and c rows' broadcasts, which
// its style writes as instructions of their own: out of the channel loop).
std::vector<loopnest::Site> product_sites(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : sites_of(text, args))
    if (s.anchor.find("/multiply#") != std::string::npos) out.push_back(s);
  return out;
}

// delta, u (256, 2048), a (256, 4), b, c (4, 2048): 2 channel tiles, 4 states, 4 chunks of 512.
const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 2048}, {256, 2048}, {256, 4}, {4, 2048}, {4, 2048}});

TEST(HoistCompute, FindsTheSameSiteInEveryStyleAndReadsDeltaAndUOnce) {
  std::string first;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = product_sites(text, kArgs);
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    EXPECT_EQ(sites[0].params.at("out_of"), "1");
    EXPECT_EQ(sites[0].params.at("loads"), "2");
    // 2 channel tiles x 4 states x 4 chunks.
    EXPECT_EQ(loads_of(text, kArgs, 0), 32);
    EXPECT_EQ(loads_of(text, kArgs, 1), 32);
    std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
    EXPECT_EQ(loads_of(after, kArgs, 0), 8) << after;
    EXPECT_EQ(loads_of(after, kArgs, 1), 8) << after;
    // The product is computed before the state loop, and nothing is left to hoist out of it.
    EXPECT_TRUE(product_sites(after, kArgs).empty()) << after;
  }
}

TEST(HoistCompute, NamesTheProductItSplitsOffAStatement) {
  std::string text = kernel_text("tiles");
  std::string after = loopnest::apply_site("k.py", text, kArgs, product_sites(text, kArgs).at(0));
  // `nisa.tensor_tensor(nisa.tensor_tensor(d, uu, ...), b_row, ...)`: the inner call becomes `d_uu`,
  // filled in one loop with the loads; `uu`, read by the product alone, stays one tile of the fill's
  // iteration, while `d` (read in the state loop too) gets a tile per chunk.
  EXPECT_NE(after.find("            d[j, :, :] = nl.load(delta[rows, nl.ds(j * CH, CH)])\n"
                       "            uu = nl.load(u[rows, nl.ds(j * CH, CH)])\n"
                       "            d_uu[j, :, :] = nisa.tensor_tensor(d[j, :, :], uu, op=nl.multiply)\n"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("drive = nisa.tensor_tensor(d_uu[j, :, :], b_row, op=nl.multiply)"), std::string::npos)
      << after;
  EXPECT_LT(after.find("d_uu[j, :, :] ="), after.find("for s in")) << after;
}

TEST(HoistCompute, RefusesWhenTheStateLoopWritesTheDeltaTile) {
  // d rescaled in place inside the state loop: its writer there is not a load hoist_expand moves.
  std::string text = kernel_text("tiles");
  const std::string load = "                d = nl.load(delta[rows, nl.ds(j * CH, CH)])\n";
  ASSERT_NE(text.find(load), std::string::npos);
  text.replace(text.find(load), load.size(), load + "                d[...] = nl.multiply(d, 0.5)\n");
  EXPECT_TRUE(product_sites(text, kArgs).empty());
}

TEST(HoistCompute, RefusesWhenTheStateLoopStoresToDelta) {
  // The loaded tensor changes per state: the load is not invariant in the state loop.
  std::string text = kernel_text("api");
  const std::string copy = "                nisa.tensor_copy(dst=carry, src=h[:, CH - 1:CH])\n";
  ASSERT_NE(text.find(copy), std::string::npos);
  text.replace(text.find(copy), copy.size(),
               copy + "                nisa.dma_copy(dst=delta[c0:c0 + 128, j * CH:(j + 1) * CH], src=h)\n");
  EXPECT_TRUE(product_sites(text, kArgs).empty());
}

TEST(HoistCompute, RefusesAProductCarriedAcrossChunks) {
  // `du` read in the chunk loop before it is written there (the previous chunk's value): its block
  // per chunk would be read before it is filled.
  std::string text = kernel_text("api");
  const std::string decl = "            for j in nl.sequential_range(seq // CH):\n";
  const std::string first_use = "                nisa.activation(dst=decay, op=nl.exp, data=d, scale=a_tile[:, s:s + 1])\n";
  ASSERT_NE(text.find(first_use), std::string::npos);
  text.replace(text.find("                du = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)\n"),
               std::string("                du = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)\n").size(), "");
  text.replace(text.find(decl), decl.size(),
               "            du = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)\n" + decl);
  text.replace(text.find(first_use), first_use.size(),
               "                nisa.activation(dst=decay, op=nl.exp, data=du, scale=a_tile[:, s:s + 1])\n");
  EXPECT_TRUE(product_sites(text, kArgs).empty());
}

}  // namespace

// A key tile transposed into PSUM and copied out into its columns of a K^T block, per query block
// (tests/kernels/key_blocks_psum_copy.py): the transpose and its copy fold into the transpose
// writing the columns, which leaves `for i` with the loads feeding it; k is read once instead of
// once per query block, and the same site as the kernel that transposes into the columns directly.
// A copy whose transposed tile is read again elsewhere is not folded (no site).
TEST(HoistCompute, TakesATransposeCopiedOutOfPsumWithItsLoad) {
  const auto args = arrays({{2, 128, 128}, {2, 4, 128, 128}});
  std::string direct = read(source_dir() + "/tests/kernels/key_blocks_per_query.py");
  std::string text = read(source_dir() + "/tests/kernels/key_blocks_psum_copy.py");
  auto sites = sites_of(text, args);
  ASSERT_EQ(sites.size(), 1u);
  auto want = sites_of(direct, args);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(sites[0].anchor, want[0].anchor);
  EXPECT_EQ(sites[0].params, want[0].params);
  EXPECT_EQ(loads_of(text, args, 1), 16);  // 2 query blocks x 2 key blocks x 4 tiles
  std::string after = loopnest::apply_site("k.py", text, args, sites[0]);
  EXPECT_EQ(loads_of(after, args, 1), 8) << after;
  EXPECT_EQ(after.find("kt_ps = nl.transpose(k_t)\n"), std::string::npos) << after;
  // The transposed tile read by a second copy: the pair is not one step.
  const std::string copy = "nl.copy(kt_ps, dtype=nl.float32)\n";
  ASSERT_NE(text.find(copy), std::string::npos);
  std::string twice = text;
  twice.insert(twice.find(copy) + copy.size(), "                kT[:, t * P:(t + 1) * P] = nl.copy(kt_ps, dtype=nl.float32)\n");
  EXPECT_TRUE(sites_of(twice, args).empty());
}
