// One round of the AccelOpt beam search (AccelOpt paper, Algorithm 1): plans for every candidate,
// kernels for every plan, evaluation (with repair of failed kernels), memory curation from the
// rewrite pairs, and selection of the next beam. Tests: tests/unit/search/round_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/llm_session.h"
#include "search/budget.h"
#include "search/kernel_evaluator.h"
#include "search/kernel_result.h"
#include "search/params.h"
#include "search/progress.h"
#include "search/search_state.h"
#include "search/task_spec.h"

namespace search {

// The services a round uses. `session` is null for agents without a model; `observer` may be null.
struct SearchEnv {
  SearchParams params;
  agents::AgentSet agents;
  KernelEvaluator* evaluator = nullptr;
  agents::LlmSession* session = nullptr;
  BudgetTracker* budget = nullptr;
  ProgressObserver* observer = nullptr;
  // Re-check each task's reported best with the task's recheck seeds at the task's end
  // (recheck.h). `accelopt optimize` always does; tests and benchmarks of the loop may not.
  bool recheck_best = false;
};

struct RoundOutcome {
  std::vector<agents::Candidate> beam;   // C_{i+1}
  RoundStats stats;
  std::vector<std::vector<agents::Plan>> plans;  // [candidate][plan] of the beam the round began with
  std::vector<KernelResult> results;     // every kernel of the round
  std::vector<agents::ExperienceItem> new_items;  // added to memory, newest first
  StopReason stop = StopReason::None;    // a budget ran out, every call of a phase failed, ...
  std::string stop_message;
  // False when the round must not be kept: every model call of one of its phases failed
  // (AllCallsFailed), or a replay found no recorded answer (ReplayMissing). The caller stops
  // without recording it, so a resumed run makes its calls again.
  bool keep = true;
};

// Runs round `round` (1-based) of `task` from `beam`; adds the round's experience to `memory`
// and the evaluations it ran to `evaluations`. A budget that runs out mid-round stops further
// model calls and evaluations, and the round still finishes (curation and selection with what
// it has). When every model call of one of its phases failed, the outcome says AllCallsFailed and
// keep == false: the caller stops without keeping the round.
RoundOutcome run_round(const SearchEnv& env, const TaskSpec& task, int round, const std::vector<agents::Candidate>& beam,
                       agents::Memory& memory, int64_t& evaluations);

}  // namespace search
