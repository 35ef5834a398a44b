// `accelopt bench` (local worker processes by default, or --executor slurm): the tasks evaluated by workers or Slurm array
// tasks must give the same results as the `--in-process` run. The Slurm test skips when no controller
// answers (scripts/slurm/start-slurm.sh starts the single-node test cluster).
#include <cstdlib>

#include <gtest/gtest.h>

#include "support/prerequisite.h"

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

// Small silu and adamw tasks, plus a wrong silu kernel in its own task so that every run
// mixes correct and incorrect results.
std::string small_mixed_bench(const TempDir& tmp) {
  nlohmann::json summary;
  std::string root = tmp.path() + "/bench";
  add_small_task(root, "silu", "M4096_N7168", {{"M", 256}, {"N", 1024}}, "M256_N1024", summary);
  add_small_task(root, "adamw", "M10944_N2048", {{"M", 128}, {"N", 1024}}, "M128_N1024", summary);
  write_summary(root, summary);
  return root;
}

// What must not depend on where a task ran: everything but the wall time.
nlohmann::json results_of(const CliRun& r) {
  nlohmann::json rows = nlohmann::json::array();
  const nlohmann::json all = r.json();
  for (auto t : all["tasks"]) {
    t.erase("seconds");
    rows.push_back(t);
  }
  return rows;
}

std::string bench_args(const std::string& root) { return "bench --bench-root " + root + " --seeds 0,21 --json --quiet"; }

TEST(BenchExecutor, LocalWorkersMatchInProcess) {
  TempDir tmp;
  std::string root = small_mixed_bench(tmp);
  CliRun in_process = accelopt(tmp.path(), bench_args(root) + " --in-process");
  CliRun local = accelopt(tmp.path(), bench_args(root) + " --executor local --workers 2 --eval-dir " + tmp.path() + "/eval");
  ASSERT_EQ(in_process.exit_code, 0) << in_process.err;
  ASSERT_EQ(local.exit_code, 0) << local.err;
  auto expected = results_of(in_process);
  ASSERT_EQ(expected.size(), 2u);
  for (auto& t : expected) EXPECT_EQ(t["status"], "ok") << t.dump();
  EXPECT_EQ(results_of(local), expected);
  // The jobs went through the evaluation directory (one result file per task).
  EXPECT_TRUE(fs::exists(tmp.path() + "/eval/results"));
  size_t results = 0;
  for (const auto& entry : fs::directory_iterator(tmp.path() + "/eval/results")) results += entry.path().extension() == ".json";
  EXPECT_EQ(results, 2u);
}

TEST(BenchExecutor, WrongKernelIsReportedThroughWorkers) {
  TempDir tmp;
  std::string root = small_mixed_bench(tmp);
  std::string bad = slurp(root + "/kernels/silu_M256_N1024_0.py");
  bad.replace(bad.find("operand0=1.0"), 12, "operand0=2.0");
  spit(tmp.path() + "/mine/silu.py", bad);
  std::string args = bench_args(root) + " --kernels " + tmp.path() + "/mine";
  CliRun in_process = accelopt(tmp.path(), args + " --in-process");
  CliRun local = accelopt(tmp.path(), args);  // worker processes are the default
  EXPECT_EQ(in_process.exit_code, 1) << in_process.err;
  EXPECT_EQ(local.exit_code, 1) << local.err;
  auto rows = results_of(local);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows, results_of(in_process));
  int incorrect = 0, missing = 0;
  for (auto& t : rows) {
    incorrect += t["status"] == "incorrect";
    missing += t["status"] == "missing";  // no adamw kernel in mine/
  }
  EXPECT_EQ(incorrect, 1);
  EXPECT_EQ(missing, 1);
  EXPECT_NE(local.err.find("output mismatch"), std::string::npos) << local.err;
}

bool slurm_available() {
  static const bool available = std::system("timeout 15 sinfo -h >/dev/null 2>&1") == 0;
  return available;
}

TEST(BenchExecutor, SlurmMatchesLocal) {
  ACCELOPT_REQUIRE(slurm_available(), "no Slurm controller (sinfo failed); run scripts/slurm/start-slurm.sh");
  TempDir tmp;
  std::string root = small_mixed_bench(tmp);
  CliRun local = accelopt(tmp.path(), bench_args(root) + " --executor local");
  CliRun slurm = accelopt(tmp.path(), bench_args(root) + " --executor slurm --slurm-time 2 --retries 1 --eval-dir " +
                                          tmp.path() + "/slurm");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(slurm.exit_code, 0) << slurm.err;
  EXPECT_EQ(results_of(slurm), results_of(local));
  // One array for the batch.
  EXPECT_TRUE(fs::exists(tmp.path() + "/slurm/slurm/arrays.jsonl"));
}

}  // namespace
}  // namespace bench_e2e
