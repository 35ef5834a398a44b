// Holds model spending under the run's USD and token budgets by admitting calls before they are
// made, not by noticing afterwards (docs/optimize.md, "Budgets"). Each admitted call reserves
// what a call of its agent costs on average; a call is admitted only when what was spent, what
// the calls in flight reserved, what the round keeps back for its summaries and its own estimate
// all fit. When a call does not fit it waits for the calls in flight (their real costs may be
// lower), and is refused once none is left. Spending can then pass the budget only by the amount
// the calls in flight cost more than their estimates.
//
// The round's summaries are kept back for: an executor call that opens a (candidate, plan) branch
// also reserves one summarizer call (up to `topk` per round), so the rewrite pairs a round paid
// for can still be summarized into memory when the budget runs short.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "agents/usage.h"

namespace agents {

enum class CallPurpose {
  Plain,      // planner, fixer, and executor samples of a branch already opened
  OpensPair,  // an executor call that opens a (candidate, plan) branch: may yield a rewrite pair
  Curation,   // a summarizer call: may use what OpensPair calls kept back
};

struct SpendLimits {
  double max_usd = 0;      // 0 = unlimited
  int64_t max_tokens = 0;  // 0 = unlimited
  bool any() const { return max_usd > 0 || max_tokens > 0; }
};

class SpendGate {
 public:
  void set_limits(SpendLimits limits);
  // At a round's start: up to `max_pairs` summaries may be kept back; 0 releases them (after the
  // round's curation).
  void set_curation_pairs(int max_pairs);

  struct Ticket {
    CallEstimate reserved;
    bool admitted = false;
    bool counted = false;  // admitted under a limit: counted in flight until settled
  };
  // Blocks until the call may go, or must not: `spent` returns the current usage (read under the
  // gate's lock after each wake-up). A refused ticket has admitted == false.
  template <typename SpentFn>
  Ticket admit(const std::string& agent, CallPurpose purpose, SpentFn spent);
  // The call of `ticket` finished (its real cost is in the usage `spent` returns from now on).
  void settle(const Ticket& ticket);

 private:
  bool fits(const Usage& spent, const std::string& agent, CallPurpose purpose, const std::optional<CallEstimate>& own) const;
  double kept_back_usd(const Usage& spent) const;
  double kept_back_tokens(const Usage& spent) const;

  std::mutex mutex_;
  std::condition_variable settled_;
  SpendLimits limits_;
  int in_flight_ = 0;
  CallEstimate reserved_;
  int max_pairs_ = 0, pairs_kept_ = 0;
};

template <typename SpentFn>
SpendGate::Ticket SpendGate::admit(const std::string& agent, CallPurpose purpose, SpentFn spent) {
  std::unique_lock lock(mutex_);
  if (!limits_.any()) return {{}, true, false};
  for (;;) {
    Usage now = spent();
    std::optional<CallEstimate> own = estimate_call(now, agent);
    if (fits(now, agent, purpose, own)) {
      Ticket ticket{own.value_or(CallEstimate{}), true, true};
      ++in_flight_;
      reserved_.cost_usd += ticket.reserved.cost_usd;
      reserved_.tokens += ticket.reserved.tokens;
      if (purpose == CallPurpose::OpensPair && pairs_kept_ < max_pairs_) ++pairs_kept_;
      if (purpose == CallPurpose::Curation && pairs_kept_ > 0) --pairs_kept_;  // now reserved in flight
      return ticket;
    }
    if (in_flight_ == 0) return {};
    settled_.wait(lock);
  }
}

}  // namespace agents
