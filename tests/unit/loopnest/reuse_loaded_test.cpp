// Buffers made by a comprehension or a generator and bound by unpacking (lift_expr.cpp,
// lift_assign.cpp), and reuse_loaded (src/loopnest/reuse_loaded.cpp): a second DMA read of a region
// an earlier load of the block brought on chip becomes an engine copy of those partitions. That
// every site of the two test kernels keeps the result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's; the printed kernel is
// GoldenRewrites' (paired_halves_api.reuse_loaded).
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

const std::vector<loopnest::ArgSpec> kArgs = arrays({{128, 2048}, {64, 2048}});

const loopnest::Site* site_of(const std::vector<loopnest::Site>& sites, const std::string& transform) {
  for (const auto& s : sites)
    if (s.transform == transform) return &s;
  return nullptr;
}

// `stage = tuple(nl.ndarray(...) for _ in range(2))` unpacked by helpers (`xt, wt = stage`): the
// items lift as the list `stage`, so the helpers open (before: "an access to an unnamed tensor
// outside its statement", no site inside them), and the second read of w is copied on chip.
TEST(ReuseLoaded, HelpersUnpackingBuffersOfAGeneratorOpenAndTheSecondReadGoes) {
  std::string path = source_dir() + "/tests/kernels/paired_halves_api.py";
  std::string text = read(path);
  loopnest::Kernel form = loopnest::lift_source(path, text, kArgs);
  EXPECT_FALSE(loopnest::helpers_stay_closed(form)) << *loopnest::helpers_stay_closed(form);
  auto sites = loopnest::find_sites(form);
  const loopnest::Site* reuse = site_of(sites, "reuse_loaded");
  ASSERT_TRUE(reuse) << "no reuse_loaded site";
  // Made in fill's body, printed there (helpers=body, helper_bodies.h): the helpers' calls stay.
  EXPECT_EQ(reuse->params.at("helpers"), "body");
  EXPECT_EQ(reuse->params.at("loads"), "1");
  EXPECT_EQ(loads_of(text, kArgs, 1), 8);  // 4 column tiles x 2 halves
  std::string after = loopnest::apply_site(path, text, kArgs, *reuse);
  EXPECT_EQ(loads_of(after, kArgs, 1), 4) << after;
  EXPECT_NE(after.find("nisa.tensor_copy(dst=stage[1][64:128, :], src=stage[1][0:64, :])"), std::string::npos) << after;
  std::string body = after.substr(after.find("def kernel"));
  EXPECT_NE(body.find("        fill(stage, x, w, j * F)\n"), std::string::npos) << after;
}

// `xt, wt = [nl.ndarray(...) for _ in range(2)]`: one tensor per target, printed by its name.
TEST(ReuseLoaded, BuffersUnpackedWhereTheyAreMadeKeepTheirNames) {
  std::string path = source_dir() + "/tests/kernels/paired_halves_unpacked_api.py";
  std::string text = read(path);
  loopnest::Kernel form = loopnest::lift_source(path, text, kArgs);
  auto sites = loopnest::find_sites(form);
  const loopnest::Site* in_place = site_of(sites, "in_place");
  ASSERT_TRUE(in_place) << "no in_place site";
  std::string after = loopnest::apply_site(path, text, kArgs, *in_place);
  EXPECT_NE(after.find("nisa.tensor_tensor(dst=xt[...], data1=xt, data2=wt, op=nl.multiply)"), std::string::npos) << after;
  const loopnest::Site* reuse = site_of(sites, "reuse_loaded");
  ASSERT_TRUE(reuse) << "no reuse_loaded site";
  after = loopnest::apply_site(path, text, kArgs, *reuse);
  EXPECT_NE(after.find("nisa.tensor_copy(dst=wt[64:128, :], src=wt[0:64, :])"), std::string::npos) << after;
  EXPECT_EQ(loads_of(after, kArgs, 1), 4) << after;
}

std::string kernel_with(const std::string& second_load, const std::string& between = "") {
  return "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n@nki.jit\ndef kernel(x, w):\n"
         "    out = nl.ndarray((128, 2048), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for j in nl.affine_range(4):\n"
         "        wt = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)\n"
         "        nisa.dma_copy(dst=wt[0:64, :], src=w[:, j * 512:(j + 1) * 512])\n" +
         between + "        " + second_load + "\n" +
         "        nisa.dma_copy(dst=out[:, j * 512:(j + 1) * 512], src=wt)\n"
         "    return out\n";
}

// Engines keep partitions one to one and cross them only by halves (33-64 partitions, starts 0
// or 64) or quadrants; a region written between the two loads is not copied.
TEST(ReuseLoaded, OnlyCopiesAnEngineCanMakeOfARegionNothingChanged) {
  auto sites_for = [](const std::string& text) { return loopnest::find_sites(loopnest::lift_source("k.py", text, kArgs)); };
  EXPECT_TRUE(site_of(sites_for(kernel_with("nisa.dma_copy(dst=wt[64:128, :], src=w[:, j * 512:(j + 1) * 512])")),
                      "reuse_loaded"));
  // 64 partitions from start 0 to start 32: not a half.
  EXPECT_FALSE(site_of(sites_for(kernel_with("nisa.dma_copy(dst=wt[32:96, :], src=w[:, j * 512:(j + 1) * 512])")),
                       "reuse_loaded"));
  // The first load's partitions overwritten in between.
  EXPECT_FALSE(site_of(sites_for(kernel_with("nisa.dma_copy(dst=wt[64:128, :], src=w[:, j * 512:(j + 1) * 512])",
                                             "        nisa.dma_copy(dst=wt[0:64, :], src=x[0:64, j * 512:(j + 1) * 512])\n")),
                       "reuse_loaded"));
}

// The comment lines above a reload the move erases stay where they were, above the statement after
// it: the author's text goes with the statement only.
TEST(ReuseLoaded, TheCommentsAboveAnErasedReloadStay) {
  const std::string path = source_dir() + "/tests/kernels/reloaded_operand_rows.py";
  std::string text = read(path);
  const std::string reload = "        ld_g2 = nl.load(";
  text.replace(text.find(reload), 0, "        # the second operand of the square\n");
  const auto args = arrays({{200, 512}});
  auto sites = loopnest::find_sites(loopnest::lift_source(path, text, args));
  const loopnest::Site* s = site_of(sites, "reuse_loaded");
  ASSERT_TRUE(s);
  std::string after = loopnest::apply_site(path, text, args, *s);
  EXPECT_EQ(after.find("ld_g2 = nl.load("), std::string::npos) << after;
  EXPECT_NE(after.find("        # the second operand of the square\n        t_1 = nl.ndarray("), std::string::npos) << after;
}

}  // namespace
