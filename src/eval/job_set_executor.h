// The part every executor shares: turn EvalJobs into job files keyed by content (identical
// kernels -> one key -> one evaluation), skip keys whose result exists (resume), hand the rest
// to the subclass, and map results back to job order with progress callbacks.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "eval/executor.h"
#include "eval/run_dir.h"

namespace eval {

class JobSetExecutor : public Executor {
 public:
  explicit JobSetExecutor(ExecutorConfig config);
  std::vector<Evaluation> run(const std::vector<EvalJob>& jobs, const ProgressFn& progress) final;
  void cancel() override { cancelled_.store(true); }

 protected:
  using ResultFn = std::function<void(const std::string& key)>;
  // Executes the jobs `keys` (job files written, results absent). Calls on_result(key) once the
  // result file of a key exists. Returns early when cancelled(); throws for service failures.
  virtual void execute(const std::vector<std::string>& keys, const ResultFn& on_result) = 0;

  bool cancelled() const;
  // Records that a job failed `attempts` times: an error Evaluation written as its result.
  void record_failure(const std::string& key, int attempts, const std::string& why, bool timed_out);
  std::string worker_binary() const;

  ExecutorConfig config_;
  RunDir run_dir_;

 private:
  std::atomic<bool> cancelled_{false};
};

// An Evaluation saying the job did not finish because the run was cancelled (`cancelled` set:
// not a result, never stored; a resumed run evaluates the kernel again).
Evaluation cancelled_evaluation();

}  // namespace eval
