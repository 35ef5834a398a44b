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
};

struct ExecutorConfig {
  std::string kind = "local";   // "local" | "slurm"
  int workers = 2;              // local: worker processes
  double job_timeout_s = 900;   // per job
  int retries = 1;              // per failed/crashed/timed-out job
  std::string run_dir;          // shared directory for jobs and results
  std::string profiler = "sim"; // "sim" | "command"
  std::string profiler_command; // for "command"
  // slurm
  std::string partition, account, extra_sbatch_args;
  int cpus_per_task = 1, max_concurrent = 0, time_limit_minutes = 30;
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

std::unique_ptr<Executor> make_executor(const ExecutorConfig& config);

}  // namespace eval
