// `--executor slurm` end to end against the single-node test cluster that scripts/test.sh starts
// (scripts/slurm/start-slurm.sh). Skipped when no controller answers. The scheduler runs on a 1 s
// tick, so each test keeps its arrays small; the whole file takes about a minute.
#include <gtest/gtest.h>

#include "support/prerequisite.h"

#include "executor_util.h"

namespace executor_e2e {
namespace {

bool slurm_available() {
  static const bool available = std::system("timeout 15 sinfo -h >/dev/null 2>&1") == 0;
  return available;
}

#define REQUIRE_SLURM() \
  ACCELOPT_REQUIRE(slurm_available(), "no Slurm controller (sinfo failed); run scripts/slurm/start-slurm.sh")

std::string slurm_flags(const std::string& eval_dir) {
  return " --executor slurm --eval-dir " + eval_dir + " --slurm-time 2 --retries 1";
}

JobListBuilder mixed_round(const std::string& dir) {
  JobListBuilder list{dir};
  list.add("fast", "a = 1\n", {{"result", canned_ok(1.5)}})
      .add("slow", "a = 2\n", {{"result", canned_ok(0.5)}})
      .add("wrong", "a = 3\n", {{"result", {{"status", "incorrect"}, {"diagnostics", {"seed 0: rel_l2 1.0"}}}}})
      .add("again", "a = 1  # duplicate of fast\n", {{"result", canned_ok(1.5)}});
  return list;
}

TEST(ExecutorSlurm, SameResultsAsLocal) {
  REQUIRE_SLURM();
  TempDir tmp;
  std::string jobs = mixed_round(tmp.path()).write();
  CommandRun local = run_accelopt(tmp.path(), "worker --dispatch " + jobs + " --eval-dir " + tmp.path() + "/local");
  CommandRun slurm = run_accelopt(tmp.path(), "worker --dispatch " + jobs + slurm_flags(tmp.path() + "/slurm"));
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(slurm.exit_code, 0) << slurm.err;
  EXPECT_EQ(result_lines(slurm.out), result_lines(local.out));
  EXPECT_EQ(result_lines(slurm.out).size(), 4u);
  // Dedup: one array of 3 tasks for 4 jobs.
  EXPECT_EQ(lines_of(tmp.path() + "/slurm/slurm/arrays.jsonl").size(), 1u);
}

TEST(ExecutorSlurm, SmokeRealKernelMatchesLocal) {
  REQUIRE_SLURM();
  TempDir tmp;
  std::string jobs = add_example_list(tmp.path());
  CommandRun local = run_accelopt(tmp.path(), "worker --dispatch " + jobs + " --eval-dir " + tmp.path() + "/local");
  CommandRun slurm = run_accelopt(tmp.path(), "worker --dispatch " + jobs + slurm_flags(tmp.path() + "/slurm"));
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(slurm.exit_code, 0) << slurm.err;
  EXPECT_EQ(result_lines(slurm.out), result_lines(local.out));
}

TEST(ExecutorSlurm, CrashedTaskIsRetriedThenRecordedAndTheRoundFinishes) {
  REQUIRE_SLURM();
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt";
  JobListBuilder list{tmp.path()};
  list.add("crash", "c\n", {{"record_run", runs}, {"crash", "abort"}}).add("ok", "o\n", {{"result", canned_ok(1.0)}});
  CommandRun r = run_accelopt(tmp.path(), "worker --dispatch " + list.write() + slurm_flags(tmp.path() + "/eval"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto results = result_lines(r.out);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["evaluation"]["status"], "internal_error");
  EXPECT_NE(results[0]["evaluation"]["diagnostics"][0].get<std::string>().find("2 attempts"), std::string::npos);
  EXPECT_EQ(results[1]["evaluation"]["status"], "ok");
  EXPECT_EQ(lines_of(runs).size(), 2u);  // first try + one retry
}

// The array id of the first batch, once the dispatcher has submitted it.
std::string first_array(const std::string& eval_dir) {
  auto lines = lines_of(eval_dir + "/slurm/arrays.jsonl");
  return lines.empty() ? "" : nlohmann::json::parse(lines[0])["array"].get<std::string>();
}

TEST(ExecutorSlurm, TaskCancelledMidRunIsRetried) {
  REQUIRE_SLURM();
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt", eval_dir = tmp.path() + "/eval";
  JobListBuilder list{tmp.path()};
  list.add("victim", "v\n", {{"record_run", runs}, {"sleep_s", 3}, {"result", canned_ok(4.0)}});
  pid_t pid = spawn_accelopt({"worker", "--dispatch", list.write(), "--executor", "slurm", "--eval-dir", eval_dir,
                              "--slurm-time", "2", "--retries", "1", "--output", tmp.path() + "/out.jsonl"},
                             tmp.path() + "/log.txt");
  ASSERT_TRUE(wait_until([&] { return lines_of(runs).size() == 1; }, 30)) << read_file(tmp.path() + "/log.txt");
  ASSERT_EQ(std::system(("scancel " + first_array(eval_dir) + "_0").c_str()), 0);
  ASSERT_EQ(wait_exit(pid), 0) << read_file(tmp.path() + "/log.txt");
  auto results = result_lines(read_file(tmp.path() + "/out.jsonl"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["evaluation"]["status"], "ok");
  EXPECT_EQ(lines_of(runs).size(), 2u);
}

TEST(ExecutorSlurm, InterruptCancelsTheArray) {
  REQUIRE_SLURM();
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt", eval_dir = tmp.path() + "/eval";
  JobListBuilder list{tmp.path()};
  list.add("hang", "h\n", {{"record_run", runs}, {"hang", true}});
  pid_t pid = spawn_accelopt({"worker", "--dispatch", list.write(), "--executor", "slurm", "--eval-dir", eval_dir,
                              "--slurm-time", "2"},
                             tmp.path() + "/log.txt");
  ASSERT_TRUE(wait_until([&] { return lines_of(runs).size() == 1; }, 30)) << read_file(tmp.path() + "/log.txt");
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130) << read_file(tmp.path() + "/log.txt");
  pid_t worker = recorded_pids(runs).at(0);
  EXPECT_TRUE(wait_until([&] { return !process_alive(worker); }, 15)) << "worker " << worker << " left running";
  std::string state_cmd = "squeue -h -t all -j " + first_array(eval_dir) + " -o %T > " + tmp.path() + "/state.txt";
  ASSERT_EQ(std::system(state_cmd.c_str()), 0);
  EXPECT_EQ(read_file(tmp.path() + "/state.txt"), "CANCELLED\n");
}

TEST(ExecutorSlurm, ResumeAfterKillResubmitsNothingFinished) {
  REQUIRE_SLURM();
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt", eval_dir = tmp.path() + "/eval";
  JobListBuilder list{tmp.path()};
  list.add("done1", "d1\n", {{"record_run", runs}, {"result", canned_ok(1.0)}})
      .add("done2", "d2\n", {{"record_run", runs}, {"result", canned_ok(2.0)}})
      .add("long", "l\n", {{"record_run", runs}, {"sleep_s", 4}, {"result", canned_ok(3.0)}});
  std::string jobs = list.write();
  pid_t pid = spawn_accelopt({"worker", "--dispatch", jobs, "--executor", "slurm", "--eval-dir", eval_dir,
                              "--slurm-time", "2"},
                             tmp.path() + "/log.txt");
  ASSERT_TRUE(wait_until([&] { return lines_of(runs).size() == 3; }, 30)) << read_file(tmp.path() + "/log.txt");
  ::kill(pid, SIGKILL);  // no chance to clean up: the "long" task keeps running in Slurm
  wait_exit(pid);
  CommandRun resumed = run_accelopt(tmp.path(), "worker --dispatch " + jobs + slurm_flags(eval_dir));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  auto results = result_lines(resumed.out);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2]["evaluation"]["latency_ms"], 3.0);
  // Nothing ran twice: finished jobs were read back, the running one was adopted.
  EXPECT_EQ(lines_of(runs).size(), 3u);
  EXPECT_EQ(lines_of(eval_dir + "/slurm/arrays.jsonl").size(), 1u);
}

TEST(ExecutorSlurm, StoppedControllerIsAClearErrorAndTheRunResumes) {
  REQUIRE_SLURM();
  TempDir tmp;
  // A configuration whose controller is not running: what clients see when slurmctld is stopped.
  std::ofstream(tmp.path() + "/slurm.conf") << "ClusterName=gone\nSlurmctldHost=stopped-ctld(127.0.0.1)\n"
                                               "SlurmctldPort=6999\nAuthType=auth/munge\nCredType=cred/munge\n"
                                               "NodeName=n1 NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n"
                                               "PartitionName=debug Nodes=ALL Default=YES\n";
  JobListBuilder list{tmp.path()};
  list.add("k", "k\n", {{"result", canned_ok(1.0)}});
  std::string jobs = list.write();
  auto start = std::chrono::steady_clock::now();
  CommandRun r = run_accelopt(tmp.path(),
                       "worker --dispatch " + jobs + slurm_flags(tmp.path() + "/eval") + " --slurm-controller-timeout 1",
                       "SLURM_CONF=" + shell_quote(tmp.path() + "/slurm.conf"));
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("slurm controller stopped-ctld(127.0.0.1) unreachable"), std::string::npos) << r.err;
  EXPECT_LT(took, 60);
  // Same run directory, real controller: the run completes.
  CommandRun resumed = run_accelopt(tmp.path(), "worker --dispatch " + jobs + slurm_flags(tmp.path() + "/eval"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(result_lines(resumed.out).at(0)["evaluation"]["status"], "ok");
}

}  // namespace
}  // namespace executor_e2e
