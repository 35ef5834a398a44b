// The harness on real kernels: every bundled kernel passes its own (small) check, a wrong kernel
// per task family fails with the mismatch figures, and each kind of bad input gets its status
// and a one-line, file-naming diagnostic.
#include <gtest/gtest.h>

#include "eval/evaluate.h"
#include "eval/profile_run.h"

#include <nlohmann/json.hpp>
#include "eval_test_util.h"
#include "support/test_paths.h"

namespace {

using eval_test::joined;
using eval_test::mutate;
using eval_test::small_check;

std::string kernel_text(const std::string& name) { return bench::read_file(eval_test::bundled_kernel(name)); }


class BundledKernelSmall : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledKernelSmall, PassesItsOwnCheck) {
  const std::string name = GetParam();
  eval::EvalRequest req = small_check(name, kernel_text(name));
  req.profile = true;
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
  ASSERT_EQ(r.seeds.size(), 1u);
  EXPECT_LT(r.seeds[0].rel_l2, name.rfind("mamba", 0) == 0 ? 3e-5 : 2e-5);
  ASSERT_TRUE(r.profile.has_value());
  EXPECT_GT(r.profile->latency, 0);
  // The evaluation profiles the run it checked (numerics on); the trace does not depend on the
  // values, so a trace-only run of the same kernel gives the same profile.
  eval::TraceRequest trace{req.kernel_path, req.kernel_text,
                           eval::reference_kernel_args(req.reference_path, req.reference_text, req.limits), req.limits};
  eval::ProfileRun trace_only = eval::profile_kernel(trace, "trn1");
  ASSERT_TRUE(trace_only.profile.has_value()) << joined(trace_only.diagnostics);
  EXPECT_EQ(trn::to_json(*r.profile).dump(), trn::to_json(*trace_only.profile).dump());
}

INSTANTIATE_TEST_SUITE_P(AllTasks, BundledKernelSmall, ::testing::ValuesIn(eval_test::case_names()),
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

TEST(Pipeline, WrongKernelPerFamilyFailsWithMismatchFigures) {
  for (const auto& w : kWrong) {
    std::string text = mutate(kernel_text(w.task), w.from, w.to);
    ASSERT_EQ(text.find("<mutation target"), std::string::npos) << w.family << ": " << text;
    eval::Evaluation r = eval::evaluate(small_check(w.task, text));
    EXPECT_EQ(r.status, eval::Status::Incorrect) << w.family << "\n" << joined(r.diagnostics);
    ASSERT_EQ(r.seeds.size(), 1u) << w.family;
    EXPECT_FALSE(r.seeds[0].correct);
    EXPECT_GT(r.seeds[0].rel_l2, 2e-5) << w.family;
    EXPECT_GT(r.seeds[0].max_abs_diff, 0) << w.family;
    EXPECT_GT(r.seeds[0].mean_abs_diff, 0) << w.family;
    ASSERT_EQ(r.diagnostics.size(), 1u) << w.family;
    EXPECT_NE(r.diagnostics[0].find("output mismatch at seed 0: rel_l2"), std::string::npos) << r.diagnostics[0];
    EXPECT_NE(r.diagnostics[0].find("max abs diff"), std::string::npos);
  }
}

const std::string kAddRef = std::string(ACCELOPT_SOURCE_DIR) + "/examples/add/reference.py";
const std::string kAddKernel = std::string(ACCELOPT_SOURCE_DIR) + "/examples/add/kernel.py";

eval::EvalRequest add_check(const std::string& kernel) {
  eval::EvalRequest req;
  req.reference_path = kAddRef;
  req.reference_text = bench::read_file(kAddRef);
  req.kernel_path = "bad_kernel.py";
  req.kernel_text = kernel;
  req.limits.max_seconds = 30;
  return req;
}

TEST(Pipeline, ExampleAddPassesAllFiveSeeds) {
  auto req = add_check(bench::read_file(kAddKernel));
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
  ASSERT_EQ(r.seeds.size(), 5u);
  EXPECT_EQ(r.seeds[4].seed, 84);
}

TEST(Pipeline, LowerPrecisionIsRejected) {
  std::string text = mutate(bench::read_file(kAddKernel), "dtype=x.dtype", "dtype=nl.bfloat16");
  eval::Evaluation r = eval::evaluate(add_check(text));
  EXPECT_EQ(r.status, eval::Status::LowerPrecision);
  EXPECT_TRUE(r.seeds.empty());
}

TEST(Pipeline, KernelWithoutKernelFunction) {
  eval::Evaluation r = eval::evaluate(add_check("import numpy as np\ndef helper(x):\n    return x\n"));
  EXPECT_EQ(r.status, eval::Status::CompileError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0], "bad_kernel.py: error: kernel file defines no function 'kernel' (or 'optimized_kernel') and no "
            "@nki.jit function");
}

