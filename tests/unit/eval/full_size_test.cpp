// Every bundled kernel against its full-size reference, all five seeds: minutes of work, so it
// runs only when ACCELOPT_FULL_NKIBENCH=1 (scripts and CI jobs that want it set the variable;
// the figures program is `accelopt bench`, see docs/performance/nkibench.md).
#include <gtest/gtest.h>

#include "eval_test_util.h"

namespace {

class FullSize : public ::testing::TestWithParam<std::string> {};

TEST_P(FullSize, BundledKernelPassesAllSeeds) {
  if (!eval_test::full_size_enabled()) GTEST_SKIP() << "set ACCELOPT_FULL_NKIBENCH=1 to run the full-size check";
  eval::Evaluation r = eval_test::full_size_check(GetParam());
  EXPECT_EQ(r.status, eval::Status::Ok) << eval_test::joined(r.diagnostics);
  EXPECT_EQ(r.seeds.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(NkiBench, FullSize, ::testing::ValuesIn(eval_test::case_names()), [](const auto& info) { return info.param; });

}  // namespace
