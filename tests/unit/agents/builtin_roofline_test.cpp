// The roofline the planner reads (roofline.{h,cpp}, after AWS's performance-bounds model): the
// limiter is the busiest engine family, serialization the share of time none is busy; moves that
// relieve the limiter (or the waiting, the more the larger that share) weigh more, and the planner
// stops proposing for a kernel within 3% of the task's peak.
#include <algorithm>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "agents/builtin/plan_text.h"
#include "agents/builtin/planner.h"
#include "agents/builtin/roofline.h"
#include "agents/builtin/symptoms.h"
#include "builtin_test_support.h"
#include "eval/profile_run.h"
#include "loopnest/transform.h"
#include "support/test_paths.h"

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
  // An engine move from a busy engine to an idle one is worth more than the reverse (on NC-v3,
  // where VectorE and GpSimd have timelines of their own; on NC-v2 see the next test).
  Roofline dve = roofline(profile(1.0, {{"dve", 0.9}, {"pool", 0.0}}), trn::arch_config("trn2"));
  EXPECT_GT(roofline_weight("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, dve),
            roofline_weight("engine_assign", {{"engine", "vector"}, {"from", "gpsimd"}}, dve));
}

TEST(BuiltinRoofline, AMoveBetweenEnginesOfOneTimelineWeighsLittle) {
  // mamba's shape: the Vector Engine the limiter, GpSimd idle. On trn1 (NC-v2) the two share the
  // SBUF port, so VectorE -> GpSimd (or back) keeps the work on one timeline (it gains only by the
  // clock, next test), while a move to the Scalar Engine still weighs by the gap. trn2 (NC-v3)
  // lifts the sharing.
  Roofline v2 = roofline(profile(1.2, {{"dve", 1.12}, {"act", 0.3}, {"pool", 0.0}}), trn::arch_config("trn1"));
  EXPECT_TRUE(move_within_one_timeline("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, v2));
  EXPECT_TRUE(move_within_one_timeline("engine_assign", {{"engine", "vector"}, {"from", "gpsimd"}}, v2));
  EXPECT_FALSE(move_within_one_timeline("engine_assign", {{"engine", "scalar"}, {"from", "vector"}}, v2));
  EXPECT_GT(roofline_weight("engine_assign", {{"engine", "scalar"}, {"from", "vector"}}, v2, {}), 1.0);
  // Onto GpSimd from the Scalar Engine: GpSimd's timeline is the Vector Engine's, busy 93%.
  EXPECT_LT(roofline_weight("engine_assign", {{"engine", "gpsimd"}, {"from", "scalar"}}, v2, {}), 0.3);
  Roofline v3 = roofline(profile(1.2, {{"dve", 1.12}, {"act", 0.3}, {"pool", 0.0}}), trn::arch_config("trn2"));
  EXPECT_FALSE(move_within_one_timeline("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, v3));
}

TEST(BuiltinRoofline, TheFamiliesTheFormFindsForASiteWinOverTheTransformationsTable) {
  const auto& arch = trn::arch_config("trn1");
  // Vector-Engine bound (mamba): jam_rows' table says DMA and PE, but the rows share a load and a
  // broadcast on the Vector Engine there.
  Roofline dve = roofline(profile(2.2, {{"dve", 1.68}, {"act", 0.61}, {"pe", 0.66}, {"dma", 0.09}}), arch);
  EXPECT_DOUBLE_EQ(roofline_weight("jam_rows", {}, dve), 0.7);
  EXPECT_DOUBLE_EQ(roofline_weight("jam_rows", {}, dve, {{"dma", "dve"}, {"dve"}}), 2.0);
  // The form's families replace the table's: sharing only loads on a PE-bound kernel that does not
  // wait relieves nothing that bounds it.
  Roofline pe = roofline(profile(1.0, {{"pe", 0.97}, {"dma", 0.5}}), arch);
  EXPECT_DOUBLE_EQ(roofline_weight("jam_rows", {}, pe), 2.0);
  EXPECT_DOUBLE_EQ(roofline_weight("jam_rows", {}, pe, {{"dma"}, {"pe"}}), 0.7);
}

TEST(BuiltinRoofline, WorkTheLimiterWaitsOnWeighsWithTheWaiting) {
  const auto& arch = trn::arch_config("trn1");
  // swiglu: the Tensor Engine busy 84.5% of the time, the rest waiting; a hoist of the weight
  // loads the matmuls read is worth the waiting it can win back (15.5%).
  Roofline pe = roofline(profile(4.129, {{"pe", 3.489}, {"dma", 2.044}, {"dve", 0.696}, {"act", 0.504}}), arch);
  double waiting = (4.129 - 3.489) / 4.129;
  EXPECT_NEAR(roofline_weight("hoist", {}, pe, {{"dma"}, {"pe"}}), 1.0 + 3 * waiting, 1e-9);
  // Nobody on the limiter reads what it relieves: the table's weight (DMA is not the limiter).
  EXPECT_DOUBLE_EQ(roofline_weight("hoist", {}, pe, {{"dma"}, {"dve"}}), 0.7);
  EXPECT_DOUBLE_EQ(roofline_weight("hoist", {}, pe), 0.7);
  // No more than the relieved family's busy time: a tiny load cannot win back much.
  Roofline little = roofline(profile(4.0, {{"pe", 3.0}, {"dma", 0.2}}), arch);
  EXPECT_NEAR(roofline_weight("hoist", {}, little, {{"dma"}, {"pe"}}), 1.0 + 3 * 0.05, 1e-9);
  // The limiter does not wait: nothing to win back.
  Roofline busy = roofline(profile(1.0, {{"pe", 0.98}, {"dma", 0.6}}), arch);
  EXPECT_DOUBLE_EQ(roofline_weight("hoist", {}, busy, {{"dma"}, {"pe"}}), 0.7);
}

TEST(BuiltinRoofline, FreeingSpaceOneIterationLacksIsWorthTheWaiting) {
  const auto& arch = trn::arch_config("trn1");
  // mamba: the Vector Engine busy 76.5%, waiting 23.5% of the time.
  trn::Profile p = profile(2.199, {{"dve", 1.682}, {"act", 0.607}, {"pe", 0.655}, {"dma", 0.088}});
  Roofline r = roofline(p, arch);
  EXPECT_NEAR(roofline_weight("chunk_rows", {}, r), 1.0 + 3 * (r.serialization - 0.15), 1e-9);
  EXPECT_DOUBLE_EQ(roofline_weight("chunk_rows", {}, r, {{"sbuf"}, {}}), 2.0);
  // Not when the kernel hardly waits.
  Roofline busy = roofline(profile(1.0, {{"dve", 0.95}}), arch);
  EXPECT_DOUBLE_EQ(roofline_weight("chunk_rows", {}, busy, {{"sbuf"}, {}}), 0.7);
  // The prior: the form's evidence of waiting on space counts as the latency_bound symptom.
  Site site;
  site.transform = "chunk_rows";
  Symptoms symptoms = {"dve_busy"};
  double plain = prior_weight(site, symptoms, &p);
  site.relieves = {"sbuf"};
  EXPECT_DOUBLE_EQ(prior_weight(site, symptoms, &p), 10 * plain);
  EXPECT_DOUBLE_EQ(prior_weight(site, {"dve_busy", "latency_bound"}, &p), 10 * plain);
}

// Sites of `transform` in the bundled kernel of `task` (its reference giving the argument shapes).
std::vector<Site> task_sites(const std::string& kernel, const std::string& transform) {
  const std::string root = ACCELOPT_SOURCE_DIR;
  std::string ref = root + "/nkibench/reference/" + kernel.substr(0, kernel.rfind('_')) + ".py";
  std::vector<Site> out;
  for (auto& s : find_sites(builtin_test::read(root + "/nkibench/kernels/" + kernel), eval::reference_arg_specs(ref, builtin_test::read(ref))))
    if (s.transform == transform) out.push_back(std::move(s));
  return out;
}

TEST(BuiltinRoofline, TheFormSaysWhichEnginesAMoveRelievesAndWhoWaitsOnThem) {
  // mamba: two rows share the loads of b and c and their broadcasts (Vector Engine), which the
  // rows' Vector Engine multiplies read.
  auto jam = task_sites("mamba_M7168_C256_S16_0.py", "jam_rows");
  ASSERT_FALSE(jam.empty());
  for (const auto& s : jam) {
    EXPECT_EQ(s.relieves, (std::set<std::string>{"dma", "dve"})) << s.key();
    EXPECT_EQ(s.feeds, (std::set<std::string>{"dve"})) << s.key();
  }
  // swiglu: each stage's weight loads, read by the Tensor Engine's matmuls.
  auto hoist = task_sites("swiglu_M4096_N3072_K1024_0.py", "hoist");
  ASSERT_EQ(hoist.size(), 3u);
  for (const auto& s : hoist) {
    EXPECT_EQ(s.relieves, (std::set<std::string>{"dma"})) << s.key();
    EXPECT_EQ(s.feeds, (std::set<std::string>{"pe"})) << s.key();
  }
  // mamba's whole rows: 9 tiles of 28 KiB per partition, over the 192 KiB SBUF partition: one
  // row's tiles cannot be live beside the next one's; chunks free that space. Not on rope, whose
  // rows are 512 B.
  auto chunk = task_sites("mamba_M7168_C256_S16_0.py", "chunk_rows");
  ASSERT_FALSE(chunk.empty());
  for (const auto& s : chunk) EXPECT_EQ(s.relieves, (std::set<std::string>{"sbuf"})) << s.key();
  for (const auto& s : task_sites("rope_single_freq_apply_B1_H64_N4096_D128_0.py", "chunk_rows"))
    EXPECT_TRUE(s.relieves.empty()) << s.key();
  // matmul: the column block's rows share its transposes on the Tensor Engine as well as its loads.
  // (Its inner loops' jam_rows sites admitted for their engine round trips share nothing: serial.)
  for (const auto& s : task_sites("matmul_M4096_N12288_K5120_0.py", "jam_rows"))
    EXPECT_TRUE(loopnest::overlaps_rows_only(s.transform, s.params) ? s.relieves.count("serial") : s.relieves.count("pe")) << s.key();
}

TEST(BuiltinRoofline, AMoveShorteningOnlyDmaNobodyWaitsOnCannotGainWhereAnotherFamilyBounds) {
  const auto& arch = trn::arch_config("trn1");
  const SiteRelief store = {{"dma"}, {}};
  // PE-bound, waiting 19% of the time: no.
  EXPECT_TRUE(shortens_only_unbinding_dma(roofline(profile(0.958, {{"pe", 0.772}, {"dma", 0.341}}), arch), store));
  // DMA-bound: yes; mostly waiting on dependences (no family busy 30% of the time): maybe.
  EXPECT_FALSE(shortens_only_unbinding_dma(roofline(profile(5.99, {{"pe", 3.04}, {"dma", 4.11}}), arch), store));
  EXPECT_FALSE(shortens_only_unbinding_dma(roofline(profile(2.0, {{"pe", 1.2}, {"dma", 0.4}}), arch), store));
  // A load the limiter reads, or a move relieving another family too: not only unbinding DMA.
  Roofline pe = roofline(profile(0.958, {{"pe", 0.772}, {"dma", 0.341}}), arch);
  EXPECT_FALSE(shortens_only_unbinding_dma(pe, {{"dma"}, {"pe"}}));
  EXPECT_FALSE(shortens_only_unbinding_dma(pe, {{"dma", "pe"}, {}}));
  EXPECT_FALSE(shortens_only_unbinding_dma(pe, {}));  // the form said nothing: no evidence
}

// The sites of the plans the planner draws for a kernel, in its order, all of them.
std::vector<Site> drawn_sites(const std::string& kernel, const std::string& reference, const trn::Profile& p,
                              uint64_t seed) {
  const std::string root = ACCELOPT_SOURCE_DIR;
  TaskInfo task{"task"};
  task.kernel_args = eval::reference_arg_specs(root + "/" + reference, builtin_test::read(root + "/" + reference));
  Candidate c;
  c.id = "baseline";
  c.kernel_text = builtin_test::read(root + "/" + kernel);
  c.latency_ms = p.latency;
  c.profile = p;
  std::vector<Site> out;
  // The draw of the kernel's own sites (a two-step plan's second site is drawn on its enabler's result).
  for (const auto& plan : BuiltinPlanner(seed, true).propose(AgentContext{task, 1, "task/r1/c0"}, c, Memory{}, 1000))
    if (auto parsed = parse_plan(plan.text); !parsed->enabler) out.push_back(parsed->site);
  return out;
}

bool onto_gpsimd(const Site& s) {
  return s.transform == "engine_assign" && s.params.count("engine") && s.params.at("engine") == "gpsimd";
}

// A site some rule of the planner draws after every other (the rules of roofline.h that take no
// memory or site list).
bool drawn_last_by_a_rule(const Site& s, const Roofline& r) {
  return gains_by_clock_on_one_timeline(s.transform, s.params, r) ||
         shortens_only_unbinding_dma(r, {s.relieves, s.feeds}) ||
         overlaps_rows_without_waiting(s.transform, s.params, r) ||
         only_reorders_iterations(s.transform, s.params, {s.relieves, s.feeds}) || adds_work_past_latency(s.adds, r) ||
         leaves_a_saturated_limiter(s.transform, r, {s.relieves, s.feeds}) || fuses_where_nothing_spills(s.transform, r) ||
         moves_work_off_an_idle_engine(s.transform, s.params, r) || frees_space_nobody_waits_for(s.transform, r);
}

// Their transformations.
std::vector<std::string> draw_order(const std::string& kernel, const std::string& reference, const trn::Profile& p,
                                    uint64_t seed) {
  std::vector<std::string> out;
  for (const auto& s : drawn_sites(kernel, reference, p, seed)) out.push_back(s.transform);
  return out;
}

TEST(BuiltinRoofline, ThePlannerDrawsStoreCoalescingLastUnlessDmaBoundsTheKernel) {
  // Profiles of the two kernels as `accelopt profile --json` gives them (trn1, session 10).
  // rmsnorm_matmul: the Tensor Engine busy 0.772 of 0.958 ms, DMA 0.341 (loads 0.155, stores 0.186).
  trn::Profile pe = profile(0.9583, {{"pe", 0.7724}, {"act", 0.1924}, {"dve", 0.0677}, {"dma", 0.3414}});
  pe.hbm_read_bytes = 42008576;
  pe.hbm_write_bytes = 50331648;
  // store_rows_tiles.py at the NKIBench bmm size: 1 GiB of 2 KiB stores, DMA busy 4.11 of 5.99 ms.
  trn::Profile dma = profile(5.9915, {{"dma", 4.1079}, {"pe", 3.0427}, {"act", 2.2021}});
  dma.hbm_read_bytes = 33554432;
  dma.hbm_write_bytes = 1073741824;
  const std::string rows = "tests/kernels/store_rows_tiles.py", bmm = "nkibench/reference/bmm_B16_M4096_K64_N4096.py";
  bool first_where_dma_bounds = false;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    // PE-bound: after every other site, on either kernel (among the other sites drawn last: moves
    // onto GpSimd, which shares the Vector Engine's timeline on trn1, and jam_rows of engine round
    // trips where the kernel is not mostly waiting).
    for (const auto& order : {drawn_sites("nkibench/kernels/rmsnorm_matmul_M4096_N2048_K1024_0.py",
                                          "nkibench/reference/rmsnorm_matmul_M4096_N2048_K1024.py", pe, seed),
                              drawn_sites(rows, bmm, pe, seed)}) {
      Roofline bounds = roofline(pe, trn::arch_config("trn1"));
      auto last_placed = [&](const Site& s) {
        return s.transform == "coalesce_stores" || onto_gpsimd(s) || drawn_last_by_a_rule(s, bounds);
      };
      auto first = std::find_if(order.begin(), order.end(), last_placed);
      ASSERT_TRUE(std::any_of(order.begin(), order.end(),
                              [](const Site& s) { return s.transform == "coalesce_stores"; }))
          << "no coalesce_stores site";
      EXPECT_GT(first - order.begin(), 0);
      for (auto it = first; it != order.end(); ++it) EXPECT_TRUE(last_placed(*it)) << "drawn after it: " << it->transform;
    }
    // DMA-bound: drawn by weight among the others (store_rows offers it and pipeline_prep).
    // (jam_rows of the rows' engine round trips is offered too, weighed by the waiting: the
    // DMA-bound kernel hardly waits, so it is drawn after both.)
    auto order = draw_order(rows, bmm, dma, seed);
    order.erase(std::remove(order.begin(), order.end(), "jam_rows"), order.end());
    ASSERT_EQ(order.size(), 2u);
    first_where_dma_bounds = first_where_dma_bounds || order.front() == "coalesce_stores";
  }
  EXPECT_TRUE(first_where_dma_bounds);
}

TEST(BuiltinRoofline, AMoveOntoTheFasterClockOfOneTimelineIsDrawnAfterEveryOtherSite) {
  // The bundled mamba, Vector-Engine bound on trn1 (its `accelopt profile --json` busy times):
  // VectorE and GpSimd share one timeline, but GpSimd's clock is faster (1.4 against 1.12 GHz) for
  // the same cycles, so its three multiplies moved there can shorten it: drawn, after the rest.
  trn::Profile dve = profile(2.2085, {{"dve", 1.6824}, {"act", 0.6081}, {"pe", 0.6554}, {"dma", 0.0880}});
  const std::string kernel = "nkibench/kernels/mamba_M7168_C256_S16_0.py";
  const std::string reference = "nkibench/reference/mamba_M7168_C256_S16.py";
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<Site> order = drawn_sites(kernel, reference, dve, seed);
    auto first = std::find_if(order.begin(), order.end(), onto_gpsimd);
    ASSERT_NE(first, order.end()) << "no move onto GpSimd drawn";
    EXPECT_GT(first - order.begin(), 0);
    for (auto it = first; it != order.end(); ++it) EXPECT_TRUE(onto_gpsimd(*it)) << "drawn after it: " << it->transform;
    EXPECT_EQ(std::count_if(order.begin(), order.end(), onto_gpsimd), 3);
  }
  // Clocks decide: the reverse move, or equal clocks, cannot gain.
  Roofline v2 = roofline(dve, trn::arch_config("trn1"));
  EXPECT_TRUE(gains_by_clock_on_one_timeline("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, v2));
  EXPECT_FALSE(gains_by_clock_on_one_timeline("engine_assign", {{"engine", "vector"}, {"from", "gpsimd"}}, v2));
  v2.pool_ghz = v2.dve_ghz;
  EXPECT_FALSE(gains_by_clock_on_one_timeline("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, v2));
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
  task.peak_latency_ms = task.firm_peak_ms = 0.5;
  EXPECT_FALSE(BuiltinPlanner(1, true).propose(AgentContext{task, 1, "silu/r1/c0"}, c, memory, 4).empty());
  EXPECT_FALSE(BuiltinPlanner(1, true).at_bound(AgentContext{task, 1, "silu/r1/c0"}, c).has_value());
  // A published peak whose vector part binds is no stop: fused instructions beat it (a softmax at
  // 110% of its peak); only the matmul and HBM parts are.
  task.peak_latency_ms = 0.98;
  EXPECT_FALSE(BuiltinPlanner(1, true).at_bound(AgentContext{task, 1, "silu/r1/c0"}, c).has_value());
  task.firm_peak_ms = 0.98;
  EXPECT_TRUE(BuiltinPlanner(1, true).propose(AgentContext{task, 1, "silu/r1/c0"}, c, memory, 4).empty());
  // The loop learns why: the bound, with the figures.
  auto bound = BuiltinPlanner(1, true).at_bound(AgentContext{task, 1, "silu/r1/c0"}, c);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->kind, BoundStop::Kind::NearPeak);
  EXPECT_EQ(bound->detail, "1.0000 ms is within 3% of the task's firm peak (0.9800 ms: its matmul FLOPs and "
                           "compulsory bytes, 98.0% of it)");
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

TEST(BuiltinRoofline, WithSeparateDirectionsTheFloorIsTheBusierPathOrTheHbm) {
  // dma_directions: reads and writes each at 16 x 17 B/ns, together at most 410 B/ns. 8 MiB read
  // and 4 MiB written take 8 MiB / 272 (the read path), not 12 MiB / 272.
  trn::ArchConfig arch = trn::arch_config("trn1");
  trn::set_parameter(arch, "dma_directions", 1);
  loopnest::ArgSpec a;
  a.shape = {1024, 1024};
  uint64_t in = input_bytes({a, a});
  trn::Profile p = profile(0, {{"dma", 0}});
  p.hbm_read_bytes = in;
  p.hbm_write_bytes = 4u << 20;
  const double read_path_ms = static_cast<double>(in) / (arch.dma_bytes_per_ns() * 1e6);
  EXPECT_DOUBLE_EQ(dma_floor_ms(p, arch), read_path_ms);
  p.latency = 1.02 * read_path_ms;
  EXPECT_TRUE(at_dma_floor(p, arch, in));
  EXPECT_EQ(dma_floor_detail(p, arch),
            fmt::format("{:.4f} ms is within 5% of its HBM traffic (12.6 MB, inputs read once, no spill) at the DMA "
                        "engines' 272 B/ns per direction, 410 B/ns of HBM ({:.4f} ms)",
                        p.latency, read_path_ms));
  // Equal reads and writes: the HBM bandwidth is the bound.
  p.hbm_write_bytes = in;
  EXPECT_DOUBLE_EQ(dma_floor_ms(p, arch), 2.0 * static_cast<double>(in) / (arch.hbm_bytes_per_ns * 1e6));
  EXPECT_DOUBLE_EQ(dma_floor_ms(p, trn::arch_config("trn1")),
                   2.0 * static_cast<double>(in) / (arch.dma_bytes_per_ns() * 1e6));
}

// The simulated profile (trn1) of `kernel` on `reference`'s arguments.
trn::Profile simulated(const std::string& kernel, const std::string& reference) {
  const std::string root = ACCELOPT_SOURCE_DIR;
  eval::ProfileRun run = eval::profile_kernel(eval::trace_request_from_files(root + "/" + reference, root + "/" + kernel), "trn1");
  EXPECT_TRUE(run.profile.has_value()) << kernel;
  return run.profile.value_or(trn::Profile{});
}

// affine_loop is one header (no work added) and gains where the engines wait on each other inside a
// loop run in order. On the legacy_grid rope (its `range` loop a sequential_range to the legacy
// compiler; 4.108 ms on trn1 against 2.890 ms written affine_range) the simulated profile shows the
// waiting (the Vector Engine, the limiter, busy 2.92 of 4.11 ms), and the planner draws the move
// first whatever the seed; on a profile without waiting it is drawn by its weight like any other.
TEST(BuiltinRoofline, ThePlannerDrawsAffineLoopFirstWhereTheKernelWaits) {
  const std::string kernel = "nkibench/styles/legacy_grid/rope_single_freq_apply_B1_H64_N4096_D128_0.py",
                    reference = "nkibench/reference/rope_single_freq_apply_B1_H64_N4096_D128.py";
  trn::Profile p = simulated(kernel, reference);
  EXPECT_GT(roofline(p, trn::arch_config("trn1")).serialization, 0.15);
  trn::Profile busy = p;  // the same kernel with the Vector Engine busy all the time
  busy.engine_busy_ms["dve"] = p.latency;
  EXPECT_LT(roofline(busy, trn::arch_config("trn1")).serialization, 0.15);
  bool not_first_without_waiting = false;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    auto order = draw_order(kernel, reference, p, seed);
    ASSERT_FALSE(order.empty());
    EXPECT_EQ(order.front(), "affine_loop");
    auto without = draw_order(kernel, reference, busy, seed);
    ASSERT_NE(std::find(without.begin(), without.end(), "affine_loop"), without.end());
    not_first_without_waiting = not_first_without_waiting || without.front() != "affine_loop";
  }
  EXPECT_TRUE(not_first_without_waiting);
}

// A kernel with several loops in order offers one affine_loop site per loop and one for all of them
// (`all=N`): where the kernel waits, that one is drawn first and the single loops by their keys, so
// they no longer take a whole round's plans (a PyTorch port writing every loop `range`: four single
// headers drawn first, 0.2% gained together).
TEST(BuiltinRoofline, WhereTheKernelWaitsTheSiteForEveryLoopInOrderIsDrawnFirst) {
  const std::string kernel = "tests/kernels/spellings/expmul_range_chunks.py",
                    reference = "tests/kernels/spellings/expmul.ref.py";
  trn::Profile p = simulated(kernel, reference);
  ASSERT_GT(roofline(p, trn::arch_config("trn1")).serialization, 0.15);
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    auto drawn = drawn_sites(kernel, reference, p, seed);
    ASSERT_GE(drawn.size(), 2u);
    EXPECT_EQ(drawn.front().transform, "affine_loop");
    EXPECT_TRUE(drawn.front().params.count("all"));
  }
}

// An interchange of two loops that makes no load invariant (no `reads_saved_kib` on its site) runs
// the same instructions in another order: drawn after every other site but the other kinds drawn
// last (moves onto the faster clock of one timeline, jam_rows of engine round trips alone). One
// that saves reads is drawn like a hoist (BuiltinHoist.InterchangeLeavingLoadsInvariant...).
TEST(BuiltinRoofline, AnInterchangeThatMakesNoLoadInvariantIsDrawnAfterEveryOtherSite) {
  const std::string kernel = "nkibench/kernels/silu_M4096_N7168_0.py", reference = "nkibench/reference/silu_M4096_N7168.py";
  trn::Profile p = simulated(kernel, reference);
  Roofline bounds = roofline(p, trn::arch_config("trn1"));
  auto drawn_last_anyway = [&](const Site& s) {
    return onto_gpsimd(s) || loopnest::overlaps_rows_only(s.transform, s.params) ||
           only_reorders_iterations(s.transform, s.params, {s.relieves, s.feeds}) ||
           leaves_a_saturated_limiter(s.transform, bounds, {s.relieves, s.feeds});
  };
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<Site> order = drawn_sites(kernel, reference, p, seed);
    auto swap = std::find_if(order.begin(), order.end(), [](const Site& s) { return s.transform == "interchange_loops"; });
    ASSERT_NE(swap, order.end()) << "the silu's row/column swap is still drawn";
    EXPECT_FALSE(swap->params.count("reads_saved_kib"));
    EXPECT_GT(swap - order.begin(), 3);
    for (auto it = swap; it != order.end(); ++it) EXPECT_TRUE(drawn_last_anyway(*it)) << "drawn after it: " << it->key();
  }
  EXPECT_TRUE(only_reorders_iterations("interchange_loops", {{"depth", "0"}}, {}));
  EXPECT_FALSE(only_reorders_iterations("interchange_loops", {{"depth", "0"}, {"reads_saved_kib", "214144"}}, {}));
  EXPECT_FALSE(only_reorders_iterations("reuse_operand", {{"depth", "0"}}, {}));
  // A column loop run in order (Python `range` in the legacy API) inside an affine row loop: the swap
  // changes what may overlap, its site says so ("serial") and is drawn by key.
  const std::string range_cols = "tests/kernels/expmul_affine_rows_range_cols.py", expmul = "tests/kernels/spellings/expmul.ref.py";
  const std::string root = ACCELOPT_SOURCE_DIR;
  auto args = eval::reference_arg_specs(root + "/" + expmul, builtin_test::read(root + "/" + expmul));
  bool found = false;
  for (const Site& s : find_sites(builtin_test::read(root + "/" + range_cols), args)) {
    if (s.transform != "interchange_loops") continue;
    found = true;
    EXPECT_TRUE(s.relieves.count("serial")) << s.key();
    EXPECT_FALSE(only_reorders_iterations(s.transform, s.params, {s.relieves, s.feeds}));
  }
  EXPECT_TRUE(found) << "no interchange of the range chunks";
}

// A reorder_reuse back (tests/kernels/matmul_rows_outer.py: the bundled matmul with its rows made
// outer; each site makes the column blocks outer again and transposes each row once per block,
// Site::adds pe 1.08-1.44) on a kernel whose Tensor Engine is busy 97% of the time: the engine alone would
// then take longer than the whole kernel does now, so the move cannot gain (the stored runs' 28 such
// draws all lost). Drawn after every other site. With the kernel's own profile (DMA-bound, the
// Tensor Engine busy 69%: 1.44 x 0.69 < 1) the same sites are drawn by key.
TEST(BuiltinRoofline, AMoveThatAddsWorkPastTheLatencyToAnEngineIsDrawnAfterEveryOtherSite) {
  const std::string kernel = "tests/kernels/matmul_rows_outer.py",
                    reference = "nkibench/reference/matmul_M4096_N12288_K5120.py";
  const auto& arch = trn::arch_config("trn1");
  trn::Profile pe_bound = profile(26.02, {{"pe", 25.25}, {"act", 3.10}, {"dma", 9.10}});
  // `accelopt profile --reference <reference> --kernel <kernel> --json` (trn1, session 34).
  trn::Profile own = profile(32.759, {{"dma", 32.657}, {"pe", 22.587}, {"act", 0.602}});
  EXPECT_TRUE(adds_work_past_latency({{"pe", 1.08}}, roofline(pe_bound, arch)));
  EXPECT_FALSE(adds_work_past_latency({{"pe", 1.44}}, roofline(own, arch)));
  EXPECT_FALSE(adds_work_past_latency({{"dve", 4.12}}, roofline(pe_bound, arch)));  // the copies' engine idle
  // Every reorder_reuse site of this kernel reorders back (the plans drawn carry the key, not the
  // evidence: the test checks it on the sites the planner saw).
  const std::string root = ACCELOPT_SOURCE_DIR;
  auto args = eval::reference_arg_specs(root + "/" + reference, builtin_test::read(root + "/" + reference));
  for (const Site& s : find_sites(builtin_test::read(root + "/" + kernel), args))
    if (s.transform == "reorder_reuse") EXPECT_GE(s.adds.count("pe"), 1u) << s.key();
  auto adds = [](const Site& s) { return s.transform == "reorder_reuse"; };
  bool by_key_in_own = false;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<Site> order = drawn_sites(kernel, reference, pe_bound, seed);
    auto first = std::find_if(order.begin(), order.end(), adds);
    ASSERT_NE(first, order.end()) << "no reorder back drawn";
    EXPECT_GT(first - order.begin(), 3);
    for (auto it = first; it != order.end(); ++it)
      EXPECT_TRUE(adds(*it) || onto_gpsimd(*it) || loopnest::overlaps_rows_only(it->transform, it->params) ||
                  only_reorders_iterations(it->transform, it->params, {it->relieves, it->feeds}))
          << "drawn after it: " << it->key();
    std::vector<Site> mine = drawn_sites(kernel, reference, own, seed);
    auto last_adds = std::find_if(mine.rbegin(), mine.rend(), adds);
    ASSERT_NE(last_adds, mine.rend());
    by_key_in_own = by_key_in_own || std::any_of(mine.rbegin(), last_adds, [](const Site& s) {
                      return !onto_gpsimd(s) && !loopnest::overlaps_rows_only(s.transform, s.params);
                    });
  }
  EXPECT_TRUE(by_key_in_own) << "with the Tensor Engine 69% busy a reorder back is drawn among the others";
}

// A family busy for 99% of the latency bounds it: a site that takes none of its work can win at most
// 1%. The Tensor Engine of the bundled matmul's best (trn1, session 34's run: 22.59 of 22.62 ms) is
// saturated: jam_rows of the row loop, which shares the column block's load (the form says: dma),
// and the overlap-only jams take none of its work and are drawn last; at 97% busy (3% to win) they
// are drawn as before.
TEST(BuiltinRoofline, ASiteThatTakesNoWorkOffASaturatedLimiterIsDrawnAfterEveryOtherSite) {
  const auto& arch = trn::arch_config("trn1");
  trn::Profile saturated = profile(22.62, {{"pe", 22.59}, {"dma", 8.52}, {"act", 0.60}});
  trn::Profile near = profile(23.29, {{"pe", 22.59}, {"dma", 8.52}, {"act", 0.60}});
  Roofline r = roofline(saturated, arch);
  EXPECT_TRUE(leaves_a_saturated_limiter("jam_rows", r, {{"dma"}, {"pe"}}));
  EXPECT_TRUE(leaves_a_saturated_limiter("in_place", r, {}));      // the table: serial
  EXPECT_FALSE(leaves_a_saturated_limiter("jam_rows", r, {{"dma", "pe"}, {}}));  // shares a transpose
  EXPECT_FALSE(leaves_a_saturated_limiter("reorder_reuse", r, {}));  // the table: pe, dma
  EXPECT_FALSE(leaves_a_saturated_limiter("engine_assign", r, {}));  // weighted by the busy gap
  EXPECT_FALSE(leaves_a_saturated_limiter("no_such_move", r, {}));   // says nothing: by key
  EXPECT_FALSE(leaves_a_saturated_limiter("jam_rows", roofline(near, arch), {{"dma"}, {}}));
  // On NC-v2 the Vector Engine and GpSimd share one timeline: work off either relieves it.
  Roofline vector = roofline(profile(1.0, {{"dve", 0.80}, {"pool", 0.195}}), arch);
  EXPECT_FALSE(leaves_a_saturated_limiter("fill_partitions", vector, {{"pool"}, {}}));
  EXPECT_TRUE(leaves_a_saturated_limiter("hoist_expand", vector, {{"dma"}, {}}));

  // The sites of a matmul whose rows are the outer loop: each jam's form says what it shares (the
  // column block's load: dma) or that it only overlaps rows (serial), never Tensor Engine work.
  const std::string root = ACCELOPT_SOURCE_DIR, reference = "nkibench/reference/matmul_M4096_N12288_K5120.py";
  auto args = eval::reference_arg_specs(root + "/" + reference, builtin_test::read(root + "/" + reference));
  int jams = 0;
  for (const Site& s : find_sites(builtin_test::read(root + "/tests/kernels/matmul_rows_outer.py"), args)) {
    if (s.transform != "jam_rows") continue;
    ++jams;
    EXPECT_TRUE(leaves_a_saturated_limiter(s.transform, r, {s.relieves, s.feeds})) << s.key();
    EXPECT_FALSE(leaves_a_saturated_limiter(s.transform, roofline(near, arch), {s.relieves, s.feeds})) << s.key();
  }
  EXPECT_GE(jams, 2);
}

// fuse_nests gains by the spill it removes: on the bundled bmm_softmax as written (its score rows
// spill, 772 MB: session 34's run, 2.05x from the fusion) it is drawn by key among the first plans;
// on the same profile without spill it is drawn after every other site.
TEST(BuiltinRoofline, FusingNestsIsDrawnAfterEveryOtherSiteWhereNothingSpills) {
  const auto& arch = trn::arch_config("trn1");
  const std::string kernel = "nkibench/kernels/bmm_softmax_B16_K64_M4096_N4096_0.py",
                    reference = "nkibench/reference/bmm_softmax_B16_K64_M4096_N4096.py";
  trn::Profile spilling = profile(11.561, {{"dma", 9.88}, {"dve", 5.00}, {"act", 4.10}, {"pe", 3.04}});
  spilling.spill_save_bytes = spilling.spill_reload_bytes = 385900000;
  trn::Profile fits = spilling;
  fits.spill_save_bytes = fits.spill_reload_bytes = 0;
  EXPECT_FALSE(fuses_where_nothing_spills("fuse_nests", roofline(spilling, arch)));
  EXPECT_TRUE(fuses_where_nothing_spills("fuse_nests", roofline(fits, arch)));
  EXPECT_FALSE(fuses_where_nothing_spills("fuse_stages", roofline(fits, arch)));
  auto fuse = [](const Site& s) { return s.transform == "fuse_nests"; };
  Roofline bounds = roofline(fits, arch);
  auto drawn_last_anyway = [&](const Site& s) { return fuse(s) || onto_gpsimd(s) || drawn_last_by_a_rule(s, bounds); };
  bool early_when_spilling = false;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<Site> order = drawn_sites(kernel, reference, fits, seed);
    auto first = std::find_if(order.begin(), order.end(), fuse);
    ASSERT_NE(first, order.end()) << "the bundled bmm_softmax offers fuse_nests";
    for (auto it = first; it != order.end(); ++it) EXPECT_TRUE(drawn_last_anyway(*it)) << "drawn after it: " << it->key();
    std::vector<Site> mine = drawn_sites(kernel, reference, spilling, seed);
    auto at = std::find_if(mine.begin(), mine.end(), fuse);
    early_when_spilling = early_when_spilling || (at != mine.end() && at - mine.begin() < 4);
  }
  EXPECT_TRUE(early_when_spilling) << "where the rows spill, fusion is among a round's first plans";
}

// An engine move off a family that neither bounds the kernel nor is busy half the time cannot move
// the latency: on the bundled rmsnorm_matmul (Tensor Engine 0.772 of 0.958 ms, VectorE 0.068,
// ScalarE 0.192) every VectorE/ScalarE move is drawn after every other site; off the limiter, or
// off an engine busy most of the time, it is drawn by its busy-gap weight as before.
TEST(BuiltinRoofline, AnEngineMoveOffAnIdleEngineThatIsNotTheLimiterIsDrawnLast) {
  const auto& arch = trn::arch_config("trn1");
  Roofline pe = roofline(profile(0.9583, {{"pe", 0.7724}, {"act", 0.1924}, {"dve", 0.0677}, {"dma", 0.3414}}), arch);
  EXPECT_TRUE(moves_work_off_an_idle_engine("engine_assign", {{"engine", "scalar"}, {"from", "vector"}}, pe));
  EXPECT_TRUE(moves_work_off_an_idle_engine("engine_move", {{"engine", "vector"}, {"from", "scalar"}}, pe));
  EXPECT_FALSE(moves_work_off_an_idle_engine("engine_assign", {{"engine", "scalar"}}, pe));  // no source: by weight
  EXPECT_FALSE(moves_work_off_an_idle_engine("fold_bias", {{"from", "vector"}}, pe));
  Roofline dve = roofline(profile(1.0, {{"dve", 0.45}, {"pool", 0.40}, {"dma", 0.3}}), arch);
  EXPECT_FALSE(moves_work_off_an_idle_engine("engine_assign", {{"engine", "gpsimd"}, {"from", "vector"}}, dve));
  Roofline dma = roofline(profile(1.0, {{"dma", 0.95}, {"dve", 0.76}, {"act", 0.3}}), arch);
  EXPECT_FALSE(moves_work_off_an_idle_engine("engine_assign", {{"engine", "scalar"}, {"from", "vector"}}, dma));
  EXPECT_TRUE(moves_work_off_an_idle_engine("engine_assign", {{"engine", "vector"}, {"from", "scalar"}}, dma));

  trn::Profile p = profile(0.9583, {{"pe", 0.7724}, {"act", 0.1924}, {"dve", 0.0677}, {"dma", 0.3414}});
  const std::string kernel = "nkibench/kernels/rmsnorm_matmul_M4096_N2048_K1024_0.py",
                    reference = "nkibench/reference/rmsnorm_matmul_M4096_N2048_K1024.py";
  auto idle_move = [&](const Site& s) { return moves_work_off_an_idle_engine(s.transform, s.params, pe); };
  int seen = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<Site> order = drawn_sites(kernel, reference, p, seed);
    auto first = std::find_if(order.begin(), order.end(), idle_move);
    if (first == order.end()) continue;
    ++seen;
    for (auto it = first; it != order.end(); ++it)
      EXPECT_TRUE(onto_gpsimd(*it) || drawn_last_by_a_rule(*it, pe)) << "drawn after an idle engine's move: " << it->key();
  }
  EXPECT_GT(seen, 0) << "rmsnorm_matmul offers VectorE / ScalarE moves";
}

