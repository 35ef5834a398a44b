// Learning from rejected rewrites: the built-in fixer records the failed plan's site, the planner
// down-weights the same rewrite on later kernels, and a free size that cannot tile the task's
// dimensions is never proposed.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include "agents/builtin/builtin_agents.h"
#include "agents/builtin/failure_log.h"
#include "agents/builtin/legality.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/planner.h"
#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

Site free_size_site(const std::string& line, const std::string& from, const std::string& value) {
  return Site{"free_size", {{"line", line}, {"var", "block"}, {"from", from}, {"value", value}}, ""};
}

TEST(BuiltinFailureLog, PenalizesTheSameRewriteMostOnTheSameTask) {
  FailureLog log;
  Site grow = free_size_site("14", "1024", "2048");
  EXPECT_DOUBLE_EQ(log.penalty("silu", grow), 1.0);
  log.record("silu", grow);
  // A descendant kernel: the same rewrite anchored on another line is the same rewrite.
  Site moved = free_size_site("20", "1024", "2048");
  EXPECT_EQ(log.failures("silu", moved), 1);
  EXPECT_LT(log.penalty("silu", moved), 0.1);
  double elsewhere = log.penalty("mamba", moved);
  EXPECT_GT(elsewhere, log.penalty("silu", moved));
  EXPECT_LT(elsewhere, 1.0);
  double sibling = log.penalty("silu", free_size_site("14", "1024", "512"));
  EXPECT_LT(sibling, 1.0);
  EXPECT_GT(sibling, elsewhere);
  EXPECT_DOUBLE_EQ(log.penalty("silu", Site{"fuse_silu", {{"line", "3"}}, ""}), 1.0);
}

TEST(BuiltinLegality, TaskDimensionsComeFromTheFileNameAndReferenceConstants) {
  TaskInfo task{"silu"};
  task.kernel_file_name = "silu_M4096_N7168_0.py";
  task.reference_text = "import numpy as np\nROWS = 96\ndef get_inputs():\n    n = 5\n";
  EXPECT_EQ(task_dimensions(task), (std::set<int64_t>{96, 4096, 7168}));
}

TEST(BuiltinLegality, RejectsAFreeSizeThatCannotTileADimension) {
  std::set<int64_t> dims{4096, 7168};
  EXPECT_FALSE(plausible(free_size_site("1", "1024", "2048"), dims, "kernel"));
  EXPECT_TRUE(plausible(free_size_site("1", "1024", "512"), dims, "kernel"));
  EXPECT_TRUE(plausible(free_size_site("1", "1024", "2048"), {4096, 8192}, "kernel"));
  // A kernel that masks the remainder may take any size; other transformations are not judged.
  EXPECT_TRUE(plausible(free_size_site("1", "1024", "2048"), dims, "nl.load(x, mask=(i < n))"));
  EXPECT_TRUE(plausible(Site{"fuse_silu", {{"line", "1"}}, ""}, dims, "kernel"));
}

TEST(BuiltinLegality, RejectsShrinkingABlockBelowItsInnerTile) {
  std::set<int64_t> dims{4096, 7168};
  std::string inner_1024 = "for h in nl.affine_range(block // 1024):\n";
  EXPECT_FALSE(plausible(free_size_site("1", "1024", "512"), dims, inner_1024));
  EXPECT_TRUE(plausible(free_size_site("1", "1024", "512"), dims, "for h in nl.affine_range(block // 512):\n"));
  EXPECT_TRUE(plausible(free_size_site("1", "2048", "1024"), dims, inner_1024));
  EXPECT_TRUE(plausible(free_size_site("1", "1024", "512"), dims, "for h in nl.affine_range(other_block // 1024):\n"));
}

