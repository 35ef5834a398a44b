#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "eval/executor.h"
#include "executor_test_util.h"
#include "temp_dir.h"

namespace eval {
namespace {

TEST(LocalExecutor, ResultsInJobOrderAndDuplicatesEvaluatedOnce) {
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt";
  auto exec = make_executor(local_config(tmp.path() + "/run"));
  std::vector<EvalJob> jobs = {
      hooked_job("a", "k = 1\n", {{"record_run", runs}, {"result", canned_ok(3.0)}}),
      hooked_job("b", "k = 2\n", {{"record_run", runs}, {"result", canned_ok(1.0)}}),
      hooked_job("a-again", "k = 1  # only a comment differs\n", {{"record_run", runs}, {"result", canned_ok(3.0)}}),
  };
  std::vector<std::string> progressed;
  auto results = exec->run(jobs, [&](const std::string& id, const Evaluation&) { progressed.push_back(id); });
  ASSERT_EQ(results.size(), 3u);
  EXPECT_DOUBLE_EQ(results[0].latency_ms(), 3.0);
  EXPECT_DOUBLE_EQ(results[1].latency_ms(), 1.0);
  EXPECT_DOUBLE_EQ(results[2].latency_ms(), 3.0);
  EXPECT_EQ(count_lines(runs), 2);  // "a" and "a-again" share one evaluation
  EXPECT_EQ(progressed.size(), 3u);
}

TEST(LocalExecutor, CrashedWorkerIsRetriedThenRecorded) {
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt";
  auto exec = make_executor(local_config(tmp.path() + "/run"));
  std::vector<EvalJob> jobs = {
      hooked_job("crash", "c\n", {{"record_run", runs}, {"crash", "abort"}}),
      hooked_job("flaky", "f\n", {{"crash_once_marker", tmp.path() + "/marker"}, {"result", canned_ok(2.0)}}),
      hooked_job("fine", "g\n", {{"result", canned_ok(1.0)}}),
  };
  auto results = exec->run(jobs, nullptr);
  EXPECT_EQ(results[0].status, Status::InternalError);
  ASSERT_FALSE(results[0].diagnostics.empty());
  EXPECT_NE(results[0].diagnostics[0].find("2 attempts"), std::string::npos) << results[0].diagnostics[0];
  EXPECT_EQ(count_lines(runs), 2);  // 1 try + 1 retry
  EXPECT_EQ(results[1].status, Status::Ok);  // crashed once, retry succeeded
  EXPECT_EQ(results[2].status, Status::Ok);
}

// A worker killed on the wall clock is not the kernel's verdict: `unfinished`, not `timeout`.
TEST(LocalExecutor, HungWorkerIsUnfinished) {
  TempDir tmp;
  ExecutorConfig c = local_config(tmp.path() + "/run");
  c.job_timeout_s = 0.3;
  c.retries = 0;
  auto exec = make_executor(c);
  auto start = std::chrono::steady_clock::now();
  auto results = exec->run({hooked_job("hang", "h\n", {{"hang", true}})}, nullptr);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_EQ(results[0].status, Status::Unfinished);
}

TEST(LocalExecutor, ResumeDoesNotRerunFinishedJobs) {
  TempDir tmp;
  std::string runs = tmp.path() + "/runs.txt";
  std::vector<EvalJob> jobs = {hooked_job("a", "a\n", {{"record_run", runs}, {"result", canned_ok(1.0)}}),
                               hooked_job("b", "b\n", {{"record_run", runs}, {"result", canned_ok(2.0)}})};
  make_executor(local_config(tmp.path() + "/run"))->run(jobs, nullptr);
  auto again = make_executor(local_config(tmp.path() + "/run"))->run(jobs, nullptr);
  EXPECT_EQ(count_lines(runs), 2);
  EXPECT_DOUBLE_EQ(again[1].latency_ms(), 2.0);
}

TEST(LocalExecutor, CancelStopsWorkersAndReturnsWhatFinished) {
  TempDir tmp;
  auto exec = make_executor(local_config(tmp.path() + "/run"));
  std::vector<EvalJob> jobs = {hooked_job("quick", "q\n", {{"result", canned_ok(1.0)}}),
                               hooked_job("slow", "s\n", {{"hang", true}})};
  // Cancel once the quick job has reported (not after a fixed delay: on a loaded machine a worker
  // can take longer than any delay to start), while the slow one hangs.
  std::thread canceller;
  std::chrono::steady_clock::time_point cancelled;
  auto results = exec->run(jobs, [&](const std::string& id, const Evaluation&) {
    if (id != "quick") return;
    cancelled = std::chrono::steady_clock::now();
    canceller = std::thread([&] { exec->cancel(); });
  });
  ASSERT_TRUE(canceller.joinable()) << "the quick job never reported";
  canceller.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled).count(), 5.0);
  EXPECT_EQ(results[0].status, Status::Ok);
  EXPECT_EQ(results[1].status, Status::InternalError);
  EXPECT_NE(results[1].diagnostics.at(0).find("cancelled"), std::string::npos);
}

TEST(MakeExecutor, RejectsBadSettings) {
  ExecutorConfig c = local_config("/tmp/x");
  c.kind = "cloud";
  EXPECT_THROW(make_executor(c), std::runtime_error);
  c = local_config("");
  EXPECT_THROW(make_executor(c), std::runtime_error);
  c = local_config("/tmp/x");
  c.profiler = "command";
  EXPECT_THROW(make_executor(c), std::runtime_error);
}

}  // namespace
}  // namespace eval
