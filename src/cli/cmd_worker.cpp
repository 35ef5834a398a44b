// `accelopt worker`: the evaluation worker, and a small dispatcher for job lists.
//
//   accelopt worker --run-dir DIR --job KEY                  execute one job (local executor)
//   accelopt worker --run-dir DIR --batch B --index I        execute Slurm array task I of batch B
//   accelopt worker --dispatch LIST.jsonl --eval-dir DIR [--executor local|slurm ...]
//                                                            evaluate a job list through an executor
// Protocol and options: docs/evaluation.md.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "eval/executor.h"
#include "eval/executor_cli.h"
#include "eval/interrupt.h"
#include "eval/job_list.h"
#include "eval/run_dir.h"
#include "eval/worker.h"

namespace {

struct WorkerOptions {
  std::string run_dir, job, batch, dispatch, output;
  int index = -1;
  eval::ExecutorConfig executor;
};

// A batch list line is "KEY ATTEMPT"; the task's output goes to that attempt's log.
std::string resolve_batch_task(const eval::RunDir& run, const WorkerOptions& o) {
  // A batch name is a file name in slurm/ (the executor writes "bN"): never a path.
  bool plain = !o.batch.empty() && std::all_of(o.batch.begin(), o.batch.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!plain) throw std::runtime_error(fmt::format("'{}' is not a batch name", o.batch));
  std::istringstream line(eval::key_at_index(run.slurm_dir() + "/" + o.batch + ".keys", o.index));
  std::string key;
  int attempt = 1;
  line >> key >> attempt;
  if (key.empty()) throw std::runtime_error(fmt::format("batch {} index {}: empty job line", o.batch, o.index));
  eval::check_job_key(key);
  std::string log = run.log_path(key, attempt);
  if (!std::freopen(log.c_str(), "a", stdout) || !std::freopen(log.c_str(), "a", stderr))
    throw std::runtime_error("cannot open worker log '" + log + "'");
  return key;
}

int run_dispatch(WorkerOptions& o) {
  if (o.executor.run_dir.empty()) throw std::runtime_error("--dispatch needs --eval-dir (jobs and results go there)");
  std::vector<eval::EvalJob> jobs = eval::read_job_list(o.dispatch);
  auto executor = eval::make_executor(o.executor);
  eval::InterruptGuard guard;  // Ctrl-C cancels outstanding jobs instead of orphaning them
  auto results = executor->run(jobs, nullptr);
  std::string text = eval::format_results(jobs, results);
  if (o.output.empty()) {
    fmt::print("{}", text);
  } else {
    base::write_file_atomic(o.output, text);
  }
  return eval::interrupt_requested() ? 130 : 0;
}

int run_worker(WorkerOptions& o) {
  if (!o.dispatch.empty()) return run_dispatch(o);
  if (o.run_dir.empty()) throw std::runtime_error("--run-dir is required");
  if (o.job.empty() == o.batch.empty()) throw std::runtime_error("give either --job KEY or --batch B --index I");
  if (!o.batch.empty() && o.index < 0) throw std::runtime_error("--batch needs --index (the array task id)");
  eval::RunDir run(o.run_dir);
  std::string key = o.job.empty() ? resolve_batch_task(run, o) : o.job;
  return eval::run_worker_job(run, key);
}

cli::RunFn setup_worker(CLI::App& sub) {
  auto options = std::make_shared<WorkerOptions>();
  sub.add_option("--run-dir", options->run_dir, "evaluation run directory (jobs/, results/)");
  sub.add_option("--job", options->job, "key of the job to execute (jobs/KEY.json)");
  sub.add_option("--batch", options->batch, "slurm batch name (slurm/B.keys lists one job per line)");
  sub.add_option("--index", options->index, "line of the batch list, normally $SLURM_ARRAY_TASK_ID");
  sub.add_option("--dispatch", options->dispatch, "evaluate the jobs of this JSON-lines list through an executor");
  sub.add_option("--output", options->output, "--dispatch: write result lines here instead of stdout");
  eval::add_executor_options(sub, options->executor);
  return [options] { return run_worker(*options); };
}

cli::CommandRegistrar reg("worker", "execute evaluation jobs (used by the executors), or dispatch a job list",
                          setup_worker);

}  // namespace