Candidate bundled_silu() {
  Candidate c;
  c.id = "baseline";
  c.kernel_text = builtin_test::read(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench/kernels/silu_M4096_N7168_0.py");
  return c;
}

std::set<std::string> all_planned(const TaskInfo& task, const Candidate& c) {
  BuiltinPlanner planner(1, true);
  Memory memory;
  std::set<std::string> keys;
  for (const auto& plan : planner.propose(AgentContext{task, 0, "t"}, c, memory, 1000))
    keys.insert(portable_key(parse_plan(plan.text)->site));
  return keys;
}

TEST(BuiltinLegality, ThePlannerNeverProposesABlockThatLeavesColumnsUnwritten) {
  Candidate c = bundled_silu();
  ASSERT_FALSE(c.kernel_text.empty());
  TaskInfo task{"silu"};
  task.kernel_file_name = "silu_M4096_N7168_0.py";
  EXPECT_FALSE(all_planned(task, c).count("free_size from=1024 value=2048 var=block"));
  task.kernel_file_name = "silu_M4096_N8192_0.py";
  EXPECT_TRUE(all_planned(task, c).count("free_size from=1024 value=2048 var=block"));
}

// How often `key` is the first plan over `variants` copies of the kernel (each a new kernel, with an
// unused assignment that survives the rewrites, so their results are new kernels too).
int first_draws(AgentSet& set, const TaskInfo& task, const Candidate& base, const std::string& key, int variants) {
  Memory memory;
  int hits = 0;
  for (int v = 0; v < variants; ++v) {
    Candidate c = base;
    std::string head = "def kernel(x):\n";
    c.kernel_text.insert(c.kernel_text.find(head) + head.size(), fmt::format("    variant = {}\n", v));
    auto plans = set.planner->propose(AgentContext{task, 1, "t"}, c, memory, 1);
    if (!plans.empty() && portable_key(parse_plan(plans[0].text)->site) == key) hits++;
  }
  return hits;
}

TEST(BuiltinFailureLog, ARejectedRewriteIsDownWeightedOnLaterKernels) {
  TaskInfo task{"silu"};
  Candidate c = bundled_silu();
  AgentSet learner = make_builtin_agents(5), fresh = make_builtin_agents(5);
  ASSERT_TRUE(learner.fixer);
  Memory memory;
  auto plans = learner.planner->propose(AgentContext{task, 0, "t"}, c, memory, 1);
  ASSERT_EQ(plans.size(), 1u);
  std::string key = portable_key(parse_plan(plans[0].text)->site);
  auto draft = learner.fixer->fix(AgentContext{task, 0, "t"}, plans[0], "code", Failure{"incorrect", {}}, 1);
  EXPECT_FALSE(draft.ok);  // no repair: the failure is only recorded
  int before = first_draws(fresh, task, c, key, 40), after = first_draws(learner, task, c, key, 40);
  EXPECT_GE(before, 4) << key;
  EXPECT_LE(after * 4, before) << key;
}

TEST(BuiltinPlanner, NeverPlansARewriteBackToAKnownKernel) {
  TaskInfo task{"silu"};
  Memory memory;
  Candidate a = bundled_silu();
  Site to_gpsimd, to_scalar;
  for (const auto& s : find_sites(a.kernel_text))
    if (s.transform == "engine_move" && s.params.at("engine") == "gpsimd" && to_gpsimd.transform.empty()) to_gpsimd = s;
  ASSERT_FALSE(to_gpsimd.transform.empty());
  Candidate b = a;
  b.kernel_text = apply_site(a.kernel_text, to_gpsimd);
  for (const auto& s : find_sites(b.kernel_text))
    if (s.transform == "engine_move" && s.line() == to_gpsimd.line() && s.params.at("engine") == "scalar") to_scalar = s;
  ASSERT_FALSE(to_scalar.transform.empty());
  Candidate c = b;
  c.kernel_text = apply_site(b.kernel_text, to_scalar);
  // From c, moving the instruction to gpsimd again gives b back: a site exists that would do it.
  int back_sites = 0;
  for (const auto& s : find_sites(c.kernel_text)) back_sites += apply_site(c.kernel_text, s) == b.kernel_text;
  ASSERT_GE(back_sites, 1);
  BuiltinPlanner planner(1, true);
  planner.propose(AgentContext{task, 0, "a"}, b, memory, 0);  // the planner has seen b
  auto plans = planner.propose(AgentContext{task, 1, "c"}, c, memory, 1000);
  EXPECT_FALSE(plans.empty());
  std::set<std::string> results;
  for (const auto& plan : plans) {
    auto parsed = parse_plan(plan.text);  // a two-step plan applies its enabler first
    std::string out = apply_site(parsed->enabler ? apply_site(c.kernel_text, *parsed->enabler) : c.kernel_text, parsed->site);
    EXPECT_NE(out, b.kernel_text) << plan.title;
    EXPECT_NE(out, c.kernel_text) << plan.title;
    EXPECT_TRUE(results.insert(out).second) << "two plans give the same kernel: " << plan.title;
  }
}

}  // namespace
}  // namespace agents::builtin
