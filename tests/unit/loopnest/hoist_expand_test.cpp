// hoist_expand (src/loopnest/hoist_expand.cpp): a load inside inner loops that does not use an
// outer loop's variable moves before that loop into a buffer with one tile per iteration of the
// inner loops it uses. The same nest in three styles (tests/kernels/reload_matmul_{tiles,grid,api}.py)
// offers the same site and, once applied, loads the weight once instead of once per row tile; a
// buffer that would not fit an SBUF partition is filled per chunk of the column loop (cut around
// the row loop); a tensor the kernel writes inside the loop is refused, a scratch an earlier nest
// filled is not. That every
// site keeps the kernel's outputs is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's.
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
  return read(source_dir() + "/tests/kernels/reload_matmul_" + style + ".py");
}

std::vector<loopnest::Site> hoist_sites(const std::string& text, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "hoist_expand") out.push_back(s);
  return out;
}

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 256}, {2, 128, 1024}});

TEST(HoistExpand, FindsTheSameSiteInEveryStyleAndLoadsTheWeightOnce) {
  std::string first;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = hoist_sites(text, kArgs);
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    EXPECT_EQ(sites[0].params.at("out_of"), "1");
    // 2 row tiles x 2 column blocks x 2 k tiles -> 2 x 2.
    EXPECT_EQ(loads_of(text, kArgs, 1), 8);
    std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
    EXPECT_EQ(loads_of(after, kArgs, 1), 4) << after;
    // Nothing left to hoist out of the row loop.
    EXPECT_TRUE(hoist_sites(after, kArgs).empty()) << after;
  }
}

TEST(HoistExpand, PrintsBackInTheKernelsDialect) {
  auto apply = [](const std::string& style) {
    std::string text = kernel_text(style);
    return loopnest::apply_site("k.py", text, kArgs, hoist_sites(text, kArgs).at(0));
  };
  // Newer API: the buffer keeps the partition dim first, filled by dma_copy.
  std::string api = apply("api");
  EXPECT_NE(api.find("nisa.dma_copy(dst=wt[:, n, k, :]"), std::string::npos) << api;
  EXPECT_NE(api.find("moving=wt[:, n, k, :]"), std::string::npos) << api;
  // Legacy grid: the block buffer loses its row-tile dim (v12 was (2, 2, 2, 128, 512)), in the
  // author's spelling of par_dim.
  std::string grid = apply("grid");
  EXPECT_NE(grid.find("v12 = nl.ndarray((2, 2, par_dim(128), 512)"), std::string::npos) << grid;
  EXPECT_NE(grid.find("v12[i2, i3, nl.arange(128)[:, None], nl.arange(512)[None, :]] = nl.load("), std::string::npos)
      << grid;
  // Tutorial: the named tile becomes a buffer declared before the row loop.
  std::string tiles = apply("tiles");
  EXPECT_LT(tiles.find("wt[n, k, :, :] = nl.load("), tiles.find("for m in")) << tiles;
  EXPECT_NE(tiles.find("nisa.nc_matmul(xT[k], wt[n, k, :, :])"), std::string::npos) << tiles;
}

TEST(HoistExpand, CutsTheLoopItUsesIntoChunksWhenTheWholeBufferDoesNotFit) {
  // 64 column blocks x 2 k tiles of 512 fp32 = 256 KiB per partition, over trn1's 176 KiB: the
  // column loop is cut into chunks of 32 blocks (128 KiB) around the row loop.
  auto wide = arrays({{256, 256}, {2, 128, 32768}});
  for (const char* style : {"tiles", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = hoist_sites(text, wide);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites[0].params.at("chunk"), "32");
    EXPECT_EQ(loads_of(text, wide, 1), 256);  // 2 row tiles x 64 blocks x 2 k tiles
    std::string after = loopnest::apply_site("k.py", text, wide, sites[0]);
    EXPECT_EQ(loads_of(after, wide, 1), 128) << after;  // each weight tile once
    EXPECT_EQ(loads_of(after, wide, 0), 4) << after;    // the rows once per chunk
    EXPECT_NE(after.find("for n_blk in nl.affine_range((N // NB) // 32):"), std::string::npos) << after;
    EXPECT_NE(after.find("n = n_blk * 32 + n_in"), std::string::npos) << after;
  }
  // (reload_matmul_grid.py spells its sizes as literals, as the published style does: it runs at
  // its own size only.)
  // 16 blocks: 64 KiB, the whole buffer fits.
  auto sites = hoist_sites(kernel_text("tiles"), arrays({{256, 256}, {2, 128, 8192}}));
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.count("chunk"), 0u);
}

