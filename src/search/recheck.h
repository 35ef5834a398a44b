// The final re-check of a task's reported best (docs/optimize.md, "Search-time seeds"). The
// search may check candidates with fewer seeds than the task's five (--check-seeds) to save
// time; whatever it used, the kernel a run reports as best is checked again with all five seeds
// in a fresh worker process before it is reported. If it fails, the best kernel that passes is
// reported instead, trying the task's beam history best first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agents/types.h"
#include "search/kernel_evaluator.h"
#include "search/task_spec.h"

namespace search {

struct RecheckOutcome {
  // "passed" (the first candidate passed), "fallback" (a later one did), "failed" (none did),
  // "cancelled" (interrupted before a candidate passed: nothing was decided).
  std::string status;
  std::optional<agents::Candidate> reported;  // the candidate that passed
  std::string note;                           // one line per candidate that failed
  int64_t evaluations = 0;
};

// The spec of the re-check: the task's recheck seeds, a cache-key tag of its own so that the
// evaluator never answers from a search-time result (the job runs in a new worker process), and
// no reference-output cache.
TaskSpec recheck_spec(const TaskSpec& task);

// Checks `candidates` one at a time, fastest first (duplicates by text skipped), with
// recheck_spec(task) until one passes.
RecheckOutcome recheck_best(KernelEvaluator& evaluator, const TaskSpec& task, std::vector<agents::Candidate> candidates);

}  // namespace search
