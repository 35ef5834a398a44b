// Lookahead for enabling moves (planner.cpp, "two-step plan"): a move that gains nothing alone but
// whose result offers a site its parent did not is planned with that follow-up as one plan (one
// evaluation, within the n plans), and memory records the pair ("X enables Y") instead of X as a
// dead end. The searches here run the planner and the built-in executor against a fake evaluator:
// every kernel takes 1 ms except one whose row tiles' stores were assembled and stored once (0.5
// ms). The interchange that makes those stores adjacent is neutral alone; a beam of one keeps the
// parent on a tie, so only the pair reaches the 0.5 ms kernel.
#include <gtest/gtest.h>

#include "agents/builtin/builtin_agents.h"
#include "agents/builtin/experience.h"
#include "agents/builtin/plan_text.h"
#include "agents/builtin/planner.h"
#include "builtin_test_support.h"
#include "loopnest/transform.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

using builtin_test::arrays;
using builtin_test::read;

// store_rows.ref.py's sizes: lhs (2, 256, 64), rhs (2, 64, 2048).
const std::vector<loopnest::ArgSpec> kArgs = arrays({{2, 256, 64}, {2, 64, 2048}});

std::string kernel(const std::string& style) {
  return read(std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/stores_column_outer_" + style + ".py");
}

// The fake evaluator: a kernel that stores whole rows of `out` (`out[b, 128*mi:128*mi + 128, :]`, as
// coalesce_stores prints it in both styles) takes half the time.
// A row tile stored whole (coalesced), in the form's spelling or the author's.
double fake_ms(const std::string& text) {
  return text.find("128*mi + 128, :]") != std::string::npos || text.find("(mi + 1) * 128, :]") != std::string::npos ? 0.5 : 1.0;
}

struct Search {
  Candidate best;
  std::vector<RewritePair> pairs;  // every (candidate, plan) outcome, as --t-pos 1 --t-neg 1 records them
  int evaluations = 0;
  int most_plans_per_call = 0;
};

// Beam of one, `n` plans per round, `rounds` rounds; ties keep the parent (select_beam's order).
Search search(const std::string& text, int n, int rounds, uint64_t seed = 1) {
  AgentSet agents = make_builtin_agents(seed);
  TaskInfo task{"bmm"};
  task.kernel_args = kArgs;
  Memory memory;
  Search s;
  s.best = {"baseline", text, fake_ms(text), std::nullopt};
  for (int r = 1; r <= rounds; ++r) {
    AgentContext ctx{task, r, "bmm/r" + std::to_string(r) + "/c0"};
    std::vector<Plan> plans = agents.planner->propose(ctx, s.best, memory, n);
    s.most_plans_per_call = std::max(s.most_plans_per_call, static_cast<int>(plans.size()));
    Candidate next = s.best;
    for (const auto& plan : plans) {
      auto drafts = agents.executor->write(ctx, s.best, plan, memory, 1);
      if (drafts.empty() || !drafts[0].ok) continue;
      ++s.evaluations;
      double ms = fake_ms(drafts[0].code);
      RewritePair pair{"bmm", r, ms <= s.best.latency_ms, plan};
      pair.slow_code = pair.positive ? s.best.kernel_text : drafts[0].code;
      pair.fast_code = pair.positive ? drafts[0].code : s.best.kernel_text;
      pair.slow_latency_ms = std::max(ms, s.best.latency_ms), pair.fast_latency_ms = std::min(ms, s.best.latency_ms);
      s.pairs.push_back(pair);
      memory.add(*agents.summarizer->summarize(ctx, pair));
      if (ms < next.latency_ms) next = {"r" + std::to_string(r), drafts[0].code, ms, std::nullopt};
    }
    s.best = next;
  }
  return s;
}

TEST(BuiltinEnabler, ANeutralInterchangeIsEvaluatedWithTheStoreCoalescingItOpensInEveryStyle) {
  for (const char* style : {"tiles", "api"}) {
    std::string text = kernel(style);
    // The parent offers the interchange alone; its result offers coalesce_stores.
    // (Besides jam_rows of the rows' engine round trips, drawn after it on this kernel that hardly waits.)
    std::vector<Site> sites = find_sites(text, kArgs);
    std::erase_if(sites, [](const Site& s) { return loopnest::overlaps_rows_only(s.transform, s.params); });
    ASSERT_EQ(sites.size(), 1u) << style;
    ASSERT_EQ(sites[0].transform, "interchange_loops") << style;
    std::string swapped = apply_site(text, sites[0], kArgs);
    EXPECT_EQ(fake_ms(swapped), 1.0);
    bool opens = false;
    for (const auto& s : find_sites(swapped, kArgs)) opens = opens || s.transform == "coalesce_stores";
    ASSERT_TRUE(opens) << style;

    Search s = search(text, 2, 4);
    EXPECT_EQ(s.best.latency_ms, 0.5) << style;
    EXPECT_LE(s.most_plans_per_call, 2) << style;  // the pair is one of the n plans
    // Found by a two-step plan, whose outcome memory keeps as "X enables Y".
    bool pair_found = false;
    for (const auto& p : s.pairs) {
      auto parsed = parse_plan(p.plan.text);
      ASSERT_TRUE(parsed);
      if (!parsed->enabler || !p.positive || p.slow_latency_ms != 1.0 || p.fast_latency_ms != 0.5) continue;
      pair_found = true;
      EXPECT_EQ(parsed->enabler->transform, "interchange_loops") << style;
      EXPECT_EQ(parsed->site.transform, "coalesce_stores") << style;
      ExperienceItem item = *summarize_pair(p);
      EXPECT_NE(item.lesson.find("interchange_loops enables coalesce_stores: 2.00x"), std::string::npos) << item.lesson;
      auto view = read_experience(item);
      ASSERT_TRUE(view);
      EXPECT_EQ(view->enabled_by, site_anchor(sites[0]));
    }
    EXPECT_TRUE(pair_found) << style;
  }
}

TEST(BuiltinEnabler, AMoveThatEnabledAGainIsNotADeadEndInMemory) {
  std::string text = kernel("tiles");
  Site interchange;
  for (const auto& s : find_sites(text, kArgs))
    if (s.transform == "interchange_loops") interchange = s;
  ASSERT_EQ(interchange.transform, "interchange_loops");
  std::string swapped = apply_site(text, interchange, kArgs);
  Site coalesce;
  for (const auto& s : find_sites(swapped, kArgs))
    if (s.transform == "coalesce_stores") coalesce = s;
  auto outcome = [&](const Plan& plan, double slow, double fast) {
    RewritePair pair{"bmm", 1, true, plan, text, swapped, slow, fast};
    return *summarize_pair(pair);
  };
  Memory neutral;
  neutral.add(outcome(make_plan(interchange, {}, "why"), 1.0, 1.0));
  EXPECT_TRUE(known_no_gain(read_memory(neutral), interchange, "bmm", 1.0));
  Memory with_pair = neutral;
  with_pair.add(outcome(make_two_step_plan(interchange, coalesce, {}, "why"), 1.0, 0.5));
  EXPECT_FALSE(known_no_gain(read_memory(with_pair), interchange, "bmm", 1.0));
  // Only a pair that helped: one that gained nothing leaves the move a dead end.
  Memory with_neutral_pair = neutral;
  with_neutral_pair.add(outcome(make_two_step_plan(interchange, coalesce, {}, "why"), 1.0, 1.0));
  EXPECT_TRUE(known_no_gain(read_memory(with_neutral_pair), interchange, "bmm", 1.0));
}

TEST(BuiltinEnabler, ATwoStepPlanReadsBackAndAOneStepPlanHasNoEnabler) {
  Site first{"interchange_loops", {{"anchor", "2x4x2/matmul#0"}, {"line", "25"}}, "interchange `for ni` and `for mi`"};
  Site then{"coalesce_stores", {{"anchor", "2x2x4/store#0"}, {"line", "26"}, {"tiles", "4"}}, "store once"};
  auto parsed = parse_plan(make_two_step_plan(first, then, {"dma_bound"}, "why").text);
  ASSERT_TRUE(parsed && parsed->enabler);
  EXPECT_EQ(parsed->site.params, then.params);
  EXPECT_EQ(parsed->enabler->transform, "interchange_loops");
  EXPECT_EQ(parsed->enabler->params, first.params);
  EXPECT_EQ(parsed->symptoms, Symptoms({"dma_bound"}));
  EXPECT_FALSE(parse_plan(make_plan(then, {}, "why").text)->enabler);
}

// A move whose result offers nothing its parent did not is never the first step of a pair: on two
// rows jammed per iteration, hoist_expand's result offers only sites the kernel has (the
// interchange opens pipeline_prep, coalescing a store opens chunk_rows).
TEST(BuiltinEnabler, AMoveThatOpensNoSiteIsNeverAFirstStep) {
  std::string text = read(std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/store_rows_jammed_tiles.py");
  TaskInfo task{"bmm"};
  task.kernel_args = kArgs;
  Candidate c{"baseline", text, 1.0, std::nullopt};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    auto plans = BuiltinPlanner(seed, true).propose(AgentContext{task, 1, "bmm/r1/c0"}, c, Memory{}, 8);
    int two_step = 0, hoist_alone = 0;
    for (const auto& p : plans) {
      auto parsed = parse_plan(p.text);
      ASSERT_TRUE(parsed);
      if (parsed->enabler) {
        ++two_step;
        EXPECT_NE(parsed->enabler->transform, "hoist_expand") << seed << "\n" << p.text;
      } else if (parsed->site.transform == "hoist_expand") {
        ++hoist_alone;
      }
    }
    EXPECT_LE(plans.size(), 8u) << seed;  // pairs fill the slots the kernel's sites leave, no more
    EXPECT_GE(two_step, 1) << seed;       // the interchange and the coalesced stores open sites
    EXPECT_EQ(hoist_alone, 1) << seed;  // planned alone, as before
  }
}

}  // namespace
}  // namespace agents::builtin
