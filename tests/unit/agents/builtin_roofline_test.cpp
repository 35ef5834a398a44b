// The roofline the planner reads (roofline.{h,cpp}, after AWS's performance-bounds model): the
// limiter is the busiest engine family, serialization the share of time none is busy; moves that
// relieve the limiter (or the waiting, the more the larger that share) weigh more, and the planner
// stops proposing for a kernel within 3% of the task's peak.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include "agents/builtin/planner.h"
#include "agents/builtin/roofline.h"
#include "builtin_test_support.h"

namespace agents::builtin {
namespace {

trn::Profile profile(double latency, std::map<std::string, double> busy) {
  trn::Profile p;
  p.latency = latency;
  p.engine_busy_ms = std::move(busy);
  return p;
}

TEST(BuiltinRoofline, LimiterIsTheBusiestFamilyAndSerializationTheIdleShare) {
  const auto& arch = trn::arch_config("trn1");
  Roofline r = roofline(profile(2.0, {{"pe", 1.5}, {"dve", 0.3}, {"act", 0.3}, {"dma", 0.4}}), arch);
  EXPECT_EQ(r.limiter, "pe");
  EXPECT_DOUBLE_EQ(r.bound, 1.5);
  EXPECT_DOUBLE_EQ(r.serialization, 0.25);
}

TEST(BuiltinRoofline, MovesAgainstTheLimiterAndTheWaitingWeighMore) {
  const auto& arch = trn::arch_config("trn1");
  // PE-bound, busy nearly all the time: a PE move is worth more than a move against waiting.
  Roofline pe = roofline(profile(1.0, {{"pe", 0.95}, {"dve", 0.2}}), arch);
  EXPECT_DOUBLE_EQ(roofline_weight("reorder_reuse", {}, pe), 2.0);
  EXPECT_DOUBLE_EQ(roofline_weight("in_place", {}, pe), 0.7);
  // Waiting 25% of the time: a move against waiting gains weight with that share.
  Roofline some = roofline(profile(2.0, {{"pe", 1.5}, {"dve", 0.3}}), arch);
  EXPECT_NEAR(roofline_weight("in_place", {}, some), 1.3, 1e-9);
  // Mostly waiting: the full weight.
  Roofline serial = roofline(profile(2.0, {{"pe", 0.9}, {"dve", 0.6}}), arch);
  EXPECT_DOUBLE_EQ(roofline_weight("in_place", {}, serial), 2.0);
  EXPECT_DOUBLE_EQ(roofline_weight("pipeline_prep", {}, serial), 2.0);
  // An engine move from a busy engine to an idle one is worth more than the reverse.
  Roofline dve = roofline(profile(1.0, {{"dve", 0.9}, {"pool", 0.0}}), arch);
  EXPECT_GT(roofline_weight("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, dve),
            roofline_weight("engine_assign", {{"engine", "vector"}, {"from", "gpsimd"}}, dve));
}

TEST(BuiltinRoofline, ThePlannerStopsWithinThreePercentOfPeak) {
  EXPECT_TRUE(near_peak(1.02, 1.0));
  EXPECT_FALSE(near_peak(1.05, 1.0));
  EXPECT_FALSE(near_peak(1.0, 0.0));  // unknown peak: never stop
  Candidate c;
  c.id = "baseline";
  c.kernel_text = builtin_test::read(builtin_test::golden_dir() + "/silu.py");
  c.latency_ms = 1.0;
  c.profile = profile(1.0, {{"dve", 0.9}, {"act", 0.3}});
  TaskInfo task{"silu"};
  Memory memory;
  task.peak_latency_ms = 0.5;
  EXPECT_FALSE(BuiltinPlanner(1, true).propose(AgentContext{task, 1, "silu/r1/c0"}, c, memory, 4).empty());
  EXPECT_FALSE(BuiltinPlanner(1, true).at_bound(AgentContext{task, 1, "silu/r1/c0"}, c).has_value());
  task.peak_latency_ms = 0.98;
  EXPECT_TRUE(BuiltinPlanner(1, true).propose(AgentContext{task, 1, "silu/r1/c0"}, c, memory, 4).empty());
  // The loop learns why: the bound, with the figures.
  auto bound = BuiltinPlanner(1, true).at_bound(AgentContext{task, 1, "silu/r1/c0"}, c);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->kind, BoundStop::Kind::NearPeak);
  EXPECT_EQ(bound->detail, "1.0000 ms is within 3% of the task's peak (0.9800 ms, 98.0% of peak)");
}

TEST(BuiltinRoofline, AKernelReadingItsInputsOnceAtTheDmaRateIsAtItsFloor) {
  const auto& arch = trn::arch_config("trn1");
  loopnest::ArgSpec a;
  a.shape = {1024, 1024};  // 4 MiB of fp32
  uint64_t in = input_bytes({a, a});
  EXPECT_EQ(in, 8u << 20);
  trn::Profile p = profile(0, {{"dma", 0}});
  p.hbm_read_bytes = in;
  p.hbm_write_bytes = 4u << 20;
  double floor_ms = static_cast<double>(12u << 20) / (arch.dma_bytes_per_ns() * 1e6);
  p.latency = 1.02 * floor_ms;
  EXPECT_TRUE(at_dma_floor(p, arch, in));
  EXPECT_EQ(dma_floor_detail(p, arch), fmt::format("{:.4f} ms is within 5% of its HBM traffic (12.6 MB, inputs read once, "
                                                   "no spill) at the DMA engines' 272 B/ns ({:.4f} ms)",
                                                   p.latency, floor_ms));
  p.latency = 1.10 * floor_ms;  // 10% above: a rewrite may still overlap better
  EXPECT_FALSE(at_dma_floor(p, arch, in));
  p.latency = 1.02 * floor_ms;
  p.hbm_read_bytes = 2 * in;  // inputs re-read: reuse could cut the traffic
  EXPECT_FALSE(at_dma_floor(p, arch, in));
  p.hbm_read_bytes = in;
  p.spill_save_bytes = 4096;
  EXPECT_FALSE(at_dma_floor(p, arch, in));
}

}  // namespace
}  // namespace agents::builtin
