// `--executor local` end to end through `accelopt worker --dispatch`.
#include <gtest/gtest.h>

#include "executor_util.h"

namespace executor_e2e {
namespace {

TEST(ExecutorLocal, DispatchWritesResultsInOrderWithDedup) {
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt";
  JobListBuilder list{tmp.path()};
  list.add("a", "x = 1\n", {{"record_run", runs}, {"result", canned_ok(2.0)}})
      .add("b", "x = 2\n", {{"record_run", runs}, {"result", canned_ok(1.0)}})
      .add("dup", "x = 1   # same kernel, another comment\n", {{"record_run", runs}, {"result", canned_ok(2.0)}});
  CommandRun r = run_accelopt(tmp.path(), "worker --dispatch " + list.write() + " --eval-dir " + tmp.path() + "/eval");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = result_lines(r.out);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["id"], "a");
  EXPECT_EQ(results[1]["evaluation"]["latency_ms"], 1.0);
  EXPECT_EQ(results[2]["evaluation"]["latency_ms"], 2.0);
  EXPECT_EQ(lines_of(runs).size(), 2u);
}

TEST(ExecutorLocal, CommandProfilerEndToEnd) {
  TempDir tmp;
  std::string script = tmp.path() + "/fake-neuron-profile.sh";
  std::ofstream(script) << "#!/bin/sh\n"
                           "test -r \"$1\" && test -r \"$2\" || exit 9\n"
                           "echo '{\"latency\": 0.125, \"hbm_read_bytes\": 512, \"hbm_write_bytes\": 256}'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  JobListBuilder list{tmp.path()};
  // The canned check result has no profile: the profile must come from the script.
  list.add("k", "x = 1\n", {{"result", {{"status", "ok"}, {"correct", true}}}});
  CommandRun r = run_accelopt(tmp.path(), "worker --dispatch " + list.write() + " --eval-dir " + tmp.path() +
                                       "/eval --profiler command --profiler-command " + shell_quote(script));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = result_lines(r.out);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["evaluation"]["latency_ms"], 0.125);
  EXPECT_EQ(results[0]["evaluation"]["profile"]["hbm_write_bytes"], 256);
}

TEST(ExecutorLocal, InterruptKillsWorkersAndExits130) {
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt";
  JobListBuilder list{tmp.path()};
  list.add("hang", "h\n", {{"record_run", runs}, {"hang", true}});
  pid_t pid = spawn_accelopt({"worker", "--dispatch", list.write(), "--eval-dir", tmp.path() + "/eval"},
                             tmp.path() + "/log.txt");
  ASSERT_TRUE(wait_until([&] { return lines_of(runs).size() == 1; }, 20)) << read_file(tmp.path() + "/log.txt");
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130);
  pid_t worker = recorded_pids(runs).at(0);
  EXPECT_TRUE(wait_until([&] { return !process_alive(worker); }, 5)) << "worker " << worker << " orphaned";
}

TEST(ExecutorLocal, SmokeRealKernelMatchesAccelOptEval) {
  TempDir tmp;
  nlohmann::json direct = direct_eval_of_add(tmp.path());
  ASSERT_TRUE(direct.is_object()) << "accelopt eval --json printed no JSON";
  CommandRun r = run_accelopt(tmp.path(), "worker --dispatch " + add_example_list(tmp.path()) + " --eval-dir " +
                                              tmp.path() + "/eval --workers 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = result_lines(r.out);
  ASSERT_EQ(results.size(), 1u);
  // `eval` also says which bar it judged by (the job list carries the job's own tolerance).
  EXPECT_EQ(direct["tolerance"]["rel_l2"], 2e-5) << direct.dump(1);
  direct.erase("tolerance");
  EXPECT_EQ(results[0]["evaluation"], direct);
  EXPECT_EQ(results[0]["evaluation"]["status"], "ok") << results[0].dump(1);
}

TEST(ExecutorLocal, BadJobListIsAClearError) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/jobs.jsonl") << "{\"id\": \"x\"}\n";
  CommandRun r = run_accelopt(tmp.path(), "worker --dispatch " + tmp.path() + "/jobs.jsonl --eval-dir " + tmp.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("jobs.jsonl:1: bad job"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace executor_e2e
