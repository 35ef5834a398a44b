// One round of the beam search (search/round.h) on fake agents and a fake evaluator: what a
// round evaluates, what it gives the fixer, and what it selects.
#include "search/round.h"

#include <gtest/gtest.h>

#include "fakes.h"

namespace search {
namespace {

using testing::FakeEvaluator;
using testing::FakeExecutor;
using testing::FakeFixer;
using testing::FakePlanner;
using testing::FakeSummarizer;
using testing::field;
using testing::kernel;

struct RoundHarness {
  explicit RoundHarness(FakeExecutor::Script script) : executor(std::make_shared<FakeExecutor>(std::move(script))) {
    params.beam = 2, params.plans = 2, params.kernels = 2, params.rounds = 1, params.topk = 8, params.expn = 16;
    params.fixer_attempts = 1;
    params.parallelism = 2;
    task.info.name = "silu";
    task.info.kernel_file_name = "silu_0.py";
    task.info.baseline_text = kernel(1.0, "baseline");
  }
  RoundOutcome run() {
    BudgetTracker tracker(budgets);
    SearchEnv env;
    env.params = params;
    env.agents = {planner, executor, summarizer, fixer};
    env.evaluator = &evaluator;
    env.budget = &tracker;
    agents::Memory memory(params.expn);
    std::vector<agents::Candidate> beam = {{"baseline", task.info.baseline_text, 1.0, std::nullopt}};
    return run_round(env, task, 1, beam, memory, evaluations);
  }
  SearchParams params;
  Budgets budgets;
  TaskSpec task;
  int64_t evaluations = 0;
  std::shared_ptr<FakePlanner> planner = std::make_shared<FakePlanner>();
  std::shared_ptr<FakeExecutor> executor;
  std::shared_ptr<FakeSummarizer> summarizer = std::make_shared<FakeSummarizer>();
  std::shared_ptr<FakeFixer> fixer = std::make_shared<FakeFixer>();
  FakeEvaluator evaluator;
};

TEST(Round, EvaluatesEveryKernelAndSelectsTheFastest) {
  RoundHarness h([](const agents::AgentContext&, const agents::Candidate&, int plan, int sample) {
    return kernel(0.9 - 0.1 * plan - 0.01 * sample, "p" + std::to_string(plan));
  });
  RoundOutcome out = h.run();
  ASSERT_EQ(out.results.size(), 4u);  // 1 candidate x N=2 plans x K=2 kernels
  for (const auto& r : out.results) EXPECT_EQ(r.status, "ok") << r.id;
  EXPECT_EQ(h.evaluations, 4);
  ASSERT_EQ(out.beam.size(), 2u);      // B = 2
  EXPECT_NEAR(out.beam[0].latency_ms, 0.79, 1e-9);
  EXPECT_LE(out.beam[0].latency_ms, out.beam[1].latency_ms);
  EXPECT_EQ(out.stop, StopReason::None);
}

// The fixer sees what the kernel can act on (a tile that cannot fit on chip included), never a
// failure that was not the kernel's (internal_error).
TEST(Round, FixerGetsResourceErrorsButNotInternalErrors) {
  RoundHarness h([](const agents::AgentContext&, const agents::Candidate&, int plan, int) {
    return kernel(0.5, "", plan == 0 ? "resource_error" : "internal_error");
  });
  RoundOutcome out = h.run();
  EXPECT_EQ(h.fixer->calls, 2);  // the two resource_error kernels
  int fixed = 0, internal = 0;
  for (const auto& r : out.results) {
    if (r.status == "ok" && r.fix_attempts == 1) ++fixed;
    if (r.status == "internal_error") ++internal;
  }
  EXPECT_EQ(fixed, 2);
  EXPECT_EQ(internal, 2);
}

TEST(Round, EvaluationBudgetLeavesTheRestNotEvaluated) {
  RoundHarness h([](const agents::AgentContext&, const agents::Candidate&, int plan, int sample) {
    return kernel(0.9 - 0.1 * plan - 0.01 * sample);
  });
  h.budgets.max_evals = 3;
  RoundOutcome out = h.run();
  int evaluated = 0, skipped = 0;
  for (const auto& r : out.results) {
    if (r.status == "not_evaluated") ++skipped;
    else ++evaluated;
  }
  EXPECT_EQ(evaluated, 3);
  EXPECT_EQ(skipped, 1);
  EXPECT_NE(out.stop, StopReason::None);
}

}  // namespace
}  // namespace search