TEST(Pipeline, SyntaxErrorIsCompileError) {
  eval::Evaluation r = eval::evaluate(add_check("def kernel(x, y:\n    return x\n"));
  EXPECT_EQ(r.status, eval::Status::CompileError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].rfind("bad_kernel.py:1:", 0), 0u) << r.diagnostics[0];
}

TEST(Pipeline, ReferenceWithoutForward) {
  auto req = add_check(bench::read_file(kAddKernel));
  req.reference_path = "ref.py";
  req.reference_text = mutate(req.reference_text, "def forward(", "def forwards(");
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::InternalError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0], "ref.py: error: reference defines no function 'forward'");
}

TEST(Pipeline, OutputCountMismatch) {
  std::string text = mutate(bench::read_file(kAddKernel), "    return out\n", "    return out, out\n");
  eval::Evaluation r = eval::evaluate(add_check(text));
  EXPECT_EQ(r.status, eval::Status::Incorrect);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].find("kernel returned 2 output(s), reference has 1"), std::string::npos)
      << r.diagnostics[0];
}

// The time limit is CPU time: an endless kernel uses it up and is a timeout, whatever the load.
TEST(Pipeline, EndlessKernelTimesOut) {
  auto req = add_check("import neuronxcc.nki as nki\n@nki.jit\ndef kernel(x, y):\n    while True:\n        pass\n");
  req.limits = eval::limits_for_cpu_seconds(0.5);
  req.limits.max_seconds = 600;  // a loaded machine may give this test far less than a core
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Timeout) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->limit, nki::LimitKind::Time);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].find("CPU time limit of 0.5 seconds exceeded"), std::string::npos) << r.diagnostics[0];
}

// The wall clock only backs the CPU limit up: reached with CPU time left (a loaded machine), the
// check is `unfinished`, a status that says the kernel was not judged.
TEST(Pipeline, WallClockBackstopWithCpuTimeLeftIsUnfinished) {
  auto req = add_check("import neuronxcc.nki as nki\n@nki.jit\ndef kernel(x, y):\n    while True:\n        pass\n");
  req.limits.max_cpu_seconds = 600;
  req.limits.max_seconds = 0.3;
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Unfinished) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->limit, nki::LimitKind::WallTime);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].find("wall-clock backstop of 0.3 seconds reached"), std::string::npos) << r.diagnostics[0];
  EXPECT_NE(r.diagnostics[0].find("the kernel was not judged"), std::string::npos) << r.diagnostics[0];
}

// Every seed's session draws on one budget, and the message quotes the evaluation's limit, not
// what was left of it when the failing seed's session started (was: "time limit of 78.7 seconds").
TEST(Pipeline, TheTimeLimitMessageQuotesTheEvaluationsBudget) {
  auto req = add_check("import neuronxcc.nki as nki\n@nki.jit\ndef kernel(x, y):\n    while True:\n        pass\n");
  req.limits = eval::limits_for_cpu_seconds(0.4);
  req.limits.max_seconds = 600;  // a loaded machine may give this test far less than a core
  req.seeds = {0, 1, 2};
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Timeout) << joined(r.diagnostics);
  EXPECT_EQ(r.seeds.size(), 0u);  // the first seed used the whole budget: no later seed started
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].find("limit of 0.4 seconds"), std::string::npos) << r.diagnostics[0];
}

}  // namespace

