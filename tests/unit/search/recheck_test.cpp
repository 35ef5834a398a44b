// The final five-seed re-check of a task's reported best (search/recheck.h): it runs under a
// cache key of its own, falls back to the best kernel that passes, reports nothing when none
// does, and survives a checkpoint round trip.
#include "search/recheck.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fakes.h"
#include "search/optimizer.h"
#include "search/run_output.h"

namespace search {
namespace {

using testing::FakeExecutor;
using testing::FakePlanner;
using testing::FakeSummarizer;
using testing::field;
using testing::kernel;

// Kernels whose tag contains "flaky" pass a check with one seed and fail one with more (as a
// kernel that is only right on seed 0's data would).
class SeedSensitiveEvaluator : public testing::FakeEvaluator {
 public:
  std::vector<eval::Evaluation> evaluate(const TaskSpec& task, const std::vector<std::string>& kernels) override {
    auto out = FakeEvaluator::evaluate(task, kernels);
    for (size_t i = 0; i < kernels.size(); ++i) {
      tags.push_back(task.key_tag);
      seed_counts.push_back(task.seeds.size());
      if (task.seeds.size() > 1 && field(kernels[i], "tag").find("flaky") != std::string::npos) {
        out[i].status = eval::Status::Incorrect;
        out[i].correct = false;
        out[i].diagnostics = {"kernel.py: error: output mismatch at seed 21: rel_l2 1.0e-01 >= tolerance 2.0e-05"};
      }
    }
    return out;
  }
  std::vector<std::string> tags;
  std::vector<size_t> seed_counts;
};

double latency_of(const agents::Candidate& c) { return std::stod(field(c.kernel_text, "latency")); }

// Plan 0 halves the latency and keeps the parent's tag (+fast). Plan 1 from the baseline is the
// "shortcut": 3x faster but flaky, and everything derived from it inherits the flaw.
std::string script(const agents::AgentContext&, const agents::Candidate& c, int plan, int) {
  std::string tag = field(c.kernel_text, "tag");
  if (plan == 0) return kernel(latency_of(c) / 2, tag + "+fast");
  if (c.id == "baseline") return kernel(latency_of(c) / 3, "flaky");
  return kernel(latency_of(c) * 2, tag + "+slow");
}

struct SearchRun {
  RunState state;
  SeedSensitiveEvaluator evaluator;
  MemoryJournal journal;
  Budgets budgets;

