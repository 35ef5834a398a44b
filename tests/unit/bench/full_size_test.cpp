// Every bundled kernel against its full-size reference, all five seeds: minutes of work, so it
// runs only when ACCELOPT_FULL_NKIBENCH=1 (scripts and CI jobs that want it set the variable;
// the figures program is `accelopt bench`, see docs/performance/nkibench.md).
#include <algorithm>
#include <cstdlib>

#include <gtest/gtest.h>

#include "bench/checker.h"
#include "bench/loader.h"
#include "bench/ref_cache.h"
#include "bench_test_util.h"

namespace {

bool full_size_enabled() {
  const char* v = std::getenv("ACCELOPT_FULL_NKIBENCH");
  return v && std::string(v) == "1";
}

class FullSize : public ::testing::TestWithParam<std::string> {};

TEST_P(FullSize, BundledKernelPassesAllSeeds) {
  if (!full_size_enabled()) GTEST_SKIP() << "set ACCELOPT_FULL_NKIBENCH=1 to run the full-size check";
  const std::string name = GetParam();
  bench::Suite suite = bench::load_suite(bench_test::source_dir() + "/nkibench");
  auto it = std::find_if(suite.cases.begin(), suite.cases.end(), [&](auto& c) { return c.name() == name; });
  ASSERT_NE(it, suite.cases.end());
  bench::CheckRequest req;
  req.reference_path = it->reference_path;
  req.reference_text = bench::read_file(it->reference_path);
  req.kernel_path = it->kernel_path;
  req.kernel_text = bench::read_file(it->kernel_path);
  req.tolerance = it->effective_tolerance();
  req.cache_dir = bench::default_ref_cache_dir();
  bench::CheckResult r = bench::check_kernel(req);
  std::string diags;
  for (const auto& d : r.diagnostics) diags += d + "\n";
  EXPECT_EQ(r.outcome, bench::Outcome::Ok) << diags;
  EXPECT_EQ(r.seeds.size(), 5u);
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& [name, values] : bench_test::small_configs()) out.push_back(name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(NkiBench, FullSize, ::testing::ValuesIn(names()), [](const auto& info) { return info.param; });

}  // namespace
