#include "eval/worker.h"

#include <fstream>
#include <stdexcept>

#include <fmt/core.h>

#include "eval/evaluate.h"
#include "eval/profiler.h"

namespace eval {
namespace {

JobHook& job_hook() {
  static JobHook hook;
  return hook;
}

Evaluation internal_error(const std::string& message) {
  Evaluation e;
  e.status = Status::InternalError;
  e.diagnostics.push_back(message);
  return e;
}

// Check (and, for the simulator, profile) the kernel; in a test build a hook may replace evaluate().
Evaluation check(const JobSpec& job, bool simulated) {
  if (!job.test_hook_json.empty())
    if (auto canned = job_hook()(job.test_hook_json, job.key)) return *canned;
  EvalRequest request = job.request;
  request.profile = job.request.profile && simulated;
  request.read_files = false;  // the job's text is what runs; its paths only name the files
  try {
    return evaluate(request);
  } catch (const std::exception& e) {
    // evaluate() reports kernel problems in the Evaluation; an exception is our bug, and
    // deterministic, so it is recorded rather than retried.
    return internal_error(fmt::format("evaluation failed: {}", e.what()));
  }
}

}  // namespace

void install_job_hook(JobHook hook) { job_hook() = std::move(hook); }

int run_worker_job(const RunDir& run, const std::string& key) {
  JobSpec job;
  std::unique_ptr<Profiler> profiler;
  try {
    job = run.read_job(key);
    if (!job.test_hook_json.empty() && !job_hook())
      throw std::runtime_error("the job carries a test hook; only the test build of accelopt obeys hooks");
    profiler = make_profiler(job.profiler, run.scratch_dir());
  } catch (const std::exception& e) {
    fmt::print(stderr, "accelopt worker: job {}: {}\n", key, e.what());
    return kWorkerBadJob;
  }
  Evaluation evaluation = check(job, profiler->simulated());
  if (evaluation.correct && job.request.profile && !profiler->simulated()) {
    try {
      profiler->profile(job.request, evaluation);
    } catch (const ProfilerError& e) {
      fmt::print(stderr, "accelopt worker: job {}: {}\n", key, e.what());
      return kWorkerProfilerFailed;
    }
  }
  run.write_result(key, evaluation, "worker");
  return kWorkerOk;
}

std::string key_at_index(const std::string& key_list_path, int index) {
  std::ifstream in(key_list_path);
  if (!in) throw std::runtime_error(fmt::format("cannot read job list '{}'", key_list_path));
  std::string line;
  for (int line_idx = 0; std::getline(in, line); ++line_idx)
    if (line_idx == index) return line;
  throw std::runtime_error(fmt::format("job list '{}' has no index {}", key_list_path, index));
}

}  // namespace eval
