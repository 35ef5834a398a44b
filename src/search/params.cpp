#include "search/params.h"

#include <stdexcept>

#include <fmt/core.h>

namespace search {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

void validate(const SearchParams& p) {
  require(p.beam >= 1, "--B must be at least 1");
  require(p.plans >= 1, "--N must be at least 1");
  require(p.kernels >= 1, "--K must be at least 1");
  require(p.rounds >= 1, "--T must be at least 1");
  require(p.topk >= 0, "--topk must not be negative");
  require(p.expn >= 0, "--expn must not be negative");
  require(p.t_pos >= 1.0, "--t-pos must be at least 1");
  require(p.t_neg >= 1.0, "--t-neg must be at least 1");
  require(p.fixer_attempts >= 0, "--fixer-attempts must not be negative");
  require(p.parallelism >= 1, "parallelism must be at least 1");
}

void validate(const Budgets& b) {
  require(b.max_usd >= 0, "--budget-usd must not be negative");
  require(b.max_tokens >= 0, "--budget-tokens must not be negative");
  require(b.max_evals >= 0, "--budget-evals must not be negative");
  require(b.max_minutes >= 0, "--budget-minutes must not be negative");
}

}  // namespace search
