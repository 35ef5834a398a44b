// psum_accumulate (src/loopnest/psum_accumulate.cpp) on a newer-API accumulator holding one tile
// per block along a free dim (`acc = nl.ndarray((128, n_blk, F))`, `acc[:, j, :]`): more than a
// PSUM bank as one tensor, one bank per block; that API has no block dims, so the move makes it a
// list of PSUM tiles made by a comprehension (`acc[j]`), as an author of that API writes one. That
// the site keeps the result is LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's
// (tests/kernels/state_sum_blocks_api.py).
#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

const auto kArgs = arrays({{4, 256, 512}, {4, 256, 512}});

std::vector<loopnest::Site> psum_sites(const std::string& text, const std::vector<loopnest::ArgSpec>& args = kArgs) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source("k.py", text, args)))
    if (s.transform == "psum_accumulate") out.push_back(s);
  return out;
}

TEST(PsumBlocks, ABankPerBlockAlongAFreeDimBecomesAListOfPsumTiles) {
  std::string text = read(source_dir() + "/tests/kernels/state_sum_blocks_api.py");
  auto sites = psum_sites(text);
  ASSERT_EQ(sites.size(), 1u);
  std::string after = loopnest::apply_site("k.py", text, kArgs, sites[0]);
  EXPECT_NE(after.find("acc = [nl.ndarray((128, F), dtype=nl.float32, buffer=nl.psum) for _ in range(n_blk)]"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("data1=acc[j], data2=hc, op=nl.add)"), std::string::npos) << after;
  // The DMA out of the kernel reads an SBUF copy of the block (DMA does not read PSUM).
  EXPECT_NE(after.find("acc_sbuf[...] = acc[j]"), std::string::npos) << after;
  loopnest::Kernel k = loopnest::lift_source("k.py", after, kArgs);
  bool psum_list = false;
  for (const auto& t : k.tensors) psum_list = psum_list || (t.name == "acc" && t.host_list && t.memory == loopnest::Memory::Psum);
  EXPECT_TRUE(psum_list) << after;
}

// Only when the blocks fit PSUM's 8 banks: 10 channel blocks do not.
TEST(PsumBlocks, MoreBlocksThanBanksKeepTheBuffer) {
  std::string text = read(source_dir() + "/tests/kernels/state_sum_blocks_api.py");
  EXPECT_TRUE(psum_sites(text, arrays({{2, 1280, 512}, {2, 1280, 512}})).empty());
  EXPECT_EQ(psum_sites(text, arrays({{2, 1024, 512}, {2, 1024, 512}})).size(), 1u);
}

// Only when every access takes one block whole: a read of two blocks at once (a slice of the
// block dim) keeps the buffer in SBUF.
TEST(PsumBlocks, AnAccessSpanningBlocksKeepsTheBuffer) {
  std::string text = read(source_dir() + "/tests/kernels/state_sum_blocks_api.py");
  const std::string out = "    for j in nl.affine_range(n_blk):\n        nisa.dma_copy(dst=out[j * 128:(j + 1) * 128, :], src=acc[:, j, :])\n";
  ASSERT_NE(text.find(out), std::string::npos);
  text.replace(text.find(out), out.size(),
               "    both = nl.ndarray((128, n_blk, F), dtype=nl.float32, buffer=nl.sbuf)\n"
               "    nisa.tensor_copy(dst=both, src=acc[:, 0:n_blk, :])\n"
               "    for j in nl.affine_range(n_blk):\n"
               "        nisa.dma_copy(dst=out[j * 128:(j + 1) * 128, :], src=both[:, j, :])\n");
  EXPECT_TRUE(psum_sites(text).empty());
}

}  // namespace
