// Memory keyed on the loop-nest form: what the built-in agent learned about a rewrite of a kernel
// written in one style applies to the same rewrite of the same nest written in another style
// (the site's anchor names the op by its place in the nest, not by the source text).
#include <gtest/gtest.h>

#include "agents/builtin/experience.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/planner.h"
#include "builtin_test_support.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

const char* const kStyles[] = {
    "/nkibench/kernels/silu_M4096_N7168_0.py",
    "/nkibench/styles/legacy_grid/silu_M4096_N7168_0.py",
    "/nkibench/styles/nki_api/silu_M4096_N7168_0.py",
};

std::vector<loopnest::ArgSpec> silu_args() {
  loopnest::ArgSpec x;
  x.shape = {128, 32, 7168};
  return {x};
}

std::string kernel(const char* rel) { return builtin_test::read(std::string(ACCELOPT_SOURCE_DIR) + rel); }

Site fold_silu_site(const std::string& source) {
  for (const auto& s : find_sites(source, silu_args()))
    if (s.transform == "fold_silu" && s.params.count("func") && s.params.at("func") == "silu") return s;
  ADD_FAILURE() << "no fold_silu site";
  return {};
}

ExperienceItem outcome(const Site& site, const std::string& before, double ratio) {
  RewritePair pair;
  pair.task = "silu_M4096_N7168";
  pair.round = 1;
  pair.positive = ratio >= 1;
  pair.plan = make_plan(site, {"dve_busy"}, "why");
  pair.slow_code = before;
  pair.fast_code = apply_site(before, site, silu_args());
  pair.slow_latency_ms = ratio >= 1 ? ratio : 1.0;
  pair.fast_latency_ms = ratio >= 1 ? 1.0 : ratio;
  return *summarize_pair(pair);
}

TEST(BuiltinStyleMemory, TheSameRewriteOfTheSameNestHasOneAnchorInEveryStyle) {
  std::string anchor = site_anchor(fold_silu_site(kernel(kStyles[0])));
  for (const char* style : kStyles) EXPECT_EQ(site_anchor(fold_silu_site(kernel(style))), anchor) << style;
}

TEST(BuiltinStyleMemory, AnOutcomeLearnedInOneStyleIsKnownInTheOthers) {
  // Learnt on the index-grid kernel: fusing the chain did nothing (a neutral outcome).
  std::string legacy = kernel(kStyles[1]);
  Memory memory;
  memory.add(outcome(fold_silu_site(legacy), legacy, 1.01));
  auto experience = read_memory(memory);
  ASSERT_EQ(experience.size(), 1u);
  for (const char* style : kStyles) {
    Site site = fold_silu_site(kernel(style));
    EXPECT_TRUE(known_no_gain(experience, site, "silu_M4096_N7168", 1.0)) << style;
    EXPECT_LT(memory_site_weight(experience, {"dve_busy"}, site), 1.0) << style;
  }
  // Learnt on the bundled kernel: it helped. The newer-API kernel's same site is drawn more.
  std::string bundled = kernel(kStyles[0]);
  Memory helped;
  helped.add(outcome(fold_silu_site(bundled), bundled, 1.4));
  auto good = read_memory(helped);
  Site nki_site = fold_silu_site(kernel(kStyles[2]));
  EXPECT_FALSE(known_no_gain(good, nki_site, "silu_M4096_N7168", 1.0));
  EXPECT_GT(memory_site_weight(good, {"dve_busy"}, nki_site), 1.0);
}

TEST(BuiltinStyleMemory, ThePlannerSkipsARewriteItKnowsFromAnotherStyle) {
  std::string legacy = kernel(kStyles[1]);
  Memory memory;
  memory.add(outcome(fold_silu_site(legacy), legacy, 1.0));
  TaskInfo task;
  task.name = "silu_M4096_N7168";
  task.kernel_args = silu_args();
  Candidate c;
  c.id = "baseline";
  c.kernel_text = kernel(kStyles[2]);  // the newer-API kernel
  c.latency_ms = 1.0;
  BuiltinPlanner planner(1, true);
  AgentContext ctx{task, 1, "silu/r1/c0"};
  std::string known = fold_silu_site(c.kernel_text).key();
  for (const auto& plan : planner.propose(ctx, c, memory, 100)) {
    auto parsed = parse_plan(plan.text);
    ASSERT_TRUE(parsed);
    EXPECT_NE(parsed->site.key(), known);
  }
  BuiltinPlanner fresh(1, true);
  bool proposed = false;
  for (const auto& plan : fresh.propose(ctx, c, Memory(), 100)) {
    auto parsed = parse_plan(plan.text);
    proposed = proposed || (parsed && parsed->site.key() == known);
  }
  EXPECT_TRUE(proposed);
}

}  // namespace
}  // namespace agents::builtin
