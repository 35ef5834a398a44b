// Thin wrappers over the Slurm client programs (sbatch, squeue, scancel). No accounting database
// is needed: task states come from `squeue -t all`, which keeps finished tasks for MinJobAge.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace eval {

// A Slurm command that could not reach the controller (retry later) versus any other failure
// (a rejected submission: an input error).
struct SlurmUnreachable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ArrayTaskState {
  std::string array_id;  // the array job id sbatch returned
  int index = 0;
  std::string state;     // PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL, ...
};

bool slurm_state_active(const std::string& state);  // may still produce a result

struct SbatchOptions {
  std::string job_name, output_pattern, script;
  int array_size = 0, max_concurrent = 0, cpus_per_task = 1, time_limit_minutes = 30;
  std::string partition, account, extra_args;  // extra_args: split on whitespace
};

class SlurmClient {
 public:
  explicit SlurmClient(double command_timeout_s = 60) : timeout_s_(command_timeout_s) {}
  std::vector<std::string> sbatch_argv(const SbatchOptions& options) const;
  std::string submit(const SbatchOptions& options) const;  // returns the array job id
  // States of every task of the given arrays that the controller still knows.
  std::vector<ArrayTaskState> query(const std::vector<std::string>& array_ids) const;
  void cancel(const std::vector<std::string>& array_ids) const;
  // "SlurmctldHost" of the configuration in use ($SLURM_CONF or /etc/slurm/slurm.conf).
  static std::string controller_name();

 private:
  double timeout_s_;
};

// Parses `squeue -h -r -t all -o '%F|%K|%T'` output (exposed for tests).
std::vector<ArrayTaskState> parse_squeue(const std::string& text);

}  // namespace eval
