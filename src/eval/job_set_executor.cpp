#include "eval/job_set_executor.h"

#include <unistd.h>

#include <climits>
#include <stdexcept>

#include <fmt/core.h>

#include "base/plural.h"
#include "eval/interrupt.h"
#include "eval/job.h"
#include "eval/sources.h"

namespace eval {
namespace {

std::string tail_of_file(const std::string& path, size_t max_bytes) {
  try {
    std::string text = read_text_file(path);
    return text.size() <= max_bytes ? text : "..." + text.substr(text.size() - max_bytes);
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace

Evaluation cancelled_evaluation() {
  Evaluation e;
  e.status = Status::InternalError;
  e.cancelled = true;
  e.diagnostics.push_back("evaluation cancelled before it finished");
  return e;
}

JobSetExecutor::JobSetExecutor(ExecutorConfig config) : config_(std::move(config)), run_dir_(config_.run_dir) {}

bool JobSetExecutor::cancelled() const { return cancelled_.load() || interrupt_requested(); }

std::string JobSetExecutor::worker_binary() const {
  if (!config_.worker_binary.empty()) return config_.worker_binary;
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw std::runtime_error("cannot find the accelopt executable for workers (set worker_binary)");
  return std::string(path, static_cast<size_t>(n));
}

void JobSetExecutor::record_failure(const std::string& key, int attempts, const std::string& why, bool timed_out) {
  Evaluation e;
  // Killed on the wall clock (the job timeout, Slurm's TIMEOUT): the evaluation's own CPU limit
  // did not stop it, so the machine's load or a hang of ours did, not the kernel's verdict.
  e.status = timed_out ? Status::Unfinished : Status::InternalError;
  e.diagnostics.push_back(fmt::format("evaluation job {} failed on {}: {}", key,
                                      base::count_of(attempts, "attempt"), why));
  std::string log = tail_of_file(run_dir_.log_path(key, attempts), 2000);
  if (!log.empty()) e.diagnostics.push_back("worker log (last attempt):\n" + log);
  // Stored like any result: a job that exhausted its retries is finished, and resume keeps it.
  run_dir_.write_result(key, e, "executor");
}

std::vector<Evaluation> JobSetExecutor::run(const std::vector<EvalJob>& jobs, const ProgressFn& progress) {
  std::map<std::string, std::vector<size_t>> job_indices;  // key -> positions in `jobs`
  std::vector<std::string> pending;
  std::vector<Evaluation> results(jobs.size());
  std::vector<bool> done(jobs.size(), false);

  auto deliver = [&](const std::string& key, const Evaluation& evaluation) {
    for (size_t job_idx : job_indices[key]) {
      results[job_idx] = evaluation;
      done[job_idx] = true;
      if (progress) progress(jobs[job_idx].id, evaluation);
    }
  };
  auto on_result = [&](const std::string& key) {
    auto evaluation = run_dir_.read_result(key);
    if (!evaluation) throw std::logic_error("executor reported job " + key + " done without a result");
    deliver(key, *evaluation);
  };

  std::vector<std::string> ready;
  for (size_t job_idx = 0; job_idx < jobs.size(); ++job_idx) {
    JobSpec spec;
    spec.request = jobs[job_idx].request;
    load_texts(spec.request);
    spec.profiler = {config_.profiler, config_.profiler_command};
    spec.test_hook_json = jobs[job_idx].test_hook_json;
    spec.key_tag = jobs[job_idx].key_tag;
    spec.key = job_key(spec);
    auto& indices = job_indices[spec.key];
    indices.push_back(job_idx);
    if (indices.size() > 1) continue;  // a duplicate: evaluated once, delivered to all
    if (run_dir_.has_result(spec.key)) {
      ready.push_back(spec.key);
      continue;
    }
    // A job file is JSON (UTF-8 only): a kernel that is not UTF-8 is judged here, not dispatched.
    if (auto bad = check_kernel_encoding(spec.request.kernel_path, spec.request.kernel_text)) {
      run_dir_.write_result(spec.key, failed_evaluation(*bad), "executor");
      ready.push_back(spec.key);
      continue;
    }
    run_dir_.write_job(spec);
    pending.push_back(spec.key);
  }
  for (const auto& key : ready) on_result(key);
  if (!pending.empty() && !cancelled()) execute(pending, on_result);
  for (size_t job_idx = 0; job_idx < jobs.size(); ++job_idx)
    if (!done[job_idx]) results[job_idx] = cancelled_evaluation();
  return results;
}

}  // namespace eval
