// The worker in-process: the `command` profiler protocol with a fake profiler script.
#include "eval/worker.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "eval/run_dir.h"
#include "executor_test_util.h"
#include "temp_dir.h"
#include "support/test_paths.h"

namespace eval {
namespace {

std::string write_script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

JobSpec command_job(const std::string& profiler) {
  JobSpec job;
  job.request.kernel_text = "kernel text\n";
  job.request.reference_text = "reference text\n";
  job.profiler = {"command", profiler};
  job.test_hook_json = nlohmann::json{{"result", {{"status", "ok"}, {"correct", true}}}}.dump();
  job.key = job_key(job);
  return job;
}

TEST(Worker, CommandProfilerGetsFilesAndItsJsonBecomesTheProfile) {
  TempDir tmp;
  RunDir run(tmp.path() + "/run");
  // The fake profiler checks it was given the kernel and reference, then prints a summary.
  std::string script = write_script(tmp.path() + "/prof.sh",
                                    "grep -q 'kernel text' \"$1\" && grep -q 'reference text' \"$2\" || exit 9\n"
                                    "echo '{\"summary\": [{\"latency\": 0.42, \"hbm_read_bytes\": 4096}]}'\n");
  JobSpec job = command_job(script);
  run.write_job(job);
  ASSERT_EQ(run_worker_job(run, job.key), kWorkerOk);
  auto result = run.read_result(job.key);
  ASSERT_TRUE(result && result->profile);
  EXPECT_DOUBLE_EQ(result->latency_ms(), 0.42);
  EXPECT_EQ(result->profile->hbm_read_bytes, 4096u);
}

TEST(Worker, FailingProfilerLeavesNoResultSoTheJobIsRetried) {
  TempDir tmp;
  RunDir run(tmp.path() + "/run");
  JobSpec job = command_job(write_script(tmp.path() + "/bad.sh", "echo 'device busy' >&2; exit 4\n"));
  run.write_job(job);
  EXPECT_EQ(run_worker_job(run, job.key), kWorkerProfilerFailed);
  EXPECT_FALSE(run.has_result(job.key));
  JobSpec garbage = command_job(write_script(tmp.path() + "/garbage.sh", "echo not-json\n"));
  run.write_job(garbage);
  EXPECT_EQ(run_worker_job(run, garbage.key), kWorkerProfilerFailed);
}

TEST(Worker, MissingJobIsABadJob) {
  TempDir tmp;
  RunDir run(tmp.path());
  EXPECT_EQ(run_worker_job(run, "nope"), kWorkerBadJob);
  EXPECT_EQ(run_worker_job(run, std::string(32, 'a')), kWorkerBadJob);
}

// The production binary has no hook code: a job carrying a hook (here a forged "ok") is refused.
TEST(Worker, ProductionWorkerRefusesAJobWithATestHook) {
  TempDir tmp;
  RunDir run(tmp.path() + "/run");
  JobSpec job;
  job.request.kernel_text = "not a kernel\n";
  job.request.reference_text = "def forward(a):\n    return a\n";
  job.test_hook_json = nlohmann::json{{"result", {{"status", "ok"}, {"correct", true}}}}.dump();
  job.key = job_key(job);
  run.write_job(job);
  std::string cmd = std::string(ACCELOPT_BINARY) + " worker --run-dir " + tmp.path() + "/run --job " + job.key +
                    " 2>/dev/null";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), kWorkerBadJob);
  EXPECT_FALSE(run.has_result(job.key));
}

// Keys name files: a key that is a path never reaches the file system.
TEST(Worker, JobKeyThatIsAPathIsRefused) {
  TempDir tmp;
  RunDir run(tmp.path() + "/run");
  EXPECT_EQ(run_worker_job(run, "../../x"), kWorkerBadJob);
  EXPECT_THROW(run.result_path("../x"), std::runtime_error);
  std::string cmd = std::string(ACCELOPT_BINARY) + " worker --run-dir " + tmp.path() + "/run --job ../escaped 2>/dev/null";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), kWorkerBadJob);
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/escaped.json"));
}

// The worker reads only the job file: a job whose text is empty and whose path names another file
// does not evaluate (and quote) that file.
TEST(Worker, JobPathsAreNotRead) {
  TempDir tmp;
  RunDir run(tmp.path() + "/run");
  std::ofstream(tmp.path() + "/other.py") << "hidden_line_1 = 1\nhidden line 2 is not python\n";
  JobSpec job;
  job.request.kernel_path = tmp.path() + "/other.py";
  job.request.reference_path = tmp.path() + "/other.py";
  job.request.reference_text = "def forward(a):\n    return a\n";
  job.key = job_key(job);
  run.write_job(job);
  ASSERT_EQ(run_worker_job(run, job.key), kWorkerOk);
  auto result = run.read_result(job.key);
  ASSERT_TRUE(result);
  std::string text = to_json_text(*result);
  EXPECT_EQ(text.find("hidden"), std::string::npos) << text;
}

TEST(Worker, KeyAtIndex) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/b.keys") << "k0 1\nk1 2\n";
  EXPECT_EQ(key_at_index(tmp.path() + "/b.keys", 1), "k1 2");
  EXPECT_THROW(key_at_index(tmp.path() + "/b.keys", 2), std::runtime_error);
}

}  // namespace
}  // namespace eval
