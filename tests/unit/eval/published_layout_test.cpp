// The published NKIBench layout loads unchanged (issue 4). tests/golden/bench/published_layout is
// written the way the published files are: summary.json with "./seeds/T.yaml" and "./reference"
// / "./kernels" relative paths, config ids as case keys, integer values, several impls per case;
// seeds/T.yaml with test_name / parameters / input / impl; references with module constants,
// get_inputs (a Python float and a 1-D vector among the inputs), forward and the transform_*
// functions; kernels in the generated style (positional vN names, imports inside the kernel,
// nl.arange index grids, par_dim, `''' end loop '''` strings, nt / trace imports), a module-level
// helper function called from the kernel, and an `optimized_kernel` using `math`.
#include <filesystem>

#include <gtest/gtest.h>

#include "eval/evaluate.h"
#include "bench/loader.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

const std::string kRoot = std::string(ACCELOPT_SOURCE_DIR) + "/tests/golden/bench/published_layout";

const bench::TaskCase* find_case(const bench::Suite& suite, const std::string& task, const std::string& config) {
  for (const auto& c : suite.cases)
    if (c.task == task && c.config == config) return &c;
  return nullptr;
}

TEST(PublishedLayout, LoadsEveryCaseWithResolvedPaths) {
  bench::Suite suite = bench::load_suite(kRoot);
  EXPECT_TRUE(suite.errors.empty()) << suite.errors.front();
  ASSERT_EQ(suite.cases.size(), 3u);

  const bench::TaskCase* silu = find_case(suite, "silu", "M256_N2048");
  const bench::TaskCase* silu_opt = find_case(suite, "silu", "M256_N2048#1");  // the second impl
  const bench::TaskCase* norm = find_case(suite, "add_rmsnorm_matmul", "M256_N512_K256");
  ASSERT_TRUE(silu && silu_opt && norm);
  EXPECT_EQ(silu->values.at("M"), 256);
  EXPECT_EQ(silu->values.at("N"), 2048);
  EXPECT_EQ(norm->values.at("K"), 256);
  // "./x" paths resolve against the root, normalized (no "./" left).
  EXPECT_EQ(silu->seed_path, kRoot + "/seeds/silu.yaml");
  EXPECT_EQ(silu->reference_path, kRoot + "/reference/silu_M256_N2048.py");
  EXPECT_EQ(silu->kernel_path, kRoot + "/kernels/silu_M256_N2048_0.py");
  EXPECT_EQ(silu_opt->kernel_path, kRoot + "/kernels/silu_M256_N2048_1.py");
  for (const auto& c : suite.cases) {
    EXPECT_TRUE(fs::is_regular_file(c.seed_path)) << c.seed_path;
    EXPECT_DOUBLE_EQ(c.effective_tolerance(), 2e-5);  // no tolerance key: the published default
  }
}

TEST(PublishedLayout, EveryKernelPassesAllFiveSeeds) {
  bench::Suite suite = bench::load_suite(kRoot);
  ASSERT_EQ(suite.cases.size(), 3u);
  for (const auto& c : suite.cases) {
    SCOPED_TRACE(c.name());
    eval::EvalRequest req;
    req.reference_path = c.reference_path;
    req.reference_text = bench::read_file(c.reference_path);
    req.kernel_path = c.kernel_path;
    req.kernel_text = bench::read_file(c.kernel_path);
    req.tolerance = c.effective_tolerance();
    req.limits.max_seconds = 120;
    eval::Evaluation r = eval::evaluate(req);
    EXPECT_EQ(r.status, eval::Status::Ok) << (r.diagnostics.empty() ? "" : r.diagnostics.front());
    EXPECT_EQ(r.seeds.size(), bench::kDefaultSeeds.size());
  }
}

}  // namespace
