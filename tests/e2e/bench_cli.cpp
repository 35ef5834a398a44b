// `accelopt bench` and `accelopt tasks` end to end: the bundled task list, and a small benchmark
// directory (bundled tasks shrunk) with good, wrong and malformed entries.
#include <cmath>

#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

TEST(TasksCli, ListsFourteenTasksWithPeaks) {
  TempDir tmp;
  CliRun r = accelopt(tmp.path(), "tasks --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["arch"], "trn1");
  ASSERT_EQ(j["tasks"].size(), 14u);
  for (auto& t : j["tasks"]) EXPECT_GT(t["peak_latency"].get<double>(), 0) << t.dump();
  CliRun text = accelopt(tmp.path(), "tasks --arch trn2");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("PEAK_BW = 2.9e12/8"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("mamba"), std::string::npos);
}

// A bench root with small silu and adamw tasks.
std::string small_bench(const TempDir& tmp, nlohmann::json& summary) {
  std::string root = tmp.path() + "/bench";
  add_small_task(root, "silu", "M4096_N7168", {{"M", 256}, {"N", 2048}}, "M256_N2048", summary);
  add_small_task(root, "adamw", "M10944_N2048", {{"M", 200}, {"N", 2048}}, "M200_N2048", summary);
  write_summary(root, summary);
  return root;
}

TEST(BenchCli, SmallBenchJsonFields) {
  TempDir tmp;
  nlohmann::json summary;
  std::string root = small_bench(tmp, summary);
  CliRun r = accelopt(tmp.path(), "bench --bench-root " + root + " --seeds 0 --json --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = r.json();
  EXPECT_EQ(j["arch"], "trn1");
  ASSERT_EQ(j["tasks"].size(), 2u);
  double log_sum = 0;
  for (auto& t : j["tasks"]) {
    EXPECT_EQ(t["status"], "ok") << t.dump();
    EXPECT_EQ(t["correct"], true);
    double latency = t["latency"].get<double>(), peak = t["peak_latency"].get<double>();
    EXPECT_GT(latency, 0);
    EXPECT_EQ(t["bound"], "memory");
    EXPECT_NEAR(t["percent_of_peak"].get<double>(), peak / latency * 100, 1e-9);
    EXPECT_TRUE(t["profile"].is_object());
    log_sum += std::log(t["percent_of_peak"].get<double>());
  }
  // silu at M=256, N=2048: 8*M*N bytes at 410 GiB/s.
  EXPECT_NEAR(j["tasks"][1]["peak_latency"].get<double>(), 8.0 * 256 * 2048 / (410.0 * 1073741824) * 1e3, 1e-12);
  EXPECT_NEAR(j["geomean_percent_of_peak"].get<double>(), std::exp(log_sum / 2), 1e-9);
}

TEST(BenchCli, TasksFilterCsvAndKernelsDirectory) {
  TempDir tmp;
  nlohmann::json summary;
  std::string root = small_bench(tmp, summary);
  CliRun csv = accelopt(tmp.path(), "bench --bench-root " + root + " --seeds 0 --tasks silu --csv --quiet");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("task,config,kernel,status,correct,latency_ms,peak_latency_ms,bound,percent_of_peak\n", 0), 0u);
  EXPECT_NE(csv.out.find("\nsilu,M256_N2048,"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find("adamw"), std::string::npos);

  std::string bad = slurp(root + "/kernels/silu_M256_N2048_0.py");
  bad.replace(bad.find("operand0=1.0"), 12, "operand0=2.0");
  spit(tmp.path() + "/mine/silu.py", bad);
  CliRun mine = accelopt(tmp.path(), "bench --bench-root " + root + " --seeds 0 --tasks silu --json --kernels " +
                                      tmp.path() + "/mine");
  EXPECT_EQ(mine.exit_code, 1);
  auto t = mine.json()["tasks"][0];
  EXPECT_EQ(t["status"], "incorrect");
  EXPECT_EQ(t["kernel"], tmp.path() + "/mine/silu.py");
  EXPECT_TRUE(t["percent_of_peak"].is_null());
  EXPECT_TRUE(mine.json()["geomean_percent_of_peak"].is_null());

  CliRun unknown = accelopt(tmp.path(), "bench --bench-root " + root + " --tasks nosuch");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no task named 'nosuch'"), std::string::npos) << unknown.err;
}

// Issue 14: one latin-1 byte in a comment of one kernel aborted a whole `bench --kernels` run
// without naming the file. It is that kernel's compile error, naming the file at the byte, and
// the other task still runs.
TEST(BenchCli, ALatin1ByteInOneKernelIsItsCompileErrorAndTheRunGoesOn) {
  TempDir tmp;
  nlohmann::json summary;
  std::string root = small_bench(tmp, summary);
  spit(tmp.path() + "/mine/silu.py", "# caf\xE9\n" + slurp(root + "/kernels/silu_M256_N2048_0.py"));
  spit(tmp.path() + "/mine/adamw.py", slurp(root + "/kernels/adamw_M200_N2048_0.py"));
  CliRun r = accelopt(tmp.path(), "bench --bench-root " + root + " --seeds 0 --json --quiet --kernels " + tmp.path() + "/mine");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = r.json();
  ASSERT_EQ(j["tasks"].size(), 2u) << r.out;
  for (auto& t : j["tasks"]) {
    if (t["task"] == "silu") {
      EXPECT_EQ(t["status"], "compile_error") << t.dump();
      EXPECT_NE(t.dump().find("mine/silu.py:1:6: error: the file is not valid UTF-8"), std::string::npos) << t.dump();
    } else {
      EXPECT_EQ(t["status"], "ok") << t.dump();
    }
  }
}

TEST(BenchCli, MalformedEntriesAreReportedAndOthersRun) {
  TempDir tmp;
  nlohmann::json summary;
  std::string root = small_bench(tmp, summary);
  spit(root + "/reference/broken_M1.py", "import numpy as np\ndef get_inputs():\n    return []\n");
  spit(root + "/kernels/broken_M1_0.py", "def kernel():\n    pass\n");
  summary["broken"] = {{"cases", {{"M1", {{"values", {{"M", 1}}},
                                           {"impls", {{{"task", "./reference/broken_M1.py"},
                                                       {"kernel", "./kernels/broken_M1_0.py"}}}}}}}}};
  summary["nocases"] = {{"seed", "./seeds/nocases.yaml"}};
  write_summary(root, summary);
  CliRun r = accelopt(tmp.path(), "bench --bench-root " + root + " --seeds 0 --json --quiet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("broken_M1.py: reference defines no function 'forward'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("task 'nocases' has no 'cases' object"), std::string::npos) << r.err;
  auto j = r.json();
  EXPECT_EQ(j["tasks"].size(), 2u);
  EXPECT_EQ(j["errors"].size(), 2u);
  for (auto& t : j["tasks"]) EXPECT_EQ(t["status"], "ok");

  spit(root + "/summary.json", "{ broken");
  CliRun bad = accelopt(tmp.path(), "bench --bench-root " + root);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("summary.json: not valid JSON"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace bench_e2e
