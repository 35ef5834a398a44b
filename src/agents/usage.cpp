#include "agents/usage.h"

namespace agents {

namespace {

bool is_zero(const UsageTotals& u) {
  return u.input_tokens == 0 && u.output_tokens == 0 && u.cached_input_tokens == 0 && u.cost_usd == 0 &&
         u.calls == 0 && u.failed_calls == 0 && u.replayed_calls == 0;
}

template <typename Op>
std::map<std::string, UsageTotals> combine(const std::map<std::string, UsageTotals>& a,
                                           const std::map<std::string, UsageTotals>& b, Op op) {
  std::map<std::string, UsageTotals> out = a;
  for (const auto& [key, value] : b) out[key] = op(out[key], value);
  for (auto it = out.begin(); it != out.end();) it = is_zero(it->second) ? out.erase(it) : std::next(it);
  return out;
}

std::optional<CallEstimate> mean_of(const UsageTotals& u) {
  if (u.answered() <= 0) return std::nullopt;
  double n = static_cast<double>(u.answered());
  return CallEstimate{u.cost_usd / n, static_cast<double>(u.tokens()) / n};
}

}  // namespace

UsageTotals operator-(const UsageTotals& a, const UsageTotals& b) {
  return {a.input_tokens - b.input_tokens, a.output_tokens - b.output_tokens,
          a.cached_input_tokens - b.cached_input_tokens, a.cost_usd - b.cost_usd,
          a.calls - b.calls, a.failed_calls - b.failed_calls, a.replayed_calls - b.replayed_calls};
}

UsageTotals operator+(const UsageTotals& a, const UsageTotals& b) {
  return {a.input_tokens + b.input_tokens, a.output_tokens + b.output_tokens,
          a.cached_input_tokens + b.cached_input_tokens, a.cost_usd + b.cost_usd,
          a.calls + b.calls, a.failed_calls + b.failed_calls, a.replayed_calls + b.replayed_calls};
}

Usage operator-(const Usage& a, const Usage& b) {
  Usage out;
  static_cast<UsageTotals&>(out) = a.totals() - b.totals();
  auto minus = [](const UsageTotals& x, const UsageTotals& y) { return x - y; };
  out.by_agent = combine(a.by_agent, b.by_agent, minus);
  out.by_model = combine(a.by_model, b.by_model, minus);
  return out;
}

Usage operator+(const Usage& a, const Usage& b) {
  Usage out;
  static_cast<UsageTotals&>(out) = a.totals() + b.totals();
  auto plus = [](const UsageTotals& x, const UsageTotals& y) { return x + y; };
  out.by_agent = combine(a.by_agent, b.by_agent, plus);
  out.by_model = combine(a.by_model, b.by_model, plus);
  return out;
}

std::optional<CallEstimate> estimate_call(const Usage& usage, const std::string& agent) {
  auto found = usage.by_agent.find(agent);
  if (found != usage.by_agent.end())
    if (auto own = mean_of(found->second)) return own;
  return mean_of(usage.totals());
}

}  // namespace agents
