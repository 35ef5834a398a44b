// Memory that learns from every outcome (experience.h memory_site_weight, known_no_gain):
// rewrites that changed nothing are evidence too. The same rewrite of the same statement that did
// nothing earlier on a task is not planned again on the task's kernels of about the same speed; a
// move that rarely helped on similar kernels (any task) is drawn less; moves that helped keep
// their boost, the same statement's more than another's.
#include <gtest/gtest.h>

#include "agents/builtin/experience.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/planner.h"
#include "builtin_test_support.h"

namespace agents::builtin {
namespace {

ExperienceItem outcome(const std::string& task, const Site& site, const Symptoms& symptoms, double ratio) {
  RewritePair pair;
  pair.task = task;
  pair.round = 1;
  pair.positive = ratio >= 1;  // as the search writes it with --t-pos 1 --t-neg 1
  pair.plan = make_plan(site, symptoms, "why");
  pair.slow_code = "a = 1\nb = 2\n";
  pair.fast_code = "a = 1\nb = 3\n";
  pair.slow_latency_ms = ratio >= 1 ? ratio : 1.0;
  pair.fast_latency_ms = ratio >= 1 ? 1.0 : ratio;
  return *summarize_pair(pair);
}

Site engine_move(const std::string& statement, const std::string& line) {
  return {"engine_move", {{"line", line}, {"engine", "scalar"}}, "run `" + statement + "` on the scalar engine"};
}

TEST(BuiltinMemoryOutcomes, ANeutralItemRecordsItsTaskAndSite) {
  Site site = engine_move("y = nl.exp(x)", "12");
  ExperienceItem item = outcome("silu", site, {"dve_busy"}, 1.01);
  EXPECT_NE(item.lesson.find("Little effect"), std::string::npos);
  auto view = read_experience(experience_from_json(to_json(item)));
  ASSERT_TRUE(view);
  EXPECT_EQ(view->task, "silu");
  EXPECT_EQ(view->anchor, site_anchor(site));
  EXPECT_LT(view->speedup, kHelped);
  // The anchor ignores the line (it moves on descendant kernels), not the statement or the move.
  EXPECT_EQ(site_anchor(engine_move("y = nl.exp(x)", "40")), site_anchor(site));
  EXPECT_NE(site_anchor(engine_move("z = nl.exp(y)", "12")), site_anchor(site));
}

TEST(BuiltinMemoryOutcomes, ARewriteThatDidNothingOnTheTaskIsAKnownOutcomeOnItsLaterKernels) {
  Memory memory;
  memory.add(outcome("silu", engine_move("y = nl.exp(x)", "12"), {"dve_busy"}, 1.01));  // on a 1.01 ms kernel
  auto experience = read_memory(memory);
  ASSERT_DOUBLE_EQ(experience[0].base_ms, 1.01);
  // The same statement on a descendant kernel (the line moved) of about the same speed.
  EXPECT_TRUE(known_no_gain(experience, engine_move("y = nl.exp(x)", "14"), "silu", 0.98));
  // Not once the kernel got much faster (the bottleneck may have moved), not for another
  // statement, not on another task.
  EXPECT_FALSE(known_no_gain(experience, engine_move("y = nl.exp(x)", "14"), "silu", 0.7));
  EXPECT_FALSE(known_no_gain(experience, engine_move("z = nl.exp(y)", "14"), "silu", 0.98));
  EXPECT_FALSE(known_no_gain(experience, engine_move("y = nl.exp(x)", "14"), "adamw", 0.98));
  // A slower outcome is known too; one that helped once on the task is not a dead end.
  Memory slower;
  slower.add(outcome("silu", engine_move("y = nl.exp(x)", "12"), {"dve_busy"}, 0.8));
  EXPECT_TRUE(known_no_gain(read_memory(slower), engine_move("y = nl.exp(x)", "14"), "silu", 0.8));
  slower.add(outcome("silu", engine_move("y = nl.exp(x)", "12"), {"dve_busy"}, 1.3));
  EXPECT_FALSE(known_no_gain(read_memory(slower), engine_move("y = nl.exp(x)", "14"), "silu", 0.8));
}

TEST(BuiltinMemoryOutcomes, AGainOnOneStatementPromotesTheSameStatementMoreThanOthers) {
  Memory memory;
  memory.add(outcome("rope", engine_move("high = nisa.tensor_tensor(a, b, nl.add)", "12"), {"dve_busy"}, 1.2));
  auto experience = read_memory(memory);
  double same = memory_site_weight(experience, {"dve_busy"}, engine_move("high = nisa.tensor_tensor(a, b, nl.add)", "30"));
  double other = memory_site_weight(experience, {"dve_busy"}, engine_move("low = nisa.tensor_tensor(a, b, nl.add)", "31"));
  EXPECT_GT(other, 1.0);
  EXPECT_GT(same, other);
}

TEST(BuiltinMemoryOutcomes, AMoveThatRarelyHelpedOnSimilarKernelsIsDrawnLess) {
  // Moves of six different statements on six other tasks: none, one or three of them helped.
  auto memory_with = [](int hits, int tried) {
    Memory m(32);
    for (int i = 0; i < tried; ++i)
      m.add(outcome("task" + std::to_string(i), engine_move("t" + std::to_string(i) + " = nl.exp(x)", "9"),
                    {"dve_busy"}, i < hits ? 1.2 : 1.0));
    return read_memory(m);
  };
  Site fresh = engine_move("u = nl.exp(v)", "5");
  double none = memory_site_weight(memory_with(0, 6), {"dve_busy"}, fresh);
  double one_alone = memory_site_weight(memory_with(1, 1), {"dve_busy"}, fresh);
  double one_of_six = memory_site_weight(memory_with(1, 6), {"dve_busy"}, fresh);
  double three_of_six = memory_site_weight(memory_with(3, 6), {"dve_busy"}, fresh);
  EXPECT_LT(none, 0.5);             // tried six times on kernels like this one, never helped
  EXPECT_LT(one_of_six, one_alone);  // the five misses discount the hit
  EXPECT_GT(three_of_six, 1.0);      // helps more often than the prior expects: not lowered
  // On kernels with other symptoms the same evidence counts less.
  double far = memory_site_weight(memory_with(0, 6), {"spill", "dma_bound"}, fresh);
  EXPECT_GT(far, none);
}

TEST(BuiltinMemoryOutcomes, ThePlannerDoesNotRepeatARewriteThatDidNothing) {
  // Plan one rewrite of the silu kernel per seed, without memory and with a memory holding a
  // neutral outcome of one of its sites on this task (on this kernel): that site is never drawn.
  std::string kernel = builtin_test::read(builtin_test::golden_dir() + "/silu.py");
  trn::Profile profile;
  profile.latency = 1.0;
  profile.engine_busy_ms = {{"pe", 0.0}, {"act", 0.3}, {"dve", 0.9}, {"pool", 0.0}, {"dma", 0.5}};
  profile.instructions = 5000;
  Candidate c{"baseline", kernel, 1.0, profile};
  TaskInfo task{"silu"};
  auto sites = find_sites(kernel);
  ASSERT_GE(sites.size(), 3u);
  // The site the memory-less planner draws most often as its first plan.
  std::map<std::string, int> without;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    auto plans = BuiltinPlanner(seed, false).propose({task, 1, "silu/r1/c0"}, c, Memory{}, 1);
    ASSERT_EQ(plans.size(), 1u);
    without[parse_plan(plans[0].text)->site.key()]++;
  }
  auto top = std::max_element(without.begin(), without.end(), [](auto& a, auto& b) { return a.second < b.second; });
  Site neutral = *parse_site_key(top->first);
  for (const auto& s : sites)
    if (s.key() == top->first) neutral = s;
  Memory memory(16);
  memory.add(outcome("silu", neutral, diagnose(profile), 1.0));
  int with = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    auto plans = BuiltinPlanner(seed, true).propose({task, 1, "silu/r1/c0"}, c, memory, 1);
    ASSERT_EQ(plans.size(), 1u);
    with += parse_plan(plans[0].text)->site.key() == top->first;
  }
  EXPECT_EQ(with, 0) << top->first << " drawn " << top->second << " times without memory";
  // Without memory the same planner draws it as before: memory is the only difference.
  EXPECT_GT(top->second, 0);
}

}  // namespace
}  // namespace agents::builtin
