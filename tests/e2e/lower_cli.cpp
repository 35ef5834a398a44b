// The compiler stage end to end: `accelopt trace --stage lowered` shows what the rules changed,
// `accelopt profile --lower` switches them (a column loop of tiny instructions folds unless the
// kernel is decorated with skip_middle_end_transformations), and a bad rule name is an error.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

const std::string kDir = "tests/golden/lower/nki/";

std::string args(const std::string& kernel) {
  return "--reference " + source(kDir + "reference.py") + " --kernel " + source(kDir + kernel);
}

double latency(const std::string& dir, const std::string& kernel, const std::string& rules) {
  CliRun run = accelopt(dir, "profile --json --lower " + rules + " " + args(kernel));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? run.json()["latency"].get<double>() : 0;
}

TEST(LowerCli, LoweredTraceNamesTheRulesThatFired) {
  TempDir tmp;
  CliRun run = accelopt(tmp.path(), "trace --stage lowered " + args("tiny_columns.py"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("inst activation act"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  # loop_folding"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("# lowering: all"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("loop begin"), std::string::npos) << "every loop folded:\n" << run.out;
}

TEST(LowerCli, FoldingSpeedsUpTheColumnLoopUnlessTheKernelSkipsTheMiddleEnd) {
  TempDir tmp;
  double unfolded = latency(tmp.path(), "tiny_columns.py", "none");
  double folded = latency(tmp.path(), "tiny_columns.py", "all");
  EXPECT_LT(folded * 10, unfolded);
  EXPECT_DOUBLE_EQ(latency(tmp.path(), "tiny_columns.py", "psum_copies,hoist_loads"), unfolded);
  EXPECT_DOUBLE_EQ(latency(tmp.path(), "tiny_columns_skip.py", "all"), unfolded);
  CliRun trace = accelopt(tmp.path(), "trace --stage lowered " + args("tiny_columns_skip.py"));
  ASSERT_EQ(trace.exit_code, 0) << trace.err;
  EXPECT_NE(trace.out.find("kernel skip_middle_end_transformations"), std::string::npos) << trace.out;
  EXPECT_EQ(trace.out.find("  # loop_folding"), std::string::npos) << trace.out;
}

TEST(LowerCli, UnknownRuleIsAnError) {
  TempDir tmp;
  CliRun run = accelopt(tmp.path(), "profile --lower vectorize " + args("tiny_columns.py"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown lowering rule 'vectorize'"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace bench_e2e
