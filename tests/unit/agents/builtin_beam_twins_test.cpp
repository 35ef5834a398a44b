// Twins in the beam (search/grouping.h, same_evaluation). After jam_rows of four rows,
// coalescing the stores of one row or of another is the same schedule: the results evaluate
// alike. A beam of two that keeps two of them spends its next round twice on one kernel and drops
// every other branch: a held-out bmm lost the chain jam_rows(2) -> coalesce_stores -> hoist_expand
// that way between sessions 11 and 12 (1.473x -> 1.322x; docs/performance/builtin_agent.md). The
// kernels are one bmm nest in three styles (tests/kernels/bmm_reload_rows_{tiles,grid,api}.py),
// rewritten by the built-in catalogue and profiled on the simulator (trace only: the moves'
// numerics are held by the rewrite tests).
#include <gtest/gtest.h>

#include "agents/builtin/transform.h"
#include "builtin_test_support.h"
#include "eval/profile_run.h"
#include "search/grouping.h"
#include "trn/arch_config.h"
#include "support/test_paths.h"

namespace agents::builtin {
namespace {

const std::string kDir = std::string(ACCELOPT_SOURCE_DIR) + "/tests/kernels/";

struct Shape {
  std::string reference;
  std::vector<loopnest::ArgSpec> args;
};

Shape shape(const std::string& reference_file) {
  std::string path = kDir + reference_file;
  return {path, eval::reference_arg_specs(path, builtin_test::read(path))};
}

// trn1 with each DMA transfer sharing only the core's capacity (`dma_engine_occupancy` off): the
// tall fixture's rhs loads are 64-partition transfers, which since session 25 take turns on their
// 8 engines, and then coalescing row 2's or row 3's stores is 0.1% apart (row 3's stores wait for
// later results), so the round has no exact twins; the beam's rule, not that price, is under test.
const trn::ArchConfig& twin_arch() {
  static const trn::ArchConfig arch = [] {
    trn::ArchConfig a = trn::arch_config("trn1");
    trn::set_parameter(a, "dma_engine_occupancy", 0);
    return a;
  }();
  return arch;
}

Candidate evaluated(const Shape& s, const std::string& id, const std::string& text) {
  eval::TraceRequest request{"kernel.py", text, eval::reference_kernel_args(s.reference, builtin_test::read(s.reference), eval::default_limits())};
  eval::ProfileRun run = eval::profile_kernel(request, twin_arch());
  if (!run.profile) ADD_FAILURE() << id << ": " << (run.diagnostics.empty() ? "no profile" : run.diagnostics[0]);
  return {id, text, run.profile ? run.profile->latency : 0, run.profile};
}

// The kernel after one jam_rows site of the given factor.
std::string jammed(const Shape& s, const std::string& text, const std::string& factor) {
  for (const auto& site : find_sites(text, s.args))
    if (site.transform == "jam_rows" && site.params.at("factor") == factor) return apply_site(text, site, s.args);
  ADD_FAILURE() << "no jam_rows site of factor " << factor;
  return text;
}

// One round's outcome: every site of each beam candidate applied (a branch per site) and profiled.
std::vector<search::KernelResult> every_child(const Shape& s, const std::vector<Candidate>& beam) {
  std::vector<search::KernelResult> out;
  for (size_t c = 0; c < beam.size(); ++c) {
    std::vector<Site> sites = find_sites(beam[c].kernel_text, s.args);
    for (size_t p = 0; p < sites.size(); ++p) {
      std::string id = beam[c].id + " + " + sites[p].key();
      Candidate k = evaluated(s, id, apply_site(beam[c].kernel_text, sites[p], s.args));
      out.push_back({c, p, 0, id, k.kernel_text, "ok", k.latency_ms > 0, k.latency_ms, k.profile});
    }
  }
  return out;
}

TEST(BuiltinBeamTwins, AJamOfFourRowsMakesItsStoreCoalescingsTwinsInEveryStyle) {
  Shape s = shape("bmm_reload_rows.ref.py");
  for (const char* style : {"tiles", "grid", "api"}) {
    SCOPED_TRACE(style);
    std::string four = jammed(s, builtin_test::read(kDir + "bmm_reload_rows_" + style + ".py"), "4");
    std::vector<Candidate> coalesced;
    for (const auto& site : find_sites(four, s.args))
      if (site.transform == "coalesce_stores" && !site.params.count("stores"))
        coalesced.push_back(evaluated(s, site.key(), apply_site(four, site, s.args)));
    ASSERT_EQ(coalesced.size(), 4u);  // one per jammed row
    // Coalescing row 0's or row 1's stores evaluates alike, and row 2's or row 3's.
    int twins = 0;
    for (size_t i = 0; i < coalesced.size(); ++i)
      for (size_t j = i + 1; j < coalesced.size(); ++j) {
        EXPECT_NE(coalesced[i].kernel_text, coalesced[j].kernel_text);
        twins += search::same_evaluation(coalesced[i], coalesced[j]) ? 1 : 0;
      }
    EXPECT_EQ(twins, 2);
    EXPECT_TRUE(search::same_evaluation(coalesced[0], coalesced[1]));
    EXPECT_FALSE(search::same_evaluation(coalesced[1], coalesced[2]));
    // The kernel they came from is no twin of any (more stores, other DMA time).
    EXPECT_FALSE(search::same_evaluation(evaluated(s, "four", four), coalesced[0]));
  }
}

TEST(BuiltinBeamTwins, TheNextBeamHoldsTwoSchedulesWhereTwinsWouldFillIt) {
  // 32 row tiles and 8 column blocks per batch, as the held-out bmm: the coalescings after a jam
  // of four are the round's fastest kernels, two pairs of twins. (The grid style spells the small
  // shape's sizes as literals.)
  Shape s = shape("bmm_reload_rows_tall.ref.py");
  for (const char* style : {"tiles", "api"}) {
    SCOPED_TRACE(style);
    std::string text = builtin_test::read(kDir + "bmm_reload_rows_" + style + ".py");
    std::vector<Candidate> beam = {evaluated(s, "jam4", jammed(s, text, "4")), evaluated(s, "jam2", jammed(s, text, "2"))};
    std::vector<search::KernelResult> results = every_child(s, beam);

    // Blind to profiles (the rule before twins), the beam of two is one schedule twice.
    std::vector<search::KernelResult> blind = results;
    std::vector<Candidate> blind_beam = beam;
    for (auto& r : blind) r.profile.reset();
    for (auto& c : blind_beam) c.profile.reset();
    std::vector<Candidate> crowded = search::select_beam(blind_beam, blind, 2);
    ASSERT_EQ(crowded.size(), 2u);
    const search::KernelResult* first = nullptr;
    const search::KernelResult* second = nullptr;
    for (const auto& r : results) {
      if (r.code == crowded[0].kernel_text) first = &r;
      if (r.code == crowded[1].kernel_text) second = &r;
    }
    ASSERT_TRUE(first && second);
    EXPECT_TRUE(search::same_evaluation({first->id, first->code, first->latency_ms, first->profile},
                                        {second->id, second->code, second->latency_ms, second->profile}))
        << crowded[0].id << " / " << crowded[1].id;

    // With twins apart: the fastest kernel first, then the fastest one that is not its twin.
    std::vector<Candidate> next = search::select_beam(beam, results, 2);
    ASSERT_EQ(next.size(), 2u);
    EXPECT_EQ(next[0].kernel_text, crowded[0].kernel_text);
    EXPECT_FALSE(search::same_evaluation(next[0], next[1])) << next[0].id << " / " << next[1].id;
    for (const auto& r : results) {
      Candidate c{r.id, r.code, r.latency_ms, r.profile};
      if (r.code != next[0].kernel_text && !search::same_evaluation(c, next[0]))
        EXPECT_GE(r.latency_ms, next[1].latency_ms) << r.id;
    }
  }
}

}  // namespace
}  // namespace agents::builtin
