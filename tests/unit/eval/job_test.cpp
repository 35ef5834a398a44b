#include "eval/job.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "eval/run_dir.h"
#include "temp_dir.h"

namespace eval {
namespace {

JobSpec sample_job() {
  JobSpec job;
  job.request.kernel_text = "def kernel(a):\n    return a\n";
  job.request.reference_text = "def forward(a):\n    return a\n";
  job.request.seeds = {0, 21};
  job.key = job_key(job);
  return job;
}

TEST(JobKey, IgnoresCommentsButNotMeaning) {
  JobSpec a = sample_job(), b = sample_job();
  b.request.kernel_text = "def kernel(a):  # same\n\n    return a\n";
  EXPECT_EQ(job_key(a), job_key(b));
  b.request.arch = "trn2";
  EXPECT_NE(job_key(a), job_key(b));
  b = a;
  b.request.seeds = {0};
  EXPECT_NE(job_key(a), job_key(b));
  b = a;
  b.profiler.kind = "command";
  EXPECT_NE(job_key(a), job_key(b));
  b = a;
  b.request.reference_text += "\n# other task\n";
  EXPECT_NE(job_key(a), job_key(b));  // the reference is hashed as bytes
}

TEST(JobJson, RoundTrips) {
  JobSpec job = sample_job();
  job.request.limits.max_seconds = 12;
  job.profiler = {"command", "prof --x"};
  job.test_hook_json = R"({"sleep_s":0.5})";
  JobSpec back = job_from_json(to_json(job));
  EXPECT_EQ(back.key, job.key);
  EXPECT_EQ(back.request.kernel_text, job.request.kernel_text);
  EXPECT_EQ(back.request.seeds, job.request.seeds);
  EXPECT_DOUBLE_EQ(back.request.limits.max_seconds, 12);
  EXPECT_EQ(back.profiler.command, "prof --x");
  EXPECT_EQ(nlohmann::json::parse(back.test_hook_json)["sleep_s"], 0.5);
}

TEST(JobJson, RejectsWrongFormatAndTypes) {
  nlohmann::json j = to_json(sample_job());
  j["format"] = "something/2";
  EXPECT_THROW(job_from_json(j), std::runtime_error);
  j = to_json(sample_job());
  j["seeds"] = "all";
  try {
    job_from_json(j);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'seeds'"), std::string::npos);
  }
}

TEST(RunDir, WritesJobsAndResultsAtomically) {
  TempDir tmp;
  RunDir run(tmp.path() + "/run");
  JobSpec job = sample_job();
  run.write_job(job);
  EXPECT_EQ(run.read_job(job.key).request.kernel_text, job.request.kernel_text);
  EXPECT_FALSE(run.has_result(job.key));
  EXPECT_FALSE(run.read_result(job.key).has_value());
  Evaluation e;
  e.status = Status::Incorrect;
  run.write_result(job.key, e, "test");
  ASSERT_TRUE(run.read_result(job.key).has_value());
  EXPECT_EQ(run.read_result(job.key)->status, Status::Incorrect);
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path() + "/run/results"))
    EXPECT_EQ(entry.path().extension(), ".json") << "temp file left behind: " << entry.path();
}

TEST(RunDir, CorruptResultIsAnErrorNotARerun) {
  TempDir tmp;
  RunDir run(tmp.path());
  const std::string key(32, 'c');
  std::ofstream(run.result_path(key)) << "{not json";
  EXPECT_THROW(run.read_result(key), std::runtime_error);
}

TEST(LoadTexts, ReadsPathsAndReportsMissingFiles) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/k.py") << "kernel";
  EvalRequest r;
  r.kernel_path = tmp.path() + "/k.py";
  r.reference_text = "given";
  load_texts(r);
  EXPECT_EQ(r.kernel_text, "kernel");
  EXPECT_EQ(r.reference_text, "given");
  EvalRequest missing;
  missing.kernel_path = tmp.path() + "/nope.py";
  EXPECT_THROW(load_texts(missing), std::runtime_error);
}

}  // namespace
}  // namespace eval
