#include "search/optimizer.h"

#include <gtest/gtest.h>

#include <set>

#include "eval/interrupt.h"
#include "fakes.h"
#include "search/run_journal.h"

namespace search {
namespace {

using testing::FakeEvaluator;
using testing::FakeExecutor;
using testing::FakeFixer;
using testing::FakePlanner;
using testing::FakeSummarizer;
using testing::field;
using testing::kernel;

TaskSpec task(const std::string& name = "silu", double baseline_latency = 1.0) {
  TaskSpec t;
  t.info.name = name;
  t.info.kernel_file_name = name + "_0.py";
  t.info.baseline_text = kernel(baseline_latency, "baseline");
  t.info.peak_latency_ms = 0.25;
  return t;
}

struct Harness {
  explicit Harness(FakeExecutor::Script script) : executor(std::make_shared<FakeExecutor>(std::move(script))) {
    params.beam = 2, params.plans = 2, params.kernels = 2, params.rounds = 2, params.topk = 8, params.expn = 16;
    params.fixer_attempts = 0;
    params.parallelism = 2;
  }
  RunState run(const std::vector<TaskSpec>& tasks, RunState state = {}) {
    BudgetTracker tracker(budgets);
    SearchEnv env;
    env.params = params;
    env.agents = {planner, executor, summarizer, fixer};
    env.evaluator = &evaluator;
    env.budget = &tracker;
    if (state.memory.capacity() != static_cast<size_t>(params.expn) && state.memory.empty())
      state.memory = agents::Memory(params.expn);
    return Optimizer(env, &journal).run(tasks, std::move(state));
  }
  SearchParams params;
  Budgets budgets;
  std::shared_ptr<FakePlanner> planner = std::make_shared<FakePlanner>();
  std::shared_ptr<FakeExecutor> executor;
  std::shared_ptr<FakeSummarizer> summarizer = std::make_shared<FakeSummarizer>();
  std::shared_ptr<FakeFixer> fixer = std::make_shared<FakeFixer>();
  FakeEvaluator evaluator;
  MemoryJournal journal;
};

double latency_of(const agents::Candidate& c) { return std::stod(field(c.kernel_text, "latency")); }

TEST(Optimizer, FasterKernelWinsTheBeam) {
  // Plan 0 halves the latency; plan 1 makes it slower; sample 1 is always garbage.
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int plan, int sample) -> std::string {
    if (sample == 1) return "";
    double base = latency_of(c);
    return plan == 0 ? kernel(base / 2, c.id + "+fast") : kernel(base * 2, c.id + "+slow");
  });
  RunState state = h.run({task()});
  ASSERT_EQ(state.finished.size(), 1u);
  const TaskResult& r = state.finished[0];
  EXPECT_EQ(r.rounds_done, 2);
  EXPECT_EQ(r.stop, StopReason::Rounds);
  EXPECT_DOUBLE_EQ(r.baseline_latency_ms, 1.0);
  EXPECT_DOUBLE_EQ(r.best_latency_ms, 0.25);  // two halvings
  EXPECT_DOUBLE_EQ(r.speedup(), 4.0);
  EXPECT_NEAR(*r.best_peak_percent(), 100.0, 1e-9);
  EXPECT_NEAR(*r.baseline_peak_percent(), 25.0, 1e-9);
  ASSERT_EQ(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[0].plans, 2);             // one candidate x N
  EXPECT_EQ(r.rounds[0].kernels_written, 2);   // 2 plans x 1 good sample
  EXPECT_EQ(r.rounds[0].kernels_unparsed, 2);
  EXPECT_EQ(r.rounds[1].candidates, 2);
  EXPECT_EQ(r.rounds[1].plans, 4);
  EXPECT_EQ(field(r.best_code, "tag"), "r1.c0.p0.k0+fast");
}

