// The harness on real kernels: every bundled kernel passes its own (small) check, a wrong kernel
// per task family fails with the mismatch figures, and each kind of bad input gets its status
// and a one-line, file-naming diagnostic.
#include <gtest/gtest.h>

#include "bench/checker.h"
#include "bench_test_util.h"

namespace {

using bench_test::mutate;
using bench_test::small_check;

std::string kernel_text(const std::string& name) { return bench::read_file(bench_test::bundled_kernel(name)); }

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

class BundledKernelSmall : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledKernelSmall, PassesItsOwnCheck) {
  const std::string name = GetParam();
  bench::CheckResult r = bench::check_kernel(small_check(name, kernel_text(name)));
  EXPECT_EQ(r.outcome, bench::Outcome::Ok) << joined(r.diagnostics);
  ASSERT_EQ(r.seeds.size(), 1u);
  EXPECT_LT(r.seeds[0].diff.rel_l2, name.rfind("mamba", 0) == 0 ? 3e-5 : 2e-5);
  EXPECT_FALSE(r.shape_only_args.empty());
}

INSTANTIATE_TEST_SUITE_P(AllTasks, BundledKernelSmall, ::testing::ValuesIn(bench_test::case_names()),
                         [](const auto& info) { return info.param; });

struct WrongKernel {
  const char* family;
  const char* task;
  const char* from;
  const char* to;
};

// One deliberate bug per family: a dropped K tile, a perturbed softmax, a wrong mean, a wrong
// constant in an elementwise chain, a wrong scan initial state.
const WrongKernel kWrong[] = {
    {"matmul", "transpose_matmul_M4096_K2048_N10944", "for t in nl.affine_range(k_tiles):\n                rhs_tile",
     "for t in nl.affine_range(k_tiles - 1):\n                rhs_tile"},
    {"softmax", "bmm_softmax_B16_K64_M4096_N4096", "bias=neg_max[m], scale=1.0)", "bias=neg_max[m], scale=1.001)"},
    {"norm", "rmsnorm_matmul_M4096_N2048_K1024", "scale=1.0 / k_size", "scale=1.5 / k_size"},
    {"elementwise", "silu_M4096_N7168", "operand0=1.0", "operand0=1.5"},
    {"scan", "mamba_M7168_C256_S16", "initial=0", "initial=1"},
};

TEST(Checker, WrongKernelPerFamilyFailsWithMismatchFigures) {
  for (const auto& w : kWrong) {
    std::string text = mutate(kernel_text(w.task), w.from, w.to);
    ASSERT_EQ(text.find("<mutation target"), std::string::npos) << w.family << ": " << text;
    bench::CheckResult r = bench::check_kernel(small_check(w.task, text));
    EXPECT_EQ(r.outcome, bench::Outcome::Incorrect) << w.family << "\n" << joined(r.diagnostics);
    ASSERT_EQ(r.seeds.size(), 1u) << w.family;
    EXPECT_FALSE(r.seeds[0].correct);
    EXPECT_GT(r.seeds[0].diff.rel_l2, 2e-5) << w.family;
    EXPECT_GT(r.seeds[0].diff.max_abs_diff, 0) << w.family;
    EXPECT_GT(r.seeds[0].diff.mean_abs_diff, 0) << w.family;
    ASSERT_EQ(r.diagnostics.size(), 1u) << w.family;
    EXPECT_NE(r.diagnostics[0].find("output mismatch at seed 0: rel_l2"), std::string::npos) << r.diagnostics[0];
    EXPECT_NE(r.diagnostics[0].find("max abs diff"), std::string::npos);
  }
}

const char* kAddRef = ACCELOPT_SOURCE_DIR "/examples/add/reference.py";
const char* kAddKernel = ACCELOPT_SOURCE_DIR "/examples/add/kernel.py";

bench::CheckRequest add_check(const std::string& kernel) {
  bench::CheckRequest req;
  req.reference_path = kAddRef;
  req.reference_text = bench::read_file(kAddRef);
  req.kernel_path = "bad_kernel.py";
  req.kernel_text = kernel;
  req.limits.max_seconds = 30;
  return req;
}

TEST(Checker, ExampleAddPassesAllFiveSeeds) {
  auto req = add_check(bench::read_file(kAddKernel));
  bench::CheckResult r = bench::check_kernel(req);
  EXPECT_EQ(r.outcome, bench::Outcome::Ok) << joined(r.diagnostics);
  ASSERT_EQ(r.seeds.size(), 5u);
  EXPECT_EQ(r.seeds[4].seed, 84);
}

TEST(Checker, LowerPrecisionIsRejected) {
  std::string text = mutate(bench::read_file(kAddKernel), "dtype=x.dtype", "dtype=nl.bfloat16");
  bench::CheckResult r = bench::check_kernel(add_check(text));
  EXPECT_EQ(r.outcome, bench::Outcome::LowerPrecision);
  EXPECT_TRUE(r.seeds.empty());
}

TEST(Checker, KernelWithoutKernelFunction) {
  bench::CheckResult r = bench::check_kernel(add_check("import numpy as np\ndef helper(x):\n    return x\n"));
  EXPECT_EQ(r.outcome, bench::Outcome::CompileError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0], "bad_kernel.py: error: kernel file defines no function 'kernel' (or 'optimized_kernel')");
}

TEST(Checker, SyntaxErrorIsCompileError) {
  bench::CheckResult r = bench::check_kernel(add_check("def kernel(x, y:\n    return x\n"));
  EXPECT_EQ(r.outcome, bench::Outcome::CompileError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].rfind("bad_kernel.py:1:", 0), 0u) << r.diagnostics[0];
}

TEST(Checker, ReferenceWithoutForward) {
  auto req = add_check(bench::read_file(kAddKernel));
  req.reference_path = "ref.py";
  req.reference_text = mutate(req.reference_text, "def forward(", "def forwards(");
  bench::CheckResult r = bench::check_kernel(req);
  EXPECT_EQ(r.outcome, bench::Outcome::InternalError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0], "ref.py: error: reference defines no function 'forward'");
}

TEST(Checker, OutputCountMismatch) {
  std::string text = mutate(bench::read_file(kAddKernel), "    return out\n", "    return out, out\n");
  bench::CheckResult r = bench::check_kernel(add_check(text));
  EXPECT_EQ(r.outcome, bench::Outcome::Incorrect);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].find("kernel returned 2 output(s), reference has 1"), std::string::npos)
      << r.diagnostics[0];
}

TEST(Checker, EndlessKernelTimesOut) {
  auto req = add_check("import neuronxcc.nki as nki\n@nki.jit\ndef kernel(x, y):\n    while True:\n        pass\n");
  req.limits.max_seconds = 0.5;
  bench::CheckResult r = bench::check_kernel(req);
  EXPECT_EQ(r.outcome, bench::Outcome::Timeout) << joined(r.diagnostics);
}

}  // namespace
