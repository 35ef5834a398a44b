// Search settings (the published defaults) and budgets.
#pragma once

#include <cstdint>

namespace search {

struct SearchParams {
  int beam = 6;           // B: candidates kept per round
  int plans = 12;         // N: plans per candidate
  int kernels = 2;        // K: kernels per plan
  int rounds = 16;        // T
  int topk = 8;           // rewrite pairs summarized per round
  int expn = 16;          // memory capacity
  double t_pos = 1.04;    // a group at least this much faster is a positive rewrite
  double t_neg = 1.15;    // a group at least this much slower is a negative rewrite
  int fixer_attempts = 1; // F: repair attempts per failed kernel (0 disables the fixer)
  int parallelism = 4;    // agent calls in flight at once
};

// Zero means unlimited.
struct Budgets {
  double max_usd = 0;
  int64_t max_tokens = 0;
  int64_t max_evals = 0;
  double max_minutes = 0;
};

// Throws std::invalid_argument naming the first bad setting (e.g. "--B must be at least 1").
void validate(const SearchParams& params);
void validate(const Budgets& budgets);

}  // namespace search
