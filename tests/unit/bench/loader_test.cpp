// Loading benchmark directories: the bundled one, and broken ones where each bad entry becomes
// one error line naming the file and what is missing while the other cases still load.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "bench/arg_specs.h"
#include "bench/loader.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

class TempBench : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("accelopt_loader_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "reference");
    fs::create_directories(root_ / "kernels");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ / rel) << text;
  }
  void write_good_pair(const std::string& name) {
    write("reference/" + name + ".py",
          "import numpy as np\ndef get_inputs():\n    return []\ndef forward(x):\n    return x\n"
          "def transform_to_nki_inputs(i):\n    return i\ndef transform_nki_outputs(k, r):\n    return [k]\n");
    write("kernels/" + name + "_0.py", "@nki.jit\ndef kernel(x):\n    return x\n");
  }
  static std::string impl(const std::string& name) {
    return R"({"values": {"M": 1}, "impls": [{"task": "./reference/)" + name + R"(.py", "kernel": "./kernels/)" +
           name + R"(_0.py"}]})";
  }
  fs::path root_;
};

TEST(Loader, BundledBenchmarkHasFourteenTasks) {
  bench::Suite suite = bench::load_suite(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench");
  EXPECT_TRUE(suite.errors.empty()) << suite.errors.front();
  ASSERT_EQ(suite.cases.size(), 14u);
  for (const auto& c : suite.cases) {
    EXPECT_TRUE(fs::is_regular_file(c.reference_path)) << c.reference_path;
    EXPECT_TRUE(fs::is_regular_file(c.kernel_path)) << c.kernel_path;
    EXPECT_TRUE(fs::is_regular_file(c.seed_path)) << c.seed_path;
    EXPECT_EQ(fs::path(c.kernel_path).filename().string(), c.name() + "_0.py");
    EXPECT_DOUBLE_EQ(c.effective_tolerance(), c.task == "mamba" ? 3e-5 : 2e-5);
  }
}

// `accelopt eval --reference R` judges with R's task tolerance: an outside author's mamba was
// checked at 2e-5 where the benchmark says 3e-5.
TEST(Loader, AReferenceFindsItsCaseHoweverItsPathIsSpelled) {
  std::string root = std::string(ACCELOPT_SOURCE_DIR) + "/nkibench";
  auto mamba = bench::case_for_reference(root + "/reference/../reference/mamba_M7168_C256_S16.py", root);
  ASSERT_TRUE(mamba.has_value());
  EXPECT_EQ(mamba->task, "mamba");
  EXPECT_DOUBLE_EQ(mamba->effective_tolerance(), 3e-5);
  auto silu = bench::case_for_reference(root + "/reference/silu_M4096_N7168.py", root);
  ASSERT_TRUE(silu.has_value());
  EXPECT_DOUBLE_EQ(silu->effective_tolerance(), 2e-5);
  EXPECT_FALSE(bench::case_for_reference(std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/corpus/tut_tensor_add_spmd.py",
                                         root).has_value());
}

TEST_F(TempBench, ACaseToleranceFromSummaryIsTheOneAReferenceFinds) {
  write_good_pair("good_M1");
  write("summary.json", R"({"good": {"cases": {"M1": {"values": {"M": 1}, "tolerance": 1e-3, "impls": [{"task": "./reference/good_M1.py", "kernel": "./kernels/good_M1_0.py"}]}}}})");
  auto c = bench::case_for_reference((root_ / "reference" / "good_M1.py").string());
  ASSERT_TRUE(c.has_value());
  EXPECT_DOUBLE_EQ(c->effective_tolerance(), 1e-3);
}

TEST_F(TempBench, BadEntriesAreOneLineErrorsAndOthersStillLoad) {
  write_good_pair("good_M1");
  write("reference/noforward_M1.py", "def get_inputs():\n    return []\n");
  write("kernels/noforward_M1_0.py", "def kernel():\n    pass\n");
  write_good_pair("nokernel_M1");
  write("kernels/nokernel_M1_0.py", "def helper():\n    pass\n");
  write("summary.json", R"({
    "good": {"seed": "./seeds/good.yaml", "cases": {"M1": )" + impl("good_M1") + R"(}},
    "noforward": {"cases": {"M1": )" + impl("noforward_M1") + R"(}},
    "nokernel": {"cases": {"M1": )" + impl("nokernel_M1") + R"(}},
    "nocases": {"seed": "x"},
    "novalues": {"cases": {"M1": {"impls": []}}},
    "missingfile": {"cases": {"M1": )" + impl("absent_M1") + R"(}}
  })");
  bench::Suite suite = bench::load_suite(root_.string());
  ASSERT_EQ(suite.cases.size(), 1u);
  EXPECT_EQ(suite.cases[0].task, "good");
  ASSERT_EQ(suite.errors.size(), 5u);
  auto has = [&](const std::string& needle) {
    for (const auto& e : suite.errors)
      if (e.find(needle) != std::string::npos) return e.find('\n') == std::string::npos;
    return false;
  };
  EXPECT_TRUE(has("noforward_M1.py: reference defines no function 'forward'"));
  EXPECT_TRUE(has("nokernel_M1_0.py: kernel file defines no function 'kernel'"));
  EXPECT_TRUE(has("summary.json: task 'nocases' has no 'cases' object"));
  EXPECT_TRUE(has("summary.json: task 'novalues' case 'M1' has no 'values'"));
  EXPECT_TRUE(has("absent_M1.py: cannot read file"));
}

