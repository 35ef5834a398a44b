// make_executor: validates the settings and picks the implementation.
#include "eval/executor.h"

#include <stdexcept>

#include "eval/local_executor.h"
#include "eval/slurm_executor.h"

namespace eval {
namespace {

void validate(const ExecutorConfig& c) {
  auto bad = [](const std::string& what) { throw std::runtime_error("executor setting " + what); };
  if (c.run_dir.empty()) bad("run_dir: a directory for jobs and results is required");
  if (c.workers < 1) bad("workers must be at least 1");
  if (!(c.job_timeout_s > 0)) bad("job timeout must be positive");
  if (c.retries < 0) bad("retries must not be negative");
  if (c.profiler != "sim" && c.profiler != "command") bad("profiler '" + c.profiler + "' is not sim or command");
  if (c.profiler == "command" && c.profiler_command.empty()) bad("profiler 'command' needs --profiler-command");
  if (c.cpus_per_task < 1) bad("cpus per task must be at least 1");
  if (c.max_concurrent < 0) bad("max concurrent tasks must not be negative");
  if (c.time_limit_minutes < 1) bad("slurm time limit must be at least 1 minute");
  if (!(c.poll_interval_s > 0)) bad("poll interval must be positive");
  if (!(c.controller_timeout_s >= 0)) bad("controller timeout must not be negative");
}

}  // namespace

std::unique_ptr<Executor> make_executor(const ExecutorConfig& config) {
  validate(config);
  if (config.kind == "local") return std::make_unique<LocalExecutor>(config);
  if (config.kind == "slurm") return std::make_unique<SlurmExecutor>(config);
  throw std::runtime_error("unknown executor '" + config.kind + "' (expected local or slurm)");
}

}  // namespace eval
