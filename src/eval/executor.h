// Executors run batches of evaluation jobs: `local` (a pool of `accelopt worker` processes) or
// `slurm` (job arrays). The search loop and `accelopt bench` only see this interface.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eval/evaluate.h"
#include "eval/evaluation.h"

namespace eval {

struct EvalJob {
  std::string id;       // unique within a run (e.g. content hash of kernel+reference+arch+sim version)
  EvalRequest request;  // kernel_text/reference_text filled, or paths readable by the workers
  // Part of the job's content key when non-empty: a job tagged (e.g. "recheck", the final
  // five-seed re-check) never shares a result with an untagged job of the same request, so it
  // runs in a worker of its own.
  std::string key_tag;
  // TEST HOOK (tests only): JSON object that makes the worker sleep/crash/hang or return a canned
  // Evaluation instead of calling evaluate(); see eval/test_hooks.h.
  std::string test_hook_json;
};

struct ExecutorConfig {
  std::string kind = "local";   // "local" | "slurm"
  int workers = 2;              // local: worker processes
  // Per job, wall clock: outlives the evaluation's own wall-clock backstop (default_limits), which
  // reports a typed result; a worker killed at this timeout is recorded as `unfinished`.
  double job_timeout_s = kWallBackstopFactor * 600 + 60;
  int retries = 1;              // per failed/crashed/timed-out job
  std::string run_dir;          // shared directory for jobs and results
  std::string profiler = "sim"; // "sim" | "command"
  std::string profiler_command; // for "command"
  // slurm
  std::string partition, account, extra_sbatch_args;
  int cpus_per_task = 1, max_concurrent = 0, time_limit_minutes = 45;  // slurm: above the job timeout
  // Added by the evaluation service:
  std::string worker_binary;         // `accelopt` to run as `worker` ("" = this executable)
  double poll_interval_s = 0.3;      // slurm: squeue polling period
  double controller_timeout_s = 120; // slurm: unreachable controller -> error after this long
};

using ProgressFn = std::function<void(const std::string& job_id, const Evaluation&)>;

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs every job (identical kernels are evaluated once) and returns results in job order.
  // Jobs whose result already exists in run_dir are not re-run (resume).
  virtual std::vector<Evaluation> run(const std::vector<EvalJob>& jobs, const ProgressFn& progress) = 0;
  // Cancels outstanding work (budget stop, Ctrl-C); run() then returns what finished.
  virtual void cancel() = 0;
};

// Throws std::runtime_error for an unknown kind or a bad setting (names the setting).
std::unique_ptr<Executor> make_executor(const ExecutorConfig& config);

}  // namespace eval