TEST_F(TempBench, MalformedSummaryIsAnError) {
  write("summary.json", "{ not json");
  EXPECT_THROW(bench::load_suite(root_.string()), std::runtime_error);
  write("summary.json", "[1, 2]");
  EXPECT_THROW(bench::load_suite(root_.string()), std::runtime_error);
  EXPECT_THROW(bench::load_suite((root_ / "nowhere").string()), std::runtime_error);
}

TEST_F(TempBench, ToleranceOverrideAndKernelDirectoryLookup) {
  write_good_pair("good_M1");
  write("summary.json", R"({"good": {"cases": {"M1": {"values": {"M": 1}, "tolerance": 1e-3,
      "impls": [{"task": "./reference/good_M1.py", "kernel": "./kernels/good_M1_0.py"}]}}}})");
  bench::Suite suite = bench::load_suite(root_.string());
  ASSERT_EQ(suite.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(suite.cases[0].effective_tolerance(), 1e-3);
  fs::create_directories(root_ / "mine");
  EXPECT_EQ(bench::find_kernel_in((root_ / "mine").string(), suite.cases[0]), "");
  write("mine/good.py", "def kernel():\n    pass\n");
  EXPECT_EQ(bench::find_kernel_in((root_ / "mine").string(), suite.cases[0]), (root_ / "mine/good.py").string());
  write("mine/good_M1_0.py", "def kernel():\n    pass\n");
  EXPECT_EQ(bench::find_kernel_in((root_ / "mine").string(), suite.cases[0]), (root_ / "mine/good_M1_0.py").string());
}

// The bench loader asks the same rule the evaluation and the corpus harness use
// (find_kernel_entry on the loaded module), so a kernel file accepted by one is accepted by all.
TEST(Loader, KernelEntryIsFindKernelEntrysRule) {
  const std::string imports = "import neuronxcc.nki as nki\nimport functools\n";
  auto check = [&](const std::string& body) { return bench::check_kernel_text("k.py", imports + body); };
  EXPECT_EQ(check("@nki.jit\ndef optimized_kernel(a):\n  pass\n"), "");
  EXPECT_NE(check("# def kernel(a):\nx = 1\n"), "");
  // Another author's name for the kernel: the file's one decorated kernel runs.
  EXPECT_EQ(check("@nki.jit(mode='simulation')\ndef silu_fwd(a):\n  pass\n"), "");
  EXPECT_EQ(check("@nki.baremetal\ndef fwd(a, out):\n  pass\n"), "");
  // Forms a text search for `def kernel` or `@...jit` missed, which the harness runs.
  EXPECT_EQ(check("def fwd(a):\n  pass\nkernel = nki.jit(fwd)\n"), "");
  EXPECT_EQ(check("@nki.benchmark(warmup=2, iters=5)\ndef fwd(a):\n  pass\n"), "");
  EXPECT_EQ(check("@nki.jit\ndef k(a):\n  pass\nkernel = lambda a: k[2](a)\n"), "");
  // A plain helper is no kernel; two kernels and no `kernel` name both (the rule's own words).
  std::string helper = check("@functools.cache\ndef helper(a):\n  pass\n");
  EXPECT_NE(helper.find("k.py: kernel file defines no function 'kernel'"), std::string::npos) << helper;
  std::string two = check("@nki.jit\ndef a(x):\n  pass\n@nki.jit\ndef b(x):\n  pass\n");
  EXPECT_NE(two.find("several kernels ('a', 'b') and none named 'kernel': name the one to run 'kernel' (or add `kernel = a`)"),
            std::string::npos) << two;
  // A file that does not load is judged by the evaluation (its error has a line and a status).
  EXPECT_EQ(check("def kernel(:\n"), "");
}

}  // namespace
