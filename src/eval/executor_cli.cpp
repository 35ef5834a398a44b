#include "eval/executor_cli.h"

#include <CLI/CLI.hpp>

#include "eval/executor.h"

namespace eval {

void add_executor_options(CLI::App& app, ExecutorConfig& c) {
  const char* group = "Evaluation";
  app.add_option("--executor", c.kind, "where evaluations run: local worker processes or slurm job arrays")
      ->check(CLI::IsMember({"local", "slurm"}))->capture_default_str()->group(group);
  app.add_option("--workers", c.workers, "local: worker processes")->capture_default_str()->group(group);
  app.add_option("--job-timeout", c.job_timeout_s, "seconds before a local worker is killed and its job retried")
      ->capture_default_str()->group(group);
  app.add_option("--retries", c.retries, "retries of a crashed, failed or timed-out job")->capture_default_str()->group(group);
  app.add_option("--profiler", c.profiler, "sim (the simulator) or command (an external profiler)")
      ->check(CLI::IsMember({"sim", "command"}))->capture_default_str()->group(group);
  app.add_option("--profiler-command", c.profiler_command,
                 "command run as `CMD KERNEL REFERENCE`, printing neuron-profile JSON")->group(group);
  app.add_option("--eval-dir", c.run_dir, "shared directory for jobs and results (default: inside the run)")->group(group);
  app.add_option("--slurm-partition", c.partition, "slurm: partition")->group(group);
  app.add_option("--slurm-account", c.account, "slurm: account")->group(group);
  app.add_option("--slurm-time", c.time_limit_minutes, "slurm: time limit per task, minutes")->capture_default_str()->group(group);
  app.add_option("--slurm-cpus", c.cpus_per_task, "slurm: CPUs per task")->capture_default_str()->group(group);
  app.add_option("--slurm-max-concurrent", c.max_concurrent, "slurm: array throttle (%M, 0 = none)")
      ->capture_default_str()->group(group);
  app.add_option("--slurm-args", c.extra_sbatch_args, "slurm: extra sbatch arguments")->group(group);
  app.add_option("--slurm-controller-timeout", c.controller_timeout_s,
                 "slurm: seconds to wait for an unreachable controller before failing")->capture_default_str()->group(group);
}

}  // namespace eval
