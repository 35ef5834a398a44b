#include "agents/spend_gate.h"

namespace agents {

void SpendGate::set_limits(SpendLimits limits) {
  std::lock_guard lock(mutex_);
  limits_ = limits;
  settled_.notify_all();
}

void SpendGate::set_curation_pairs(int max_pairs) {
  std::lock_guard lock(mutex_);
  max_pairs_ = max_pairs;
  pairs_kept_ = 0;
  settled_.notify_all();
}

void SpendGate::settle(const Ticket& ticket) {
  if (!ticket.counted) return;
  std::lock_guard lock(mutex_);
  --in_flight_;
  reserved_.cost_usd -= ticket.reserved.cost_usd;
  reserved_.tokens -= ticket.reserved.tokens;
  settled_.notify_all();
}

double SpendGate::kept_back_usd(const Usage& spent) const {
  auto summary = estimate_call(spent, "summarizer");
  return summary ? summary->cost_usd * pairs_kept_ : 0;
}

double SpendGate::kept_back_tokens(const Usage& spent) const {
  auto summary = estimate_call(spent, "summarizer");
  return summary ? summary->tokens * pairs_kept_ : 0;
}

bool SpendGate::fits(const Usage& spent, const std::string& agent, CallPurpose purpose,
                     const std::optional<CallEstimate>& own) const {
  // Without any answer yet there is nothing to estimate from: one call at a time, while spending
  // is below the limit.
  if (!own) {
    bool below = (limits_.max_usd <= 0 || spent.cost_usd < limits_.max_usd) &&
                 (limits_.max_tokens <= 0 || spent.tokens() < limits_.max_tokens);
    return in_flight_ == 0 && below;
  }
  bool curation = purpose == CallPurpose::Curation;
  // An opening call keeps one summary back for its branch (up to the round's topk).
  int extra_pairs = purpose == CallPurpose::OpensPair && pairs_kept_ < max_pairs_ ? 1 : 0;
  auto summary = estimate_call(spent, "summarizer");
  if (limits_.max_usd > 0) {
    double need = spent.cost_usd + reserved_.cost_usd + own->cost_usd;
    if (!curation) need += kept_back_usd(spent) + (summary ? summary->cost_usd * extra_pairs : 0);
    if (need > limits_.max_usd) return false;
  }
  if (limits_.max_tokens > 0) {
    double need = static_cast<double>(spent.tokens()) + reserved_.tokens + own->tokens;
    if (!curation) need += kept_back_tokens(spent) + (summary ? summary->tokens * extra_pairs : 0);
    if (need > static_cast<double>(limits_.max_tokens)) return false;
  }
  return true;
}

}  // namespace agents
