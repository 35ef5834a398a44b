// The run's history in the SQLite store: after an optimize run (fake agents, a canned executor
// behind the real CachedEvaluator and StoreJournal), run.db holds every plan, each round's beam,
// every kernel with its parent and plan, every evaluation and every memory item.
#include "search/store_journal.h"

#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fakes.h"
#include "search/optimizer.h"

namespace search {
namespace {

namespace fs = std::filesystem;
using testing::FakeEvaluator;
using testing::FakeExecutor;
using testing::FakeFixer;
using testing::FakePlanner;
using testing::FakeSummarizer;
using testing::kernel;

// An eval::Executor answering from the fake kernel text, so CachedEvaluator and the journal run for real.
class CannedExecutor : public eval::Executor {
 public:
  std::vector<eval::Evaluation> run(const std::vector<eval::EvalJob>& jobs, const eval::ProgressFn&) override {
    std::vector<std::string> kernels;
    for (const auto& job : jobs) kernels.push_back(job.request.kernel_text);
    return fake.evaluate(TaskSpec{}, kernels);
  }
  void cancel() override {}
  FakeEvaluator fake;
};

class StoreJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("accelopt_store_journal_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Two tasks, B=2 N=2 K=1 T=2; plan 0 makes the kernel faster, plan 1 writes a broken kernel
  // that the fixer repairs into a slower one.
  RunState run(store::RunStore& store, int64_t run_id) {
    StoreJournal journal(store, run_id);
    CannedExecutor executor;
    CachedEvaluator evaluator(executor, &journal);
    auto fake_executor = std::make_shared<FakeExecutor>([](const agents::AgentContext& ctx, const agents::Candidate& c,
                                                           int plan, int) {
      double latency = std::stod(testing::field(c.kernel_text, "latency"));
      return plan == 0 ? kernel(latency * 0.5, ctx.tag) : kernel(latency * 2, ctx.tag, "compile_error");
    });
    SearchEnv env;
    env.params.beam = 2, env.params.plans = 2, env.params.kernels = 1, env.params.rounds = 2;
    env.params.topk = 8, env.params.expn = 16, env.params.fixer_attempts = 1, env.params.parallelism = 2;
    env.agents = {std::make_shared<FakePlanner>(), fake_executor, std::make_shared<FakeSummarizer>(),
                  std::make_shared<FakeFixer>()};
    env.evaluator = &evaluator;
    BudgetTracker budget({});
    env.budget = &budget;
    RunState state;
    state.memory = agents::Memory(16);
    std::vector<TaskSpec> tasks(2);
    for (size_t t = 0; t < tasks.size(); ++t) {
      tasks[t].info.name = t == 0 ? "silu" : "adamw";
      tasks[t].info.kernel_file_name = tasks[t].info.name + "_0.py";
      tasks[t].info.baseline_text = kernel(1.0, "baseline " + tasks[t].info.name);
    }
    return Optimizer(env, &journal).run(tasks, std::move(state));
  }

  fs::path dir_;
};

TEST_F(StoreJournalTest, TheStoreHoldsTheWholeHistoryOfARun) {
  std::string path = (dir_ / "run.db").string();
  RunState final_state;
  {
    store::RunStore store(path);
    final_state = run(store, store.create_run("r", "{}"));
  }
  store::RunStore store(path);  // reopened, as `accelopt show` or a resume would
  int64_t run_id = store.latest_run()->id;

  // Rounds are per task: rounds 1 and 2 of each, completed, with their figures.
  auto rounds = store.rounds(run_id);
  ASSERT_EQ(rounds.size(), 4u);
  for (const auto& round : rounds) {
    EXPECT_EQ(round.status, "completed");
    auto stats = nlohmann::json::parse(round.summary_json);
    EXPECT_EQ(stats["task"], round.task);
    EXPECT_EQ(stats["round"], round.round);
  }
  EXPECT_EQ(store.last_completed_round(run_id, "silu"), 2);
  EXPECT_EQ(store.last_completed_round(run_id, "adamw"), 2);

  std::map<int64_t, store::KernelRecord> kernels;
  for (const auto& k : store.kernels(run_id)) kernels[k.id] = k;
  for (const char* task : {"silu", "adamw"}) {
    // Round 0's beam is the baseline; each round's beam members are stored kernels, fastest first.
    auto start = store.beam(run_id, 0);
    size_t baselines = 0;
    for (const auto& member : start) baselines += member.task == task ? 1 : 0;
    EXPECT_EQ(baselines, 1u);
    std::vector<int64_t> previous_beam;
    for (const auto& m : start)
      if (m.task == task) previous_beam.push_back(m.kernel_id);
    for (int round = 1; round <= 2; ++round) {
      // Every plan rewrites a member of the beam the round started from (B=2 candidates at most, N=2 plans each).
      std::set<int64_t> plan_ids;
      for (const auto& plan : store.plans(run_id, round)) {
        if (plan.task != task) continue;
        plan_ids.insert(plan.id);
        EXPECT_NE(std::find(previous_beam.begin(), previous_beam.end(), plan.base_kernel_id), previous_beam.end());
        EXPECT_FALSE(plan.text.empty());
      }
      EXPECT_EQ(plan_ids.size(), 2 * previous_beam.size());
      // Each plan produced a draft linked to its plan and to the plan's base kernel; the repaired
      // version descends from the broken draft.
      int drafts = 0, repaired = 0;
      for (const auto& [id, k] : kernels) {
        if (k.task != task || k.round != round) continue;
        ASSERT_TRUE(plan_ids.count(k.plan_id)) << k.text;
        const auto& parent = kernels.at(k.parent_kernel_id);
        if (parent.round == round) {
          ++repaired;
          EXPECT_EQ(parent.plan_id, k.plan_id);
          EXPECT_NE(parent.text.find("compile_error"), std::string::npos);
        } else {
          ++drafts;
        }
        auto evaluation = store.find_evaluation(id);
        ASSERT_TRUE(evaluation) << k.text;
        EXPECT_FALSE(evaluation->evaluation_json.empty());
      }
      EXPECT_EQ(drafts, static_cast<int>(plan_ids.size()));
      EXPECT_EQ(repaired, static_cast<int>(plan_ids.size() / 2));
      std::vector<int64_t> beam;
      for (const auto& member : store.beam(run_id, round))
        if (member.task == task) beam.push_back(member.kernel_id);
      ASSERT_FALSE(beam.empty());
      for (size_t rank = 1; rank < beam.size(); ++rank)
        EXPECT_LE(store.find_evaluation(beam[rank - 1])->latency_ms, store.find_evaluation(beam[rank])->latency_ms);
      previous_beam = beam;
    }
  }

  // A profile is stored as a profile; the whole evaluation beside it.
  auto best = store.find_evaluation(store.beam(run_id, 2).front().kernel_id);
  EXPECT_TRUE(nlohmann::json::parse(best->profile_json).contains("latency"));
  EXPECT_TRUE(nlohmann::json::parse(best->evaluation_json).contains("status"));

  // Every memory item the run distilled is stored, with its round; the final memory is the newest of them.
  auto items = store.memory_items(run_id);
  ASSERT_FALSE(items.empty());
  ASSERT_GE(items.size(), final_state.memory.size());
  auto newest = nlohmann::json::parse(items.back().item_json);
  EXPECT_EQ(newest["lesson"], final_state.memory.items().front().lesson);
  EXPECT_EQ(items.back().round, 2);

  // One checkpoint at the process's start, one per round and one at each task's end; the last is
  // the final state.
  auto last = store.last_checkpoint(run_id);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->seq, 7);
  EXPECT_EQ(deserialize_state(last->state_json, 16).finished.size(), 2u);
}

TEST_F(StoreJournalTest, ARoundReplayedAfterACrashIsNotStoredTwice) {
  store::RunStore store((dir_ / "run.db").string());
  int64_t run_id = store.create_run("r", "{}");
  run(store, run_id);
  size_t plans = store.plans(run_id, 1).size();
  size_t items = store.memory_items(run_id).size();
  TaskSpec task;
  task.info.name = "silu";
  RoundHistory again{&task, 1, {{"baseline", kernel(1.0, "baseline silu"), 1.0, std::nullopt}},
                     {{{"plan 0", "again"}}}, {}, {}, {agents::ExperienceItem{}}, {}};
  StoreJournal(store, run_id).record_round(again);
  EXPECT_EQ(store.plans(run_id, 1).size(), plans);
  EXPECT_EQ(store.memory_items(run_id).size(), items);
}

}  // namespace
}  // namespace search
