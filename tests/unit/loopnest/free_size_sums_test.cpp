// free_size (src/loopnest/free_size.cpp) on a chunk loop that carries a running sum: a GPU port
// sums each chunk's PSUM result into an SBUF row (`y[...] = nl.add(y[...], part)`) in a
// sequential loop. Merging two chunks regroups that sum (the inner loop's partial sum holds both
// chunks' terms): legal, as a `+=` accumulation is. A partial sum that reaches the total through
// anything but an add (`exp(part)`) is not regrouped. That each site keeps the kernel's result is
// LoopNestTransforms.EverySiteOfTheTestKernelsKeepsTheirResult's.
#include <gtest/gtest.h>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/analysis.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::source_dir;

std::vector<loopnest::Site> free_size_sites(const std::string& path, const std::vector<loopnest::ArgSpec>& args) {
  std::vector<loopnest::Site> out;
  for (auto& s : loopnest::find_sites(loopnest::lift_source(path, read(path), args)))
    if (s.transform == "free_size") out.push_back(s);
  return out;
}

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 128}, {256, 1024}, {1024, 256}});

TEST(FreeSize, RegroupsARunningSumTheChunkLoopCarries) {
  std::string path = source_dir() + "/tests/kernels/hidden_chunks_sum.py";
  std::string text = read(path);
  loopnest::Kernel k = loopnest::lift_source(path, text, kArgs);
  // The chunk loop carries `y` as a running sum, and only as one.
  int chunk_loop = -1;
  for (const auto& [id, l] : k.loops)
    if (l.var == "c") chunk_loop = id;
  ASSERT_GE(chunk_loop, 0);
  EXPECT_EQ(loopnest::carried_tensors(k, chunk_loop).size(), 1u);
  EXPECT_EQ(loopnest::summed_carries(k, chunk_loop), loopnest::carried_tensors(k, chunk_loop));
  EXPECT_FALSE(loopnest::iterations_commute(k, chunk_loop));
  EXPECT_TRUE(loopnest::iterations_commute(k, chunk_loop, loopnest::summed_carries(k, chunk_loop)));
  auto sites = free_size_sites(path, kArgs);
  std::set<std::string> values;
  for (const auto& s : sites) values.insert(s.params.at("value"));
  EXPECT_EQ(values, (std::set<std::string>{"128", "512"}));
  auto want = loopnest_test::run(path, text, kArgs);
  for (const auto& s : sites) {
    std::string after = loopnest::apply_site(path, text, kArgs, s);
    EXPECT_LT(loopnest_test::rel_error(loopnest_test::run(path, after, kArgs), want), 1e-5) << s.key() << "\n" << after;
    if (s.params.at("value") == "512") {
      EXPECT_NE(after.find("nl.sequential_range(2)"), std::string::npos) << after;
      EXPECT_NE(after.find("nl.affine_range(4)"), std::string::npos) << after;
    }
  }
}

TEST(FreeSize, DoesNotRegroupASumThatReachesTheTotalThroughAnExp) {
  EXPECT_TRUE(free_size_sites(source_dir() + "/tests/kernels/hidden_chunks_exp.py", kArgs).empty());
}

}  // namespace
