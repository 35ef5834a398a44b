// The `local` executor: a pool of `accelopt worker` processes, one per job, each in its own
// process group. A worker that crashes, exits without a result, or runs past job_timeout_s is
// killed (whole group) and its job retried up to `retries` times, then recorded as an error.
#pragma once

#include "eval/job_set_executor.h"

namespace eval {

class LocalExecutor final : public JobSetExecutor {
 public:
  explicit LocalExecutor(ExecutorConfig config);

 protected:
  void execute(const std::vector<std::string>& keys, const ResultFn& on_result) override;
};

}  // namespace eval
