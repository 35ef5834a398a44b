// Budget checks and the reasons a run stops. Spending is reported by the caller (usage from the
// LLM session, evaluations counted by the loop, time from a clock it can replace in tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "agents/llm_session.h"
#include "search/params.h"

namespace search {

// ReplayMissing: `--replay` asked a question the recorded run has no answer to. NearPeak and
// AtDmaFloor end one task, not the run: the planner proposed nothing because every candidate it
// was given is at a bound no rewrite can pass (agents::BoundStop).
enum class StopReason {
  None, Rounds, BudgetUsd, BudgetTokens, BudgetEvals, BudgetTime, AllCallsFailed, Cancelled, ReplayMissing,
  NearPeak, AtDmaFloor
};
// "none", "rounds", "budget_usd", ... , "cancelled", "replay_missing", "near_peak", "at_dma_floor"
const char* to_string(StopReason reason);
StopReason parse_stop_reason(const std::string& s);  // unknown text -> None
bool is_budget_stop(StopReason reason);
// A stop that ends the task it happened in; the run goes on with the next task.
bool is_task_stop(StopReason reason);

class BudgetTracker {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  // `elapsed_before_s`: wall time spent by earlier processes of a resumed run.
  BudgetTracker(Budgets budgets, double elapsed_before_s = 0, Clock clock = {});

  // The first exhausted budget, or nullopt. A budget is exhausted once spending reaches it.
  std::optional<StopReason> exhausted(const agents::Usage& usage, int64_t evaluations) const;
  // Evaluations still allowed (INT64_MAX when unlimited).
  int64_t evaluations_left(int64_t evaluations) const;
  double elapsed_s() const;
  const Budgets& budgets() const { return budgets_; }
  // The budget that stopped a call at the session's gate: USD when one is set, else tokens.
  StopReason gate_reason() const { return budgets_.max_usd > 0 ? StopReason::BudgetUsd : StopReason::BudgetTokens; }

 private:
  Budgets budgets_;
  double elapsed_before_s_;
  Clock clock_;
  double start_s_;
};

}  // namespace search
