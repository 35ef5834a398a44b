// A functional programmer's kernel (tests/kernels/corpus/p46_rotate_pairs.py): a helper returning a
// tuple of unnamed values, read by a host loop over `zip(halves, rotate(...))`, and comprehensions
// over host tuples unpacked into names. Both open into the kernel's statements (open_helpers.cpp:
// name_returned_values, unpacked_comprehension), so the moves see the rotary embedding's
// straight-line body: fill_partitions re-lays its 64-row halves on 128 partitions. Before session
// 46 the host loop stayed closed ("an access to an unnamed tensor outside its statement") and an
// outside author's rope offered no site that gained (the agent 1.000x at 30.8% of peak).
#include <gtest/gtest.h>

#include "corpus.h"
#include "every_site.h"
#include "eval/profile_run.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace {

using loopnest_test::read;
using loopnest_test::source_dir;

const std::string kKernel = source_dir() + "/tests/kernels/corpus/p46_rotate_pairs.py";

std::vector<loopnest::ArgSpec> args() {
  const std::string ref = source_dir() + "/tests/kernels/corpus/p46_rotate_pairs.ref.py";
  return eval::reference_arg_specs(ref, read(ref));
}

TEST(FunctionalStyle, AHelpersUnnamedValuesAndUnpackedComprehensionsOpen) {
  loopnest::Kernel k = loopnest::lift_source(kKernel, read(kKernel), args());
  EXPECT_EQ(loopnest::helpers_stay_closed(k), std::nullopt);
  bool fill = false;
  for (const auto& s : loopnest::find_sites(k))
    if (s.transform == "fill_partitions") {
      fill = true;
      EXPECT_EQ(s.params.at("helpers"), "open");
      // The opened kernel names the helper's two values; the comprehensions are statements of its own.
      const std::string after = loopnest::apply_site(kKernel, read(kKernel), args(), s);
      EXPECT_NE(after.find("rotate_result = "), std::string::npos) << after;
      EXPECT_EQ(after.find("for rows in (lo, hi)]"), std::string::npos) << after;
      EXPECT_NE(after.find("x1[64:128, :] = nl.load(x[64:128, "), std::string::npos) << after;
    }
  EXPECT_TRUE(fill);
}

TEST(FunctionalStyle, EverySiteKeepsTheResult) {
  EXPECT_GT(loopnest_test::expect_every_site_keeps_result(kKernel, read(kKernel), args()), 0u);
}

}  // namespace
