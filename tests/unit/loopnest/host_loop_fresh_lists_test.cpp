// A loop over row blocks whose last block may be short (`nr = min(P, R - r0)`: the trace unrolls
// it, an Inline "for" of copies) declaring a list of fresh tiles (`totals = [nl.zeros((nr, 1), ...)
// for _ in range(2)]`, one tensor of the form: Tensor::host_list) and rebinding its items
// (`totals[g] = nl.add(totals[g], ...)`): tests/kernels/row_block_running_totals_api.py. Opened
// (helpers=open), each copy's comprehension prints from the form (emit_rolled.cpp
// fresh_tiles_list: its text reads `nr`, a host binding the copies drop), the earlier copies'
// list under a fresh name with its items (`totals_2 = [...]`, `nl.add(x=totals_2[0], ...)`,
// open_helpers.cpp rename_clashes). Before, the copies stayed closed ("a changed call of a helper
// function cannot be printed"), so no move saw the helper's multiply nor the chunk's square.
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

const std::vector<loopnest::ArgSpec> kArgs = arrays({{256, 1024}});
const std::string kKernel = "/tests/kernels/row_block_running_totals_api.py";

TEST(HostLoopFreshLists, TheCopiesOpenWithTheirListsOfFreshTiles) {
  std::string path = source_dir() + kKernel;
  loopnest::Kernel k = loopnest::lift_source(path, read(path), kArgs);
  EXPECT_FALSE(loopnest::helpers_stay_closed(k)) << *loopnest::helpers_stay_closed(k);
}

// Since session 36 the items' rebinding is a write of the list's block (lift_bound_fresh.cpp), so
// the row block loop is one loop of the form, not copies: one in_place site for every row block
// (the sum of the two totals written into the first), printed as a rebinding of the item, the
// list's comprehension as written. (Before, the site was offered per opened copy, helpers=open,
// each copy's list printed from the form: `totals_2 = [nl.zeros(shape=(128, 1), ...) ...]`.)
TEST(HostLoopFreshLists, InPlaceIsOfferedOnceForEveryRowBlockAndKeepsTheResult) {
  std::string path = source_dir() + kKernel;
  std::string text = read(path);
  auto sites = loopnest::find_sites(loopnest::lift_source(path, text, kArgs));
  std::vector<const loopnest::Site*> in_place;
  for (const auto& s : sites)
    if (s.transform == "in_place") in_place.push_back(&s);
  ASSERT_EQ(in_place.size(), 1u);
  EXPECT_EQ(in_place[0]->params.count("helpers"), 0u);
  std::string after = loopnest::apply_site(path, text, kArgs, *in_place[0]);
  EXPECT_NE(after.find("        totals = [nl.zeros((nr, 1), dtype=nl.float32, buffer=nl.sbuf) for _ in range(WEIGHTS)]\n"),
            std::string::npos) << after;
  EXPECT_NE(after.find("        totals[0] = nl.add(totals[0], totals[1])\n"), std::string::npos) << after;
  EXPECT_LT(rel_error(run(path, after, kArgs), run(path, text, kArgs)), 1e-5) << after;
}

}  // namespace
