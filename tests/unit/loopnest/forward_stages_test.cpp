// forward_scratch's `stages` sites on a scratch that several later passes load at the same tile,
// each pass walking the same row tiles (a softmax written as three passes over HBM: the scores and
// their row maxima read back by both the exp-and-sum pass and the normalising pass). Fused down to
// the row tile, every load reads the stored tile itself (forward_stages.cpp); before, only a block
// over the row loop kept them on chip, which at task size does not fit (held-out bmm_softmax: 32
// row tiles of 16 KiB per partition).
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"
#include "run_kernel.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 512}});

int scratch_tensors(const loopnest::Kernel& k) {
  int n = 0;
  for (const auto& t : k.tensors) n += t.role == loopnest::TensorRole::Scratch ? 1 : 0;
  return n;
}

bool has_block_dim(const loopnest::Kernel& k) {
  for (const auto& t : k.tensors)
    if (t.memory == loopnest::Memory::Sbuf && t.shape.size() > 2) return true;
  return false;
}

TEST(ForwardStages, AStageEveryLaterPassLoadsAtItsTileIsForwardedToEachLoad) {
  for (const char* name : {"softmax_passes_tiles.py", "softmax_passes_api.py"}) {
    const std::string path = source_dir() + "/tests/kernels/" + name;
    const std::string text = read(path);
    const loopnest::Kernel before = loopnest::lift_source(path, text, kArgs);
    ASSERT_EQ(scratch_tensors(before), 3) << name;
    const loopnest::Site* all = nullptr;
    auto sites = loopnest::find_sites(before);
    for (const auto& s : sites)
      if (s.transform == "forward_scratch" && s.params.count("stages") && s.params.at("stages") == "all") all = &s;
    ASSERT_NE(all, nullptr) << name;
    const std::string after = loopnest::apply_site(path, text, kArgs, *all);
    const loopnest::Kernel moved = loopnest::lift_source(path, after, kArgs);
    EXPECT_EQ(scratch_tensors(moved), 0) << after;
    EXPECT_FALSE(has_block_dim(moved)) << after;  // forwarded tile by tile, no block kept
    EXPECT_LT(rel_error(loopnest_test::run(path, after, kArgs), loopnest_test::run(path, text, kArgs)), 1e-6) << after;
    EXPECT_GE(loopnest_test::expect_every_site_keeps_result(path, text, kArgs), 4u) << name;
  }
}

// A later pass reading another row tile than the one stored in its iteration (the rows in reverse)
// is no forward: the scores stay in HBM whatever site is taken, and every site keeps the result.
TEST(ForwardStages, APassReadingAnotherIterationsTileKeepsTheScratch) {
  const std::string path = source_dir() + "/tests/kernels/softmax_passes_tiles.py";
  std::string text = read(path);
  const std::string load = "        s = nl.load(scores[i * P:(i + 1) * P, :])\n        m = nl.load(rowmax[i * P:(i + 1) * P, :])\n        z =";
  ASSERT_NE(text.find(load), std::string::npos);
  text.replace(text.find(load), load.size(),
               "        s = nl.load(scores[(1 - i) * P:(2 - i) * P, :])\n        m = nl.load(rowmax[i * P:(i + 1) * P, :])\n"
               "        z =");
  const loopnest::Kernel before = loopnest::lift_source(path, text, kArgs);
  int taken = 0;  // the row maxima and sums still forward
  for (const auto& s : loopnest::find_sites(before)) {
    if (s.transform != "forward_scratch") continue;
    ++taken;
    const std::string after = loopnest::apply_site(path, text, kArgs, s);
    EXPECT_NE(after.find("scores = nl.ndarray((R, N), dtype=nl.float32, buffer=nl.hbm)"), std::string::npos) << s.key();
    EXPECT_LT(rel_error(loopnest_test::run(path, after, kArgs), loopnest_test::run(path, text, kArgs)), 1e-6) << after;
  }
  EXPECT_GE(taken, 1);
}

}  // namespace
