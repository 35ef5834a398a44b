// optimize --confirm-with-profiler CMD: after the search, each task's baseline and reported best
// are profiled again through the command profiler (docs/evaluation.md "Profilers": a wrapper
// around neuron-profile on a Trainium host), so the summary shows the simulated and the real
// numbers side by side.
#pragma once

#include <vector>

#include "search/kernel_evaluator.h"
#include "search/search_state.h"
#include "search/task_spec.h"

namespace search {

// `evaluator` must send its jobs to an executor whose profiler is the command profiler. Records
// TaskResult::profiler_baseline_latency_ms / profiler_best_latency_ms (and profiler_note when a
// kernel could not be measured) for every finished task that has a best kernel.
void confirm_with_profiler(KernelEvaluator& evaluator, const std::vector<TaskSpec>& tasks, RunState& state);

}  // namespace search