TEST(HoistExpand, RefusesAChunkWhenTheRowLoopDoesMoreThanOnChipWorkOfItsOwn) {
  // Storing from the row loop's own part would store once per chunk: not replayable.
  std::string text = kernel_text("tiles");
  const std::string norm = "        xn = nl.multiply(xt, rs)\n";
  ASSERT_NE(text.find(norm), std::string::npos);
  text.replace(text.find(norm), norm.size(), norm + "        nl.store(out[nl.ds(m * 128, 128), 0:256], value=xn)\n");
  EXPECT_TRUE(hoist_sites(text, arrays({{256, 256}, {2, 128, 32768}})).empty());
}

TEST(HoistExpand, RefusesALoadOfATensorTheKernelWrites) {
  std::string text = kernel_text("tiles");
  const std::string store = "            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)\n";
  ASSERT_NE(text.find(store), std::string::npos);
  text.replace(text.find(store), store.size(), store + "            nl.store(w[0, :, 0:512], value=res)\n");
  EXPECT_TRUE(hoist_sites(text, kArgs).empty());
}

// The weight staged through an HBM scratch an earlier nest fills (a student's "store, then load back
// in the next phase"): the fill stays before the hoisted load, so the load is still invariant in
// the row loop; a write to the scratch inside that loop (above) is what is refused.
TEST(HoistExpand, HoistsALoadOfAScratchAnEarlierNestFilled) {
  std::string text = kernel_text("tiles");
  const std::string head = "    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)\n";
  ASSERT_NE(text.find(head), std::string::npos);
  text.replace(text.find(head), head.size(),
               head +
                   "    ws = nl.ndarray((KT, 128, N), dtype=w.dtype, buffer=nl.shared_hbm)\n"
                   "    for kk in nl.affine_range(KT):\n"
                   "        nl.store(ws[kk], value=nl.load(w[kk]))\n");
  const std::string load = "wt = nl.load(w[k, :, nl.ds(n * NB, NB)])";
  ASSERT_NE(text.find(load), std::string::npos);
  text.replace(text.find(load), load.size(), "wt = nl.load(ws[k, :, nl.ds(n * NB, NB)])");
  auto sites = hoist_sites(text, kArgs);
  ASSERT_EQ(sites.size(), 1u) << text;
  EXPECT_EQ(sites[0].params.at("out_of"), "1");
  // The scratch is read before the row loop, after the nest that fills it.
  std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
  size_t fill = after.find("nl.store(ws"), read_back = after.find("nl.load(ws"), rows = after.find("for m in");
  ASSERT_NE(read_back, std::string::npos) << after;
  EXPECT_LT(fill, read_back) << after;
  EXPECT_LT(read_back, rows) << after;
}

TEST(HoistExpand, RefusesALoadUnderACondition) {
  std::string text = kernel_text("tiles");
  const std::string load = "                wt = nl.load(w[k, :, nl.ds(n * NB, NB)])\n";
  ASSERT_NE(text.find(load), std::string::npos);
  text.replace(text.find(load), load.size(),
               "                wt = nl.zeros((128, NB), dtype=w.dtype, buffer=nl.sbuf)\n"
               "                if k < 1:\n"
               "                    wt = nl.load(w[k, :, nl.ds(n * NB, NB)])\n");
  EXPECT_TRUE(hoist_sites(text, kArgs).empty());
}

}  // namespace

namespace {

// Column blocks first (tests/kernels/colblock_first_matmul.py): the row loop's sibling is a loop of
// loads filling the column block's weight buffer. With lhs over the budget, the chunked hoist
// re-fills that buffer once per chunk; it is offered because it reads less HBM in all (lhs once
// instead of once per column block), which this kernel's read counts show. (Refused before: a
// sibling loop of loads was taken to be a hoisted weight the chunks would undo.)
TEST(HoistExpand, ChunksARowLoopWhoseColumnBlockFillsAWeightBufferWhenThatReadsLess) {
  std::string path = source_dir() + "/tests/kernels/colblock_first_matmul.py";
  std::string text = read(path);
  // M = 65536: lhs 512 row tiles x 2 k tiles x 512 B = 512 KiB per partition, over trn1's budget.
  auto args = arrays({{128, 2, 65536}, {128, 2, 4096}});
  auto sites = hoist_sites(text, args);
  ASSERT_EQ(sites.size(), 1u);
  ASSERT_TRUE(sites[0].params.count("chunk"));
  int64_t chunk = std::stoll(sites[0].params.at("chunk"));
  EXPECT_GT(chunk, 1);
  EXPECT_EQ(loads_of(text, args, 0), 8 * 512 * 2);  // lhs: per column block, row tile, k tile
  std::string after = loopnest::apply_site(path, text, args, sites[0]);
  EXPECT_EQ(loads_of(after, args, 0), 512 * 2) << after;               // lhs once
  EXPECT_EQ(loads_of(after, args, 1), (512 / chunk) * 8 * 2) << after;  // rhs once per chunk
  // The whole buffer fits at the file's own size (M = 512): no chunk.
  auto small = hoist_sites(text, arrays({{128, 2, 512}, {128, 2, 4096}}));
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].params.count("chunk"), 0u);
}

}  // namespace