TEST(Optimizer, PositiveAndNegativePairsReachSummarizerAndMemoryStaysBounded) {
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int plan, int sample) -> std::string {
    double base = latency_of(c);
    return plan == 0 ? kernel(base / (2 + sample), c.id) : kernel(base * 3, c.id);
  });
  h.params.rounds = 3;
  h.params.expn = 3;
  h.params.topk = 2;
  RunState state = h.run({task()});
  bool saw_positive = false, saw_negative = false;
  for (const auto& pair : h.summarizer->pairs) {
    (pair.positive ? saw_positive : saw_negative) = true;
    EXPECT_GE(pair.speedup(), 1.04);
    EXPECT_GT(pair.slow_latency_ms, pair.fast_latency_ms);
  }
  EXPECT_TRUE(saw_positive);
  EXPECT_TRUE(saw_negative);
  // topk per round: round 1 has 2 pairs, rounds 2 and 3 have more but only 2 are summarized.
  EXPECT_EQ(h.summarizer->pairs.size(), 6u);
  // The memory holds at most ExpN items, newest (latest round) first.
  ASSERT_EQ(state.memory.size(), 3u);
  EXPECT_EQ(state.memory.items()[0].round, 3);
  EXPECT_EQ(state.memory.items()[1].round, 3);
  EXPECT_EQ(state.memory.items()[2].round, 2);
  // Within a round, the largest speedup is the newest item.
  EXPECT_GE(state.memory.items()[0].speedup, state.memory.items()[1].speedup);
}

TEST(Optimizer, FixerRepairsFailedKernels) {
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int plan, int sample) -> std::string {
    return kernel(latency_of(c) / 2, "", "compile_error");
  });
  h.params.rounds = 1;
  h.params.fixer_attempts = 2;
  RunState state = h.run({task()});
  const auto& round = state.finished.at(0).rounds.at(0);
  EXPECT_EQ(h.fixer->calls, 4);  // every kernel failed once and was repaired on the first attempt
  EXPECT_EQ(round.fixed, 4);
  EXPECT_EQ(round.correct, 4);
  EXPECT_EQ(round.eval_failed, 0);
  EXPECT_DOUBLE_EQ(state.finished[0].best_latency_ms, 0.5);
}

TEST(Optimizer, NoFixerAttemptsMeansFailuresStay) {
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int, int) -> std::string {
    return kernel(0.1, "", "incorrect");
  });
  h.params.rounds = 1;
  RunState state = h.run({task()});
  EXPECT_EQ(h.fixer->calls, 0);
  EXPECT_EQ(state.finished[0].rounds[0].eval_failed, 4);
  EXPECT_DOUBLE_EQ(state.finished[0].best_latency_ms, 1.0);  // the baseline stays best
}

TEST(Optimizer, EvaluationBudgetStopsTheRunCleanly) {
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int plan, int sample) -> std::string {
    return kernel(latency_of(c) * 0.9 - 0.01 * plan - 0.001 * sample, c.id);
  });
  h.params.rounds = 5;
  h.budgets.max_evals = 7;  // the baseline + 4 in round 1 + 2 of round 2's 8
  RunState state = h.run({task(), task("adamw")});
  EXPECT_EQ(state.stop, StopReason::BudgetEvals);
  EXPECT_FALSE(state.stop_message.empty());
  EXPECT_EQ(h.evaluator.calls, 7);
  ASSERT_TRUE(state.current.has_value());
  EXPECT_EQ(state.current->result.rounds_done, 2);
  EXPECT_EQ(state.current->result.stop, StopReason::BudgetEvals);
  EXPECT_TRUE(state.finished.empty());  // the second task never started
}

