// load_tasks: the bundled benchmark's tasks, in the order the user gave them (memory carries from
// one task to the next), 'all' in the benchmark's order, unknown names refused; with a kernels
// directory (optimize --kernels) the baselines come from there.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "search/task_loader.h"
#include "support/test_paths.h"

namespace search {
namespace {

std::string bench_root() { return std::string(ACCELOPT_SOURCE_DIR) + "/nkibench"; }

std::vector<std::string> names(const std::vector<TaskSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.info.name);
  return out;
}

TEST(TaskLoader, TasksRunInTheOrderGiven) {
  std::vector<std::string> warnings;
  auto specs = load_tasks(bench_root(), "silu,adamw,mamba_M7168_C256_S16,silu_M4096_N7168", "trn1", warnings);
  EXPECT_EQ(names(specs), (std::vector<std::string>{"silu_M4096_N7168", "adamw_M10944_N2048", "mamba_M7168_C256_S16"}));
}

TEST(TaskLoader, AllIsTheBenchmarkOrderAndUnknownNamesAreRefused) {
  std::vector<std::string> warnings;
  auto all = load_tasks(bench_root(), "all", "trn1", warnings);
  ASSERT_EQ(all.size(), 14u);
  EXPECT_EQ(all.front().info.name, "adamw_M10944_N2048");
  EXPECT_THROW(load_tasks(bench_root(), "silu,nosuch", "trn1", warnings), std::invalid_argument);
}

TEST(TaskLoader, KernelsDirectoryGivesTheBaselines) {
  std::vector<std::string> warnings;
  std::string dir = std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/styles/nki_api";
  auto specs = load_tasks(bench_root(), "silu,adamw", "trn1", warnings, dir);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].baseline_path, dir + "/silu_M4096_N7168_0.py");
  EXPECT_NE(specs[0].info.baseline_text.find("nisa.dma_copy(dst="), std::string::npos);
  EXPECT_EQ(specs[0].info.kernel_file_name, "silu_M4096_N7168_0.py");
  EXPECT_EQ(specs[1].baseline_path, dir + "/adamw_M10944_N2048_0.py");
  EXPECT_GT(specs[1].info.peak_latency_ms, 0);  // the task's own peak, whatever the kernel
}

// The planner stops near the firm peak: the published peak's matmul and HBM parts. A softmax's
// peak is its vector part, which fused instructions beat, so its firm peak is below it; a matmul's
// peak is its matmul part, firm as it is.
TEST(TaskLoader, TheFirmPeakIsThePublishedPeaksMatmulAndMemoryParts) {
  std::vector<std::string> warnings;
  auto specs = load_tasks(bench_root(), "bmm_softmax,matmul,silu", "trn1", warnings);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_GT(specs[0].info.firm_peak_ms, 0);
  EXPECT_LT(specs[0].info.firm_peak_ms, 0.9 * specs[0].info.peak_latency_ms);
  EXPECT_DOUBLE_EQ(specs[1].info.firm_peak_ms, specs[1].info.peak_latency_ms);
  EXPECT_DOUBLE_EQ(specs[2].info.firm_peak_ms, specs[2].info.peak_latency_ms);  // memory-bound
}

TEST(TaskLoader, KernelsDirectoryWithoutATasksKernel) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("accelopt_task_loader_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "silu.py") << "import neuronxcc.nki as nki\n\n\n@nki.jit\ndef kernel(x):\n    return x\n";
  std::vector<std::string> warnings;
  auto specs = load_tasks(bench_root(), "silu", "trn1", warnings, dir.string());  // <task>.py also counts
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].baseline_path, (dir / "silu.py").string());
  EXPECT_EQ(specs[0].info.kernel_file_name, "silu_M4096_N7168_0.py");
  try {
    load_tasks(bench_root(), "silu,adamw", "trn1", warnings, dir.string());
    ADD_FAILURE() << "a named task without a kernel in the directory must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("adamw_M10944_N2048_0.py"), std::string::npos) << e.what();
  }
  warnings.clear();
  auto all = load_tasks(bench_root(), "all", "trn1", warnings, dir.string());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(warnings.size(), 13u);
  EXPECT_THROW(load_tasks(bench_root(), "silu", "trn1", warnings, (dir / "nosuch").string()), std::invalid_argument);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace search