// The simulator's SBUF space wait (trn::Profile::sbuf_space_wait_ms) as a symptom and in the roofline:
// `space_bound` from 5% of the latency on; below it in_place (whose only effect is a smaller
// footprint) cannot start anything earlier and is drawn last; a real profiler's profile, which does
// not measure the wait, says nothing either way.
TEST(BuiltinRoofline, SpaceWaitShareMakesTheSpaceBoundSymptomAndDrawsInPlaceLastBelowIt) {
  const auto& arch = trn::arch_config("trn1");
  trn::Profile p = profile(1.0, {{"dve", 0.5}, {"dma", 0.4}});
  EXPECT_FALSE(space_wait_share(p));
  EXPECT_FALSE(diagnose(p).count("space_bound"));
  EXPECT_FALSE(frees_space_nobody_waits_for("in_place", roofline(p, arch)));  // unknown: drawn by key
  p.sbuf_space_wait_ms = 0.0;
  EXPECT_TRUE(frees_space_nobody_waits_for("in_place", roofline(p, arch)));
  EXPECT_FALSE(frees_space_nobody_waits_for("chunk_rows", roofline(p, arch)));  // gains without any wait
  p.sbuf_space_wait_ms = 0.04;
  EXPECT_FALSE(diagnose(p).count("space_bound"));
  EXPECT_TRUE(frees_space_nobody_waits_for("in_place", roofline(p, arch)));
  p.sbuf_space_wait_ms = 0.3;
  EXPECT_TRUE(diagnose(p).count("space_bound"));
  EXPECT_FALSE(frees_space_nobody_waits_for("in_place", roofline(p, arch)));
  EXPECT_EQ(space_wait_share(p).value_or(-1), 0.3);
}