namespace {

const char* kKernelHead =
    "import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
    "import neuronxcc.nki.isa as nisa\n\n@nki.jit\ndef kernel(x, y):\n";

std::string add_kernel_with(const std::string& extra_body, const std::string& tile_dtype = "") {
  std::string dtype = tile_dtype.empty() ? "" : ", dtype=" + tile_dtype;
  return std::string(kKernelHead) + extra_body +
         "    rows, cols = x.shape\n"
         "    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)\n"
         "    for r in nl.affine_range(rows // 128):\n"
         "        a = nl.load(x[r * 128:(r + 1) * 128, :]" + dtype + ")\n"
         "        b = nl.load(y[r * 128:(r + 1) * 128, :]" + dtype + ")\n"
         "        nl.store(out[r * 128:(r + 1) * 128, :], value=nisa.tensor_tensor(a, b, nl.add, dtype=x.dtype))\n"
         "    return out\n";
}

TEST(Pipeline, EndlessKernelUnderTheStepLimitIsATimeout) {
  auto req = add_check(std::string(kKernelHead) + "    while True:\n        pass\n");
  req.limits.max_steps = 100'000;
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Timeout) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->limit, nki::LimitKind::Steps);
  EXPECT_EQ(r.failure->stage, eval::Stage::RunKernel);
  EXPECT_EQ(r.failure->line, 9u);
}

TEST(Pipeline, MemoryLimitIsAResourceError) {
  auto req = add_check(add_kernel_with(
      "    big = nl.ndarray((1000, nl.par_dim(128), 4096), dtype=nl.float32, buffer=nl.sbuf)\n"));
  req.limits.max_bytes = 64ull << 20;
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::ResourceError) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->limit, nki::LimitKind::Memory);
}

// A tile larger than an SBUF partition passes numerics (the interpreter does not bound SBUF);
// the simulator cannot place it: the kernel's resource error, which the fixer sees.
TEST(Pipeline, TileThatCannotFitOnChipIsAResourceError) {
  auto req = add_check(add_kernel_with("    big = nl.zeros((128, 65536), dtype=nl.float32, buffer=nl.sbuf)\n"));
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::ResourceError) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->stage, eval::Stage::Simulate);
  EXPECT_FALSE(r.correct);
  EXPECT_FALSE(r.profile.has_value());
}

TEST(Pipeline, LowerPrecisionHoweverObtained) {
  // The dtype name is built at run time: no text search can see it.
  auto req = add_check(add_kernel_with("    low = np.dtype('bfl' + 'oat' + str(16))\n", "low"));
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::LowerPrecision) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->line, 12u);  // the load that computes in bf16
  // A comment or a string that says float16 is not computing in it.
  auto honest = add_check(add_kernel_with("    note = 'float16 would be faster'  # bfloat16 too\n"));
  EXPECT_EQ(eval::evaluate(honest).status, eval::Status::Ok);
}

TEST(Pipeline, TaskWithBf16InputsMayComputeInBf16ButNotFp8) {
  auto req = add_check(add_kernel_with("", "x.dtype"));
  req.reference_text = mutate(mutate(req.reference_text, "size=(M, N)).astype(np.float32)", "size=(M, N)).astype('bfloat16')"),
                              "size=(M, N)).astype(np.float32)", "size=(M, N)).astype('bfloat16')");
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
  req.kernel_text = add_kernel_with("", "nl.float8_e4m3");
  EXPECT_EQ(eval::evaluate(req).status, eval::Status::LowerPrecision);
}

TEST(Pipeline, EachSeedRunsInAFreshSession) {
  // Module state would carry a count across seeds if they shared an interpreter.
  auto req = add_check(std::string("calls = [0]\n") + add_kernel_with("    calls[0] += 1\n    assert calls[0] == 1\n"));
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::Ok) << joined(r.diagnostics);
  EXPECT_EQ(r.seeds.size(), 5u);
}

TEST(Pipeline, KernelSourceOverTheSizeCapIsACompileError) {
  auto req = add_check(bench::read_file(kAddKernel) + std::string(2 << 20, '#'));
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::CompileError) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->limit, nki::LimitKind::SourceSize);
}

TEST(Pipeline, KernelFileIsReadOnlyUpToTheCap) {
  eval::EvalRequest req = add_check("");
  req.kernel_path = "/dev/zero";
  eval::Evaluation r = eval::evaluate(req);
  EXPECT_EQ(r.status, eval::Status::CompileError) << joined(r.diagnostics);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->limit, nki::LimitKind::SourceSize);
}

}  // namespace
