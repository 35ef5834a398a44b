// retile_flat (src/loopnest/retile_flat.cpp): an elementwise nest on tiles of P < 128 partitions
// that covers its tensors exactly once walks flat (n, 128, W2) views of them in one loop. A momentum
// update streamed in (96, 256) tiles in three styles (tests/kernels/momentum_rows96_{tiles,grid,
// api}.py) offers the same site; applied, the kernel computes the same result with every tile on
// 128 partitions, printed in the kernel's own dialect. A per-partition operand, a reduction,
// tensors of different shapes, a nest covering part of its tensors (or every element twice), tiles
// already on 128 partitions and an element count with no tiling of long enough runs are refused.
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "run_kernel.h"
#include "text_edit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::replace;
using loopnest_test::replace_all;
using loopnest_test::run;
using loopnest_test::source_dir;

std::string kernel_path(const std::string& style) {
  return source_dir() + "/tests/kernels/momentum_rows96_" + style + ".py";
}
std::string kernel_text(const std::string& style) { return read(kernel_path(style)); }

// theta, grad, mom (192, 512): 2 x 2 tiles of (96, 256); 98304 elements = 3 tiles of (128, 256).
const std::vector<loopnest::ArgSpec> kArgs = arrays({{192, 512}, {192, 512}, {192, 512}});

std::vector<loopnest::Site> sites_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args = kArgs) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "retile_flat") out.push_back(s);
  return out;
}

// The partition counts of the on-chip tiles the kernel's loads fill and its instructions write.
std::set<int64_t> tile_partitions(const std::string& text, const std::vector<loopnest::ArgSpec>& args = kArgs) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  loopnest::Analysis an(k);
  std::set<int64_t> out;
  for (const auto& r : an.ops) {
    const auto& op = r.op();
    if (loopnest::is_declaration(op)) continue;
    if (op.result >= 0) out.insert(k.tensor(op.result).shape.at(0).constant());
    else if (op.dst && k.tensor(loopnest::storage_of(k, op.dst->tensor)).on_chip())
      out.insert(op.dst->tile_shape().at(0).constant());
  }
  return out;
}

TEST(RetileFlat, FindsTheSameSiteInEveryStyleAndKeepsTheResult) {
  std::string first;
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string text = kernel_text(style);
    auto sites = sites_of(text);
    ASSERT_EQ(sites.size(), 1u);
    if (first.empty()) first = sites[0].key();
    EXPECT_EQ(sites[0].key(), first);
    // 96 * 256 / 128 = 192 columns is the same work per tile; 256 divides the rows' 512 and keeps
    // each partition's run at 1 KiB, the author's.
    EXPECT_EQ(sites[0].params.at("width"), "256");
    EXPECT_TRUE(sites[0].relieves.count("dma"));
    EXPECT_TRUE(sites[0].relieves.count("dve") || sites[0].relieves.count("act"));
    EXPECT_EQ(tile_partitions(text), (std::set<int64_t>{96}));
    std::string after = loopnest::apply_site(kernel_path(style), text, kArgs, sites[0]);
    EXPECT_EQ(tile_partitions(after), (std::set<int64_t>{128})) << after;
    EXPECT_LT(rel_error(run(kernel_path(style), after, kArgs), run(kernel_path(style), text, kArgs)), 1e-6) << after;
    EXPECT_TRUE(sites_of(after).empty()) << after;
  }
}


// Every site of the three kernels (retile_flat's and the other moves') keeps the result.
TEST(RetileFlat, EverySiteOfTheStylesKeepsTheResult) {
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    EXPECT_GE(loopnest_test::expect_every_site_keeps_result(kernel_path(style), kernel_text(style), kArgs), 1u);
  }
}

std::string applied(const std::string& style) {
  std::string text = kernel_text(style);
  auto sites = sites_of(text);
  if (sites.size() != 1) return "";
  return loopnest::apply_site(kernel_path(style), text, kArgs, sites[0]);
}