  // Runs the task from `from` (a fresh state when null: a resumed run otherwise).
  void go(const std::string& baseline_tag, std::vector<int> search_seeds, int rounds = 2, const RunState* from = nullptr) {
    TaskSpec t;
    t.info.name = "silu";
    t.info.kernel_file_name = "silu_0.py";
    t.info.baseline_text = kernel(1.0, baseline_tag);
    t.seeds = std::move(search_seeds);
    SearchEnv env;
    env.params.beam = 2, env.params.plans = 2, env.params.kernels = 1, env.params.rounds = rounds;
    env.params.fixer_attempts = 0, env.params.parallelism = 1;
    env.agents = {std::make_shared<FakePlanner>(), std::make_shared<FakeExecutor>(script),
                  std::make_shared<FakeSummarizer>(), nullptr};
    env.evaluator = &evaluator;
    BudgetTracker tracker(budgets);
    env.budget = &tracker;
    env.recheck_best = true;
    RunState start;
    start.memory = agents::Memory(4);
    state = Optimizer(env, &journal).run({t}, from ? *from : std::move(start));
  }
};

TEST(Recheck, SearchBestThatFailsTheFiveSeedsFallsBackToTheBestThatPasses) {
  SearchRun run;
  run.go("baseline", {0});
  ASSERT_EQ(run.state.finished.size(), 1u);
  const TaskResult& r = run.state.finished[0];
  // The search kept the flaky line (1/3 then 1/6 ms): it passes seed 0.
  EXPECT_NEAR(r.searched_best_latency_ms, 1.0 / 6, 1e-6);
  EXPECT_EQ(r.recheck, "fallback");
  EXPECT_NEAR(r.best_latency_ms, 0.25, 1e-6);  // baseline +fast +fast
  EXPECT_EQ(field(r.best_code, "tag"), "baseline+fast+fast");
  EXPECT_EQ(r.recheck_evaluations, 2);  // the flaky best, then the kernel that passed
  EXPECT_NE(r.recheck_note.find("seed 21"), std::string::npos) << r.recheck_note;
  // Search-time checks used one seed and no tag; the re-check five seeds and its own tag.
  ASSERT_EQ(run.evaluator.tags.size(), run.evaluator.seed_counts.size());
  size_t rechecks = 0;
  for (size_t i = 0; i < run.evaluator.tags.size(); ++i) {
    bool is_recheck = run.evaluator.tags[i] == "recheck";
    rechecks += is_recheck;
    EXPECT_EQ(run.evaluator.seed_counts[i], is_recheck ? 5u : 1u);
  }
  EXPECT_EQ(rechecks, 2u);
  // The search's evaluation count (its budget) does not include the re-check.
  EXPECT_EQ(r.evaluations, static_cast<int64_t>(run.evaluator.tags.size() - rechecks));
  // The summary table says so.
  std::string table = format_summary(run_summary(run.state, "t"));
  EXPECT_NE(table.find("fallback"), std::string::npos) << table;
  EXPECT_NE(table.find("failed the five-seed re-check"), std::string::npos) << table;
}

TEST(Recheck, FiveSeedSearchFindsNoFlakyKernelAndTheBestPasses) {
  SearchRun run;
  run.go("baseline", {0, 21, 42, 63, 84});
  const TaskResult& r = run.state.finished.at(0);
  EXPECT_EQ(r.recheck, "passed");
  EXPECT_EQ(r.recheck_evaluations, 1);
  EXPECT_NEAR(r.best_latency_ms, 0.25, 1e-6);
  EXPECT_TRUE(r.recheck_note.empty());
}

TEST(Recheck, NothingIsReportedWhenNoKernelPasses) {
  SearchRun run;
  run.go("flaky baseline", {0}, 1);  // every kernel descends from a flaky baseline
  const TaskResult& r = run.state.finished.at(0);
  EXPECT_EQ(r.recheck, "failed");
  EXPECT_TRUE(r.best_code.empty());
  EXPECT_EQ(r.best_latency_ms, 0);
  EXPECT_EQ(r.recheck_evaluations, 3);  // the beam (2) and the baseline
  std::string table = format_summary(run_summary(run.state, "t"));
  EXPECT_NE(table.find("FAILED"), std::string::npos) << table;
}

TEST(Recheck, BudgetStopRechecksTheBestAsItStands) {
  SearchRun run;
  run.budgets.max_evals = 3;  // the baseline and round 1's two kernels
  run.go("baseline", {0});
  ASSERT_TRUE(run.state.current.has_value());
  const TaskResult& r = run.state.current->result;
  EXPECT_EQ(run.state.stop, StopReason::BudgetEvals);
  EXPECT_EQ(r.recheck, "fallback");  // the flaky 1/3 fails; the 0.5 kernel passes
  EXPECT_NEAR(r.best_latency_ms, 0.5, 1e-6);
}

TEST(Recheck, HistoryAndOutcomeSurviveACheckpoint) {
  SearchRun run;
  run.budgets.max_evals = 3;
  run.go("baseline", {0});
  RunState back = deserialize_state(serialize(run.state), 4);
  ASSERT_TRUE(back.current.has_value());
  EXPECT_EQ(back.current->history.size(), 3u);  // baseline + round 1's two kernels
  EXPECT_FALSE(back.current->history[0].profile.has_value());
  EXPECT_EQ(back.current->result.recheck, "fallback");
  EXPECT_EQ(back.current->result.recheck_evaluations, 2);
  // Resumed with the same budget, it stops again at once and does not re-check again.
  size_t calls = run.evaluator.tags.size();
  run.go("baseline", {0}, 2, &back);
  EXPECT_EQ(run.evaluator.tags.size(), calls);
  EXPECT_EQ(run.state.current->result.recheck, "fallback");
  // With more budget it finishes, and the new best is re-checked at the task's end.
  run.budgets.max_evals = 0;
  run.go("baseline", {0}, 2, &back);
  ASSERT_EQ(run.state.finished.size(), 1u);
  EXPECT_EQ(run.state.finished[0].recheck, "fallback");
  EXPECT_NEAR(run.state.finished[0].best_latency_ms, 0.25, 1e-6);
  EXPECT_EQ(run.state.finished[0].recheck_rounds, 2);
}

TEST(Recheck, RecheckKeyNeverEqualsASearchKey) {
  TaskSpec t;
  t.info.reference_text = "ref";
  std::string k = kernel(1.0);
  EXPECT_NE(evaluation_key(t, k), evaluation_key(recheck_spec(t), k));  // same five seeds, other key
  EXPECT_EQ(recheck_spec(t).seeds, t.recheck_seeds);
}

TEST(Recheck, CandidatesAreTriedFastestFirstAndDuplicatesOnce) {
  SeedSensitiveEvaluator evaluator;
  TaskSpec t;
  std::vector<agents::Candidate> c = {{"a", kernel(0.5, "ok"), 0.5, std::nullopt},
                                      {"b", kernel(0.2, "flaky"), 0.2, std::nullopt},
                                      {"b2", kernel(0.2, "flaky"), 0.2, std::nullopt},
                                      {"c", kernel(0.3, "flaky too"), 0.3, std::nullopt}};
  RecheckOutcome out = recheck_best(evaluator, t, c);
  EXPECT_EQ(out.status, "fallback");
  ASSERT_TRUE(out.reported.has_value());
  EXPECT_EQ(out.reported->id, "a");
  EXPECT_EQ(out.evaluations, 3);  // b, c, a
}

}  // namespace
}  // namespace search
