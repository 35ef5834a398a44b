// The `slurm` executor: submits the outstanding jobs of a round as one job array
// (`sbatch --parsable --array=0-N%M`, each task `accelopt worker --batch B --index I`), polls
// `squeue` every poll_interval_s, and reads results from the shared run directory.
//   - A task that ends (FAILED, TIMEOUT, NODE_FAIL, CANCELLED, or even COMPLETED) without a result
//     is resubmitted in a new array, up to `retries` times, then recorded as an error.
//   - cancel() / Ctrl-C: scancel every array of the run and wait until they are gone.
//   - An unreachable controller for longer than controller_timeout_s throws SlurmUnreachable
//     naming the controller; finished results stay, so the run can be resumed.
//   - Submitted arrays are recorded in <run>/slurm/arrays.jsonl; on resume, tasks of those arrays
//     that are still queued or running are adopted instead of being submitted again.
#pragma once

#include "eval/job_set_executor.h"
#include "eval/slurm_client.h"

namespace eval {

class SlurmExecutor final : public JobSetExecutor {
 public:
  explicit SlurmExecutor(ExecutorConfig config);

 protected:
  void execute(const std::vector<std::string>& keys, const ResultFn& on_result) override;

 private:
  struct Task;
  class Session;
  SlurmClient client_;
};

}  // namespace eval