TEST(Optimizer, BrokenBaselineIsReportedAndOtherTasksRun) {
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int, int) -> std::string {
    return kernel(latency_of(c) / 2);
  });
  h.params.rounds = 1;
  TaskSpec broken = task("broken");
  broken.info.baseline_text = kernel(1.0, "", "runtime_error");
  RunState state = h.run({broken, task("silu")});
  ASSERT_EQ(state.finished.size(), 2u);
  EXPECT_NE(state.finished[0].error.find("not correct"), std::string::npos);
  EXPECT_TRUE(state.finished[1].error.empty());
  EXPECT_DOUBLE_EQ(state.finished[1].best_latency_ms, 0.5);
}

TEST(Optimizer, MemoryCarriesOverToTheNextTask) {
  Harness h([](const agents::AgentContext&, const agents::Candidate& c, int, int) -> std::string {
    return kernel(latency_of(c) / 2, c.id);
  });
  h.params.rounds = 1;
  RunState state = h.run({task("a"), task("b")});
  ASSERT_EQ(state.memory.size(), 4u);  // two positive branches per task
  EXPECT_EQ(state.memory.items()[0].task, "b");
  EXPECT_EQ(state.memory.items()[1].task, "b");
  EXPECT_EQ(state.memory.items()[2].task, "a");
  EXPECT_EQ(state.memory.items()[3].task, "a");
}

TEST(Optimizer, ResumeAfterCrashContinuesFromTheLastCheckpoint) {
  auto script = [](const agents::AgentContext& ctx, const agents::Candidate& c, int plan, int sample) -> std::string {
    return kernel(latency_of(c) * (plan == 0 ? 0.5 : 0.8), ctx.tag + "/" + std::to_string(sample));
  };
  // Uninterrupted reference run.
  Harness reference(script);
  reference.params.rounds = 3;
  RunState expected = reference.run({task()});

  // The evaluator "crashes" in round 2 (baseline 1 + round 1's 4 + 2 more).
  Harness crashing(script);
  crashing.params.rounds = 3;
  crashing.evaluator.fail_after = 7;
  EXPECT_THROW(crashing.run({task()}), std::runtime_error);
  std::string checkpoint = crashing.journal.last_checkpoint();
  ASSERT_FALSE(checkpoint.empty());
  RunState saved = deserialize_state(checkpoint, 16);
  ASSERT_TRUE(saved.current);
  EXPECT_EQ(saved.current->result.rounds_done, 1);

  Harness resumed(script);
  resumed.params.rounds = 3;
  RunState state = resumed.run({task()}, saved);
  EXPECT_EQ(resumed.planner->calls, 2 + 2);  // rounds 2 and 3 only (beam of 2)
  EXPECT_EQ(resumed.evaluator.calls, 8 + 8);  // no baseline, no round 1
  ASSERT_EQ(state.finished.size(), 1u);
  EXPECT_EQ(state.finished[0].best_code, expected.finished[0].best_code);
  EXPECT_DOUBLE_EQ(state.finished[0].best_latency_ms, expected.finished[0].best_latency_ms);
  EXPECT_EQ(state.memory.size(), expected.memory.size());
  EXPECT_EQ(state.finished[0].rounds.size(), 3u);
}