// The diff is the views, the loop header and the subscripts, in the kernel's own dialect.
TEST(RetileFlat, PrintsTheKernelInItsOwnDialect) {
  // Reshaped views of the author's: re-declared under their names, subscripts of whole tiles.
  std::string tiles = applied("tiles");
  EXPECT_NE(tiles.find("    thv = theta.reshape((3, 128, 256))\n"
                       "    gv = grad.reshape((3, 128, 256))\n"
                       "    mv = mom.reshape((3, 128, 256))\n"
                       "    ov = out.reshape((3, 128, 256))\n"
                       "    for t in nl.affine_range(3):\n"
                       "        th = nl.load(thv[t, :, :])\n"),
            std::string::npos)
      << tiles;
  EXPECT_NE(tiles.find("        m1 = 0.9 * m0 + 0.1 * g\n"), std::string::npos) << tiles;  // as written
  EXPECT_NE(tiles.find("        nl.store(ov[t, :, :], upd)\n"), std::string::npos) << tiles;
  EXPECT_EQ(tiles.find("for c in"), std::string::npos) << tiles;
  // Index grids: new views of the arguments, the partitions an nl.arange grid.
  std::string grid = applied("grid");
  EXPECT_NE(grid.find("    theta_flat = theta.reshape((3, 128, 256))\n"), std::string::npos) << grid;
  EXPECT_NE(grid.find("        th = nl.load(theta_flat[t, nl.arange(128)[:, None], i_f])\n"), std::string::npos)
      << grid;
  EXPECT_NE(grid.find("        nl.store(out_flat[t, nl.arange(128)[:, None], i_f], value=upd)\n"), std::string::npos)
      << grid;
  // The newer API: declared tiles of 128 partitions, destination-first DMAs.
  std::string api = applied("api");
  EXPECT_NE(api.find("        th = nl.ndarray((128, W), dtype=theta.dtype, buffer=nl.sbuf)\n"
                     "        nisa.dma_copy(dst=th, src=theta_flat[t, :, :])\n"),
            std::string::npos)
      << api;
  EXPECT_NE(api.find("        nisa.dma_copy(dst=out_flat[t, :, :], src=upd)\n"), std::string::npos) << api;
}

TEST(RetileFlat, RefusesAPerPartitionOperand) {
  // A [96, 1] scale is one value per row of the 96-row tile: the flat tiles' rows are other rows.
  std::string text = kernel_text("tiles");
  replace(text, "            m0 = nl.load(mv[t, :, c * W:(c + 1) * W])\n",
          "            m0 = nl.load(mv[t, :, c * W:(c + 1) * W])\n"
          "            row_scale = nl.load(mv[t, :, 0:1])\n");
  replace(text, "0.01 * m1 * decay", "0.01 * m1 * decay * row_scale");
  EXPECT_TRUE(sites_of(text).empty());
}

TEST(RetileFlat, RefusesAReduction) {
  // A sum along the free axis adds a row's 256 columns: another set of elements once re-tiled.
  std::string text = kernel_text("grid");
  replace(text, "            nl.store(out[t * 96 + i_p, c * 256 + i_f], value=upd)\n",
          "            nl.store(out[t * 96 + i_p, c * 256 + i_f], value=nl.multiply(upd, nl.sum(g, axis=1)))\n");
  EXPECT_TRUE(sites_of(text).empty());
}

TEST(RetileFlat, RefusesTensorsOfDifferentShapes) {
  // mom (192, 768): the nest reads its first 512 columns, so element e of mom is not element e of theta.
  EXPECT_EQ(sites_of(kernel_text("grid")).size(), 1u);
  EXPECT_TRUE(sites_of(kernel_text("grid"), arrays({{192, 512}, {192, 512}, {192, 768}})).empty());
}

TEST(RetileFlat, RefusesANestThatDoesNotCoverItsTensors) {
  // Half the rows: the flat views would reach the other half.
  std::string text = kernel_text("grid");
  replace(text, "for t in nl.affine_range(rows // 96):", "for t in nl.affine_range(rows // 192):");
  EXPECT_TRUE(sites_of(text).empty());
  // Every tile twice (the column loop's variable unused): no longer a numbering of the elements.
  text = replace_all(kernel_text("grid"), "c * 256 + i_f", "i_f");
  EXPECT_TRUE(sites_of(text).empty());
}

TEST(RetileFlat, RefusesTilesAlreadyOn128Partitions) {
  std::string text = replace_all(kernel_text("grid"), "96", "128");
  EXPECT_TRUE(sites_of(text, arrays({{256, 512}, {256, 512}, {256, 512}})).empty());
}

TEST(RetileFlat, RefusesAnElementCountWithoutATilingOfLongEnoughRuns) {
  // One column chunk per row tile (W = cols). At (384, 512): 1536 columns per partition in all,
  // the author's work 384 per tile; the author's runs are 2 KiB, so only 512 qualifies (it divides 1536).
  std::string text = kernel_text("tiles");
  replace(text, "    W = 256\n", "    W = cols\n");
  auto sites = sites_of(text, arrays({{384, 512}, {384, 512}, {384, 512}}));
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].params.at("width"), "512");
  // At (192, 512): 768 columns per partition, which 512 does not divide, and narrower runs than 2 KiB.
  EXPECT_TRUE(sites_of(text).empty());
  // At (96, 200): 150 columns per partition, so 150 would be the only width, and its 600-byte runs
  // are shorter than the author's 800.
  EXPECT_TRUE(sites_of(text, arrays({{96, 200}, {96, 200}, {96, 200}})).empty());
}

}  // namespace
