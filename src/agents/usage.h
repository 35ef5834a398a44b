// What a run spent on models: calls, tokens (cached prompt tokens apart) and USD, in total and
// broken down by agent and by the model that answered. Kept in every checkpoint and in
// summary.json (docs/optimize.md), shown by `accelopt show`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace agents {

struct UsageTotals {
  int64_t input_tokens = 0, output_tokens = 0;
  int64_t cached_input_tokens = 0;  // part of input_tokens read from the provider's prompt cache
  double cost_usd = 0;
  int64_t calls = 0, failed_calls = 0, replayed_calls = 0;
  int64_t tokens() const { return input_tokens + output_tokens; }
  int64_t answered() const { return calls - failed_calls; }
};

struct Usage : UsageTotals {
  std::map<std::string, UsageTotals> by_agent, by_model;  // only rows with calls
  const UsageTotals& totals() const { return *this; }
};

UsageTotals operator-(const UsageTotals& a, const UsageTotals& b);
UsageTotals operator+(const UsageTotals& a, const UsageTotals& b);
// Element-wise, breakdowns included (a breakdown row that becomes all zero is dropped).
Usage operator-(const Usage& a, const Usage& b);
Usage operator+(const Usage& a, const Usage& b);

// What one more call of `agent` is expected to cost: the mean of its answered calls so far, else
// the mean of every answered call, else nothing (no answer yet).
struct CallEstimate {
  double cost_usd = 0;
  double tokens = 0;
};
std::optional<CallEstimate> estimate_call(const Usage& usage, const std::string& agent);

}  // namespace agents
