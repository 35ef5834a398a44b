// A list of lists of computed tiles (a nested comprehension, run copy by copy) names each tile by
// its subscripts (`scaled[1][2]`, lift_assign.cpp name_nested_items): tests/kernels/
// nested_tile_lists_api.py hands one group's list (`scaled[g]`, g of an `nl.affine_range` the
// lift unrolls) to a reducing helper. Before, opening that loop and the helper printed a statement
// reading an unnamed tensor ("an access to an unnamed tensor outside its statement"), so both
// stayed closed and no move saw the helper's adds nor the projection's matmul.
#include <gtest/gtest.h>

#include <string>

#include "corpus.h"
#include "run_kernel.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::arrays;
using loopnest_test::read;
using loopnest_test::rel_error;
using loopnest_test::run;
using loopnest_test::source_dir;

const std::vector<loopnest::ArgSpec> kArgs = arrays({{2, 3, 128, 128}, {128, 512}});
const std::string kKernel = "/tests/kernels/nested_tile_lists_api.py";

TEST(NestedTileLists, TheLoopOverTheGroupsAndItsHelperOpen) {
  std::string path = source_dir() + kKernel;
  loopnest::Kernel k = loopnest::lift_source(path, read(path), kArgs);
  EXPECT_FALSE(loopnest::helpers_stay_closed(k)) << *loopnest::helpers_stay_closed(k);
}

// The implicit transpose of `nl.matmul(h, ...)` is redone per output chunk: hoist_transpose,
// offered inside the opened loop, does it once per group and keeps the result.
TEST(NestedTileLists, HoistTransposeIsOfferedInsideTheOpenedLoopAndKeepsTheResult) {
  std::string path = source_dir() + kKernel;
  std::string text = read(path);
  auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
  const loopnest::Site* hoist = nullptr;
  for (const auto& s : sites)
    if (s.transform == "hoist_transpose" && !hoist) hoist = &s;
  ASSERT_TRUE(hoist);
  // Since session 36 the nested comprehension lifts as a loop nest (lift_nested_rolled.cpp) and the
  // group loop stays one loop: one site for every group, the helper call as written (before, one
  // site per opened copy, reading the items by their subscripts, `scaled[1][2]`).
  EXPECT_EQ(hoist->params.count("helpers"), 0u);
  std::string after = loopnest::apply_site(path, text, kArgs, *hoist);
  EXPECT_NE(after.find("h = _relu_of_sum(scaled[g])"), std::string::npos) << after;
  EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
}

}  // namespace
