// The compiler stage end to end: `accelopt trace --stage lowered` shows what the rules changed,
// `accelopt profile --lower` switches them (a column loop of tiny instructions folds unless the
// kernel is decorated with skip_middle_end_transformations), and a bad rule name is an error.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

const std::string kDir = "tests/golden/lower/nki/";

// The column-loop kernel, or (kernel "skip") the same kernel decorated with
// @nki.compiler.skip_middle_end_transformations, written into `dir`.
std::string kernel_path(const std::string& dir, const std::string& kernel) {
  std::string path = source(kDir + "tiny_columns.py");
  if (kernel != "skip") return path;
  std::string text = slurp(path);
  const std::string jit = "@nki.jit\n";
  text.replace(text.find(jit), jit.size(), "@nki.compiler.skip_middle_end_transformations\n" + jit);
  spit(dir + "/tiny_columns_skip.py", text);
  return dir + "/tiny_columns_skip.py";
}

std::string args(const std::string& dir, const std::string& kernel) {
  return "--reference " + source(kDir + "reference.py") + " --kernel " + kernel_path(dir, kernel);
}

double latency(const std::string& dir, const std::string& kernel, const std::string& rules) {
  CliRun run = accelopt(dir, "profile --json --lower " + rules + " " + args(dir, kernel));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? run.json()["latency"].get<double>() : 0;
}

TEST(LowerCli, LoweredTraceNamesTheRulesThatFired) {
  TempDir tmp;
  CliRun run = accelopt(tmp.path(), "trace --stage lowered " + args(tmp.path(), "plain"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("inst activation act"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  # loop_folding"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("# lowering: all"), std::string::npos) << run.out;
  // The column loop folds; the block loop, which issues a load and a store, keeps its iterations
  // (a small DMA keeps its per-transfer cost, session 24).
  const size_t first = run.out.find("loop begin");
  EXPECT_NE(first, std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("loop begin", first + 1), std::string::npos) << "only the block loop left:\n" << run.out;
}

// An instruction left to the compiler says where it runs: an outside author read `dve` on PSUM
// evacuations that the timeline put on `act` (docs/simulator.md, Engine choice).
TEST(LowerCli, TraceSaysWhereAnInstructionLeftToTheCompilerRuns) {
  TempDir tmp;
  const std::string variants = source("tests/kernels/variants/");
  for (const char* stage : {"source", "lowered"}) {
    CliRun evac = accelopt(tmp.path(), std::string("trace --stage ") + stage + " --reference " + variants +
                                           "mmscale.ref.py --kernel " + variants + "mmscale_via_sbuf.py");
    ASSERT_EQ(evac.exit_code, 0) << evac.err;
    // The evacuation in this kernel names its engine (`user`): no note.
    EXPECT_EQ(evac.out.find("left to the compiler"), std::string::npos) << evac.out;
    CliRun scale = accelopt(tmp.path(), std::string("trace --stage ") + stage + " --reference " + variants +
                                            "constmul.ref.py --kernel " + variants + "constmul_nl.py");
    ASSERT_EQ(scale.exit_code, 0) << scale.err;
    const size_t at = scale.out.find("inst tensor_scalar dve");
    ASSERT_NE(at, std::string::npos) << scale.out;
    const std::string line = scale.out.substr(at, scale.out.find('\n', at) - at);
    EXPECT_NE(line.find("# engine left to the compiler: dve or act"), std::string::npos) << line;
  }
  CliRun psum = accelopt(tmp.path(), "trace --stage lowered --reference " + source(kDir + "reference.py") +
                                         " --kernel " + source("tests/kernels/psum_evacuation_default_engine.py"));
  ASSERT_EQ(psum.exit_code, 0) << psum.err;
  EXPECT_NE(psum.out.find("# runs on act: a PSUM evacuation left to the compiler"), std::string::npos) << psum.out;
}

TEST(LowerCli, FoldingSpeedsUpTheColumnLoopUnlessTheKernelSkipsTheMiddleEnd) {
  TempDir tmp;
  double unfolded = latency(tmp.path(), "plain", "none");
  double folded = latency(tmp.path(), "plain", "all");
  EXPECT_LT(folded * 1.5, unfolded);  // the 64 one-column instructions of a block become one
  EXPECT_DOUBLE_EQ(latency(tmp.path(), "plain", "psum_copies,hoist_loads"), unfolded);
  // Under the decorator no middle-end rule runs (the simulator keeps its program order too).
  EXPECT_DOUBLE_EQ(latency(tmp.path(), "skip", "all"), latency(tmp.path(), "skip", "none"));
  CliRun trace = accelopt(tmp.path(), "trace --stage lowered " + args(tmp.path(), "skip"));
  ASSERT_EQ(trace.exit_code, 0) << trace.err;
  EXPECT_NE(trace.out.find("kernel skip_middle_end_transformations"), std::string::npos) << trace.out;
  EXPECT_EQ(trace.out.find("  # loop_folding"), std::string::npos) << trace.out;
}

TEST(LowerCli, UnknownRuleIsAnError) {
  TempDir tmp;
  CliRun run = accelopt(tmp.path(), "profile --lower vectorize " + args(tmp.path(), "plain"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown lowering rule 'vectorize'"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace bench_e2e
