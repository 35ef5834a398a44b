// load_tasks: the bundled benchmark's tasks, in the order the user gave them (memory carries from
// one task to the next), 'all' in the benchmark's order, unknown names refused.
#include <gtest/gtest.h>

#include "search/task_loader.h"

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

}  // namespace
}  // namespace search
