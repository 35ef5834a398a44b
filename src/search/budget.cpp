#include "search/budget.h"

#include <limits>

namespace search {

namespace {

double steady_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

constexpr std::pair<StopReason, const char*> kNames[] = {
    {StopReason::None, "none"},
    {StopReason::Rounds, "rounds"},
    {StopReason::BudgetUsd, "budget_usd"},
    {StopReason::BudgetTokens, "budget_tokens"},
    {StopReason::BudgetEvals, "budget_evals"},
    {StopReason::BudgetTime, "budget_time"},
    {StopReason::AllCallsFailed, "all_calls_failed"},
    {StopReason::Cancelled, "cancelled"},
    {StopReason::ReplayMissing, "replay_missing"},
    {StopReason::NearPeak, "near_peak"},
    {StopReason::AtDmaFloor, "at_dma_floor"},
};

}  // namespace

const char* to_string(StopReason reason) {
  for (auto [r, name] : kNames)
    if (r == reason) return name;
  return "none";
}

StopReason parse_stop_reason(const std::string& s) {
  for (auto [r, name] : kNames)
    if (s == name) return r;
  return StopReason::None;
}

bool is_budget_stop(StopReason reason) {
  return reason == StopReason::BudgetUsd || reason == StopReason::BudgetTokens || reason == StopReason::BudgetEvals ||
         reason == StopReason::BudgetTime;
}

bool is_task_stop(StopReason reason) { return reason == StopReason::NearPeak || reason == StopReason::AtDmaFloor; }

BudgetTracker::BudgetTracker(Budgets budgets, double elapsed_before_s, Clock clock)
    : budgets_(budgets), elapsed_before_s_(elapsed_before_s), clock_(clock ? std::move(clock) : steady_seconds) {
  start_s_ = clock_();
}

double BudgetTracker::elapsed_s() const { return elapsed_before_s_ + (clock_() - start_s_); }

std::optional<StopReason> BudgetTracker::exhausted(const agents::Usage& usage, int64_t evaluations) const {
  if (budgets_.max_usd > 0 && usage.cost_usd >= budgets_.max_usd) return StopReason::BudgetUsd;
  if (budgets_.max_tokens > 0 && usage.tokens() >= budgets_.max_tokens) return StopReason::BudgetTokens;
  if (budgets_.max_evals > 0 && evaluations >= budgets_.max_evals) return StopReason::BudgetEvals;
  if (budgets_.max_minutes > 0 && elapsed_s() >= budgets_.max_minutes * 60) return StopReason::BudgetTime;
  return std::nullopt;
}

int64_t BudgetTracker::evaluations_left(int64_t evaluations) const {
  if (budgets_.max_evals <= 0) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(0, budgets_.max_evals - evaluations);
}

}  // namespace search
