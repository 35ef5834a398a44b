// Memory evidence per site (experience.h memory_site_weight): an experience counts fully for a
// site that makes the same move (same engine, tile size changed the same way) and little for a
// different move of the same transformation.
#include <gtest/gtest.h>

#include "agents/builtin/experience.h"
#include "agents/builtin/plan_text.h"

namespace agents::builtin {
namespace {

ExperienceItem item_for(const Site& site, const Symptoms& symptoms, bool positive, double ratio) {
  RewritePair pair;
  pair.task = "silu";
  pair.round = 1;
  pair.positive = positive;
  pair.plan = make_plan(site, symptoms, "why");
  pair.slow_code = "a = 1\nb = 2\n";
  pair.fast_code = "a = 1\nb = 3\n";
  pair.slow_latency_ms = ratio;
  pair.fast_latency_ms = 1.0;
  return *summarize_pair(pair);
}

Site free_size(const std::string& from, const std::string& value) {
  return {"free_size", {{"line", "26"}, {"from", from}, {"value", value}}, "x"};
}

Site engine_move(const std::string& engine, const std::string& line = "30") {
  return {"engine_move", {{"line", line}, {"engine", engine}}, "x"};
}

TEST(BuiltinMemorySites, AGrowingTileThatHelpedPromotesGrowingNotShrinking) {
  Memory memory;
  memory.add(item_for(free_size("512", "1024"), {"dma_bound"}, true, 1.5));
  auto experience = read_memory(memory);
  ASSERT_EQ(experience.size(), 1u);
  EXPECT_EQ(experience[0].params.at("from"), "512");
  double grow = memory_site_weight(experience, {"dma_bound"}, free_size("1024", "2048"));
  double shrink = memory_site_weight(experience, {"dma_bound"}, free_size("512", "256"));
  EXPECT_GT(grow, 1.5);  // another size (another anchor): the gain counts half
  EXPECT_LT(shrink, 1.25);
  EXPECT_GT(shrink, 1.0);  // still a little evidence for the transformation as such
  // Other transformations get nothing from it.
  EXPECT_DOUBLE_EQ(memory_site_weight(experience, {"dma_bound"}, engine_move("gpsimd")), 1.0);
}

TEST(BuiltinMemorySites, AnEngineMoveCountsForMovesToTheSameEngineOnAnyLine) {
  Memory memory;
  memory.add(item_for(engine_move("gpsimd", "12"), {"engine_imbalance"}, true, 1.3));
  memory.add(item_for(engine_move("scalar", "12"), {"engine_imbalance"}, false, 1.4));  // slower
  auto experience = read_memory(memory);
  double gpsimd = memory_site_weight(experience, {"engine_imbalance"}, engine_move("gpsimd", "40"));
  double scalar = memory_site_weight(experience, {"engine_imbalance"}, engine_move("scalar", "40"));
  EXPECT_GT(gpsimd, 1.5);
  EXPECT_LT(scalar, 0.7);
  // Per transformation (memory_weights) the two experiences nearly cancel out.
  double both = memory_weights(memory, {"engine_imbalance"})["engine_move"];
  EXPECT_GT(both, scalar);
  EXPECT_LT(both, gpsimd);
}

TEST(BuiltinMemorySites, ParameterMatchLevels) {
  ExperienceView view{"free_size", Symptoms{}, 2.0, {{"from", "512"}, {"value", "1024"}, {"var", "block"}}};
  EXPECT_DOUBLE_EQ(param_match(view, {"free_size", {{"line", "1"}, {"from", "256"}, {"value", "512"}, {"var", "block"}}, ""}), 1.0);
  EXPECT_DOUBLE_EQ(param_match(view, {"free_size", {{"line", "1"}, {"from", "256"}, {"value", "512"}}, ""}), 0.6);
  EXPECT_DOUBLE_EQ(param_match(view, {"free_size", {{"line", "1"}, {"from", "1024"}, {"value", "512"}, {"var", "block"}}, ""}), 0.15);
  ExperienceView llm{"free_size", std::nullopt, 2.0, {}};
  EXPECT_DOUBLE_EQ(param_match(llm, {"free_size", {{"line", "1"}}, ""}), 0.5);
}

}  // namespace
}  // namespace agents::builtin
