// The executor and profiler options shared by `accelopt optimize`, `accelopt bench` (and any
// command that evaluates many kernels): --executor local|slurm, --workers, --job-timeout,
// --retries, --profiler sim|command, --profiler-command, --slurm-* (see docs/evaluation.md).
//
//   eval::ExecutorConfig exec;
//   eval::add_executor_options(sub, exec);   // in the command's setup
//   ... exec.run_dir = <run>/eval; auto executor = eval::make_executor(exec);
#pragma once

namespace CLI {
class App;
}

namespace eval {

struct ExecutorConfig;
void add_executor_options(CLI::App& app, ExecutorConfig& config);

}  // namespace eval
