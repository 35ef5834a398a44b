#include "search/budget.h"

#include <gtest/gtest.h>

namespace search {
namespace {

TEST(BudgetTracker, UnlimitedByDefault) {
  BudgetTracker tracker({}, 0, [] { return 0.0; });
  agents::Usage usage;
  usage.cost_usd = 1e9, usage.input_tokens = 1'000'000'000;
  EXPECT_FALSE(tracker.exhausted(usage, 1'000'000));
  EXPECT_EQ(tracker.evaluations_left(1'000'000), INT64_MAX);
}

TEST(BudgetTracker, EachBudgetStopsAtItsLimit) {
  double now = 0;
  Budgets b;
  b.max_usd = 1.0, b.max_tokens = 100, b.max_evals = 10, b.max_minutes = 1;
  BudgetTracker tracker(b, 0, [&] { return now; });
  agents::Usage usage;
  EXPECT_FALSE(tracker.exhausted(usage, 9));
  EXPECT_EQ(tracker.exhausted(usage, 10), StopReason::BudgetEvals);
  EXPECT_EQ(tracker.evaluations_left(7), 3);
  EXPECT_EQ(tracker.evaluations_left(12), 0);
  usage.input_tokens = 60, usage.output_tokens = 40;
  EXPECT_EQ(tracker.exhausted(usage, 0), StopReason::BudgetTokens);
  usage.cost_usd = 1.0;
  EXPECT_EQ(tracker.exhausted(usage, 0), StopReason::BudgetUsd);
  now = 60;
  EXPECT_EQ(tracker.exhausted({}, 0), StopReason::BudgetTime);
}

TEST(BudgetTracker, ResumedRunKeepsEarlierWallTime) {
  double now = 100;
  Budgets b;
  b.max_minutes = 2;
  BudgetTracker tracker(b, 90, [&] { return now; });
  EXPECT_FALSE(tracker.exhausted({}, 0));
  now = 130;
  EXPECT_EQ(tracker.exhausted({}, 0), StopReason::BudgetTime);
  EXPECT_DOUBLE_EQ(tracker.elapsed_s(), 120);
}

TEST(StopReason, NamesRoundTrip) {
  for (auto r : {StopReason::None, StopReason::Rounds, StopReason::BudgetUsd, StopReason::BudgetTokens,
                 StopReason::BudgetEvals, StopReason::BudgetTime, StopReason::AllCallsFailed, StopReason::Cancelled})
    EXPECT_EQ(parse_stop_reason(to_string(r)), r);
  EXPECT_TRUE(is_budget_stop(StopReason::BudgetUsd));
  EXPECT_FALSE(is_budget_stop(StopReason::Rounds));
}

TEST(Params, ValidationNamesTheOption) {
  SearchParams p;
  EXPECT_NO_THROW(validate(p));
  p.beam = 0;
  try {
    validate(p);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--B"), std::string::npos);
  }
  SearchParams q;
  q.t_pos = 0.5;
  EXPECT_THROW(validate(q), std::invalid_argument);
  Budgets b;
  b.max_usd = -1;
  EXPECT_THROW(validate(b), std::invalid_argument);
}

}  // namespace
}  // namespace search