// Ctrl-C at any evaluation (a baseline's, any of a round's, in the first or the second task): the
// stopped run keeps no cut round and no cancelled result, and resuming from its last checkpoint
// ends as the uninterrupted run, the two processes together evaluating exactly its kernels.
TEST(Optimizer, CtrlCAtAnyEvaluationThenResumeEqualsTheUninterruptedRun) {
  auto script = [](const agents::AgentContext& ctx, const agents::Candidate& c, int plan, int sample) -> std::string {
    return kernel(latency_of(c) * (plan == 0 ? 0.5 : 0.8), ctx.tag + "/" + std::to_string(sample));
  };
  const std::vector<TaskSpec> tasks = {task(), task("adamw")};
  Harness reference(script);
  reference.params.rounds = 3;
  RunState expected = reference.run(tasks);
  ASSERT_EQ(expected.finished.size(), 2u);
  auto memory_of = [](const RunState& s) {
    std::vector<std::string> items;
    for (const auto& item : s.memory.items()) items.push_back(agents::to_json(item).dump());
    return items;
  };
  for (int at = 0; at < reference.evaluator.calls; ++at) {
    SCOPED_TRACE("interrupted at evaluation " + std::to_string(at));
    Harness cut(script);
    cut.params.rounds = 3;
    cut.evaluator.interrupt_at = at;
    RunState stopped;
    {
      eval::InterruptGuard guard;
      stopped = cut.run(tasks);
    }
    eval::clear_interrupt();
    EXPECT_EQ(stopped.stop, StopReason::Cancelled);
    RunState saved = deserialize_state(cut.journal.last_checkpoint(), 16);

    Harness resumed(script);
    resumed.params.rounds = 3;
    RunState state = resumed.run(tasks, saved);
    ASSERT_EQ(state.finished.size(), 2u);
    for (size_t t = 0; t < 2; ++t) {
      EXPECT_EQ(state.finished[t].best_code, expected.finished[t].best_code);
      EXPECT_DOUBLE_EQ(state.finished[t].best_latency_ms, expected.finished[t].best_latency_ms);
      EXPECT_EQ(state.finished[t].rounds_done, 3);
      EXPECT_EQ(state.finished[t].evaluations, expected.finished[t].evaluations);
    }
    EXPECT_EQ(state.evaluations, expected.evaluations);
    EXPECT_EQ(memory_of(state), memory_of(expected));
    std::set<std::string> both = cut.evaluator.evaluated;
    both.insert(resumed.evaluator.evaluated.begin(), resumed.evaluator.evaluated.end());
    EXPECT_EQ(both, reference.evaluator.evaluated);
  }
}

TEST(RunState, SerializationRoundTrip) {
  RunState state;
  state.tasks = {"a", "b"};
  TaskResult done;
  done.task = "a";
  done.best_latency_ms = 0.5;
  done.rounds.push_back({});
  done.rounds[0].evaluated = 12;
  done.stop = StopReason::Rounds;
  state.finished.push_back(done);
  TaskProgress progress;
  progress.result.task = "b";
  progress.result.rounds_done = 2;
  trn::Profile profile;
  profile.latency = 0.75;
  profile.hbm_read_bytes = 1234;
  progress.beam.push_back({"r2.c0.p1.k0", "code", 0.75, profile});
  state.current = progress;
  state.usage.input_tokens = 42;
  state.usage.cost_usd = 0.125;
  state.evaluations = 17;
  state.stop = StopReason::BudgetUsd;
  agents::ExperienceItem item;
  item.lesson = "l";
  item.key_change = "k";
  state.memory = agents::Memory(4);
  state.memory.add(item);

  RunState back = deserialize_state(serialize(state), 4);
  EXPECT_EQ(back.tasks, state.tasks);
  ASSERT_EQ(back.finished.size(), 1u);
  EXPECT_EQ(back.finished[0].rounds.at(0).evaluated, 12);
  EXPECT_EQ(back.finished[0].stop, StopReason::Rounds);
  ASSERT_TRUE(back.current);
  EXPECT_EQ(back.current->result.rounds_done, 2);
  ASSERT_EQ(back.current->beam.size(), 1u);
  EXPECT_EQ(back.current->beam[0].profile->hbm_read_bytes, 1234u);
  EXPECT_EQ(back.usage.input_tokens, 42);
  EXPECT_DOUBLE_EQ(back.usage.cost_usd, 0.125);
  EXPECT_EQ(back.evaluations, 17);
  EXPECT_EQ(back.stop, StopReason::BudgetUsd);
  EXPECT_EQ(back.memory.size(), 1u);
  EXPECT_THROW(deserialize_state("{}", 4), std::runtime_error);
  EXPECT_THROW(deserialize_state("not json", 4), std::runtime_error);
}

}  // namespace
}  // namespace search