// whole_rows.py (tests/kernels/space_wait): three live 48 KiB tiles of a row fill the SBUF partition
// and the next row's loads wait for space: with SBUF to spare the run is 31% shorter. On its
// simulated profile in_place is drawn by its weight, somewhere before the sites drawn last; on the
// same profile with no space wait it comes after every site drawn by key.
TEST(BuiltinRoofline, InPlaceIsDrawnByWeightWhereTheKernelWaitsOnSpaceAndLastWhereItDoesNot) {
  const std::string kernel = "tests/kernels/space_wait/whole_rows.py", reference = "tests/kernels/space_wait/rows.ref.py";
  trn::Profile waiting = simulated(kernel, reference);
  ASSERT_TRUE(waiting.sbuf_space_wait_ms);
  ASSERT_GT(*waiting.sbuf_space_wait_ms, 0.25 * waiting.latency);
  trn::Profile none = waiting;
  none.sbuf_space_wait_ms = 0.0;
  const Roofline r = roofline(none, trn::arch_config("trn1"));
  auto drawn_last_anyway = [&](const Site& s) {
    return s.transform == "in_place" || onto_gpsimd(s) || loopnest::overlaps_rows_only(s.transform, s.params) ||
           only_reorders_iterations(s.transform, s.params, {s.relieves, s.feeds}) ||
           shortens_only_unbinding_dma(r, {s.relieves, s.feeds});
  };
  bool before_others = false;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<Site> last = drawn_sites(kernel, reference, none, seed);
    auto first = std::find_if(last.begin(), last.end(), [](const Site& s) { return s.transform == "in_place"; });
    ASSERT_NE(first, last.end()) << "whole_rows offers in_place";
    for (auto it = first; it != last.end(); ++it) EXPECT_TRUE(drawn_last_anyway(*it)) << "drawn after it: " << it->key();
    std::vector<Site> order = drawn_sites(kernel, reference, waiting, seed);
    auto mine = std::find_if(order.begin(), order.end(), [](const Site& s) { return s.transform == "in_place"; });
    ASSERT_NE(mine, order.end());
    before_others = before_others || std::any_of(mine, order.end(), [&](const Site& s) { return !drawn_last_anyway(s); });
  }
  EXPECT_TRUE(before_others) << "in_place never drawn before another site on a kernel waiting on space";
}

}  // namespace
}  // namespace agents::builtin
