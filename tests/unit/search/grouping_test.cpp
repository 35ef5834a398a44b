#include "search/grouping.h"

#include <gtest/gtest.h>

namespace search {
namespace {

KernelResult result(size_t c, size_t p, double latency, bool correct = true, std::string code = "") {
  KernelResult r;
  r.candidate = c, r.plan = p;
  r.latency_ms = latency;
  r.correct = correct;
  r.code = code.empty() ? "k" + std::to_string(c) + std::to_string(p) + std::to_string(latency) : code;
  r.id = r.code;
  return r;
}

std::vector<std::vector<agents::Plan>> plans(size_t candidates, size_t n) {
  std::vector<std::vector<agents::Plan>> out(candidates);
  for (auto& v : out)
    for (size_t i = 0; i < n; ++i) v.push_back({"plan " + std::to_string(i), ""});
  return out;
}

TEST(FindRewrites, ThresholdsDecidePositiveNegativeOrNothing) {
  std::vector<agents::Candidate> beam = {{"c0", "C0", 1.0, std::nullopt}};
  std::vector<KernelResult> results = {
      result(0, 0, 1.0 / 1.04),  // exactly t_pos faster: positive
      result(0, 1, 0.99),        // within thresholds: nothing
      result(0, 2, 1.15),        // exactly t_neg slower: negative
      result(0, 3, 1.14),        // slower but under t_neg: nothing
  };
  auto pairs = find_rewrites(beam, plans(1, 4), results, 1.04, 1.15, "silu", 3);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_TRUE(pairs[0].positive);
  EXPECT_EQ(pairs[0].slow_code, "C0");
  EXPECT_EQ(pairs[0].plan.title, "plan 0");
  EXPECT_EQ(pairs[0].round, 3);
  EXPECT_FALSE(pairs[1].positive);
  EXPECT_EQ(pairs[1].fast_code, "C0");
  EXPECT_DOUBLE_EQ(pairs[1].slow_latency_ms, 1.15);
  EXPECT_NEAR(pairs[1].speedup(), 1.15, 1e-12);
}

TEST(FindRewrites, UsesTheBestCorrectKernelOfEachGroup) {
  std::vector<agents::Candidate> beam = {{"c0", "C0", 2.0, std::nullopt}};
  std::vector<KernelResult> results = {result(0, 0, 1.9), result(0, 0, 1.0, true, "BEST"), result(0, 0, 0.1, false)};
  auto pairs = find_rewrites(beam, plans(1, 1), results, 1.04, 1.15, "t", 1);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].fast_code, "BEST");
  EXPECT_DOUBLE_EQ(pairs[0].speedup(), 2.0);
}

TEST(FindRewrites, GroupWithoutCorrectKernelGivesNoPair) {
  std::vector<agents::Candidate> beam = {{"c0", "C0", 2.0, std::nullopt}};
  auto pairs = find_rewrites(beam, plans(1, 1), {result(0, 0, 0.5, false)}, 1.04, 1.15, "t", 1);
  EXPECT_TRUE(pairs.empty());
}

TEST(TopPairs, LargestMagnitudeFirstAcrossKinds) {
  std::vector<agents::RewritePair> pairs(3);
  pairs[0].slow_latency_ms = 1.2, pairs[0].fast_latency_ms = 1.0;
  pairs[1].slow_latency_ms = 3.0, pairs[1].fast_latency_ms = 1.0, pairs[1].positive = false;
  pairs[2].slow_latency_ms = 2.0, pairs[2].fast_latency_ms = 1.0;
  auto top = top_pairs(pairs, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_DOUBLE_EQ(top[0].speedup(), 3.0);
  EXPECT_DOUBLE_EQ(top[1].speedup(), 2.0);
  EXPECT_TRUE(top_pairs(pairs, 0).empty());
}

TEST(SelectBeam, BestPerBranchThenFastest) {
  std::vector<agents::Candidate> beam = {{"c0", "C0", 1.0, std::nullopt}, {"c1", "C1", 3.0, std::nullopt}};
  std::vector<KernelResult> results = {
      result(0, 0, 0.5, true, "A"), result(0, 0, 0.4, true, "A_BETTER"),  // same branch: only the best
      result(0, 1, 0.8, true, "B"), result(1, 0, 0.1, false, "WRONG"),   // incorrect: never selected
      result(1, 0, 2.0, true, "C"),
  };
  auto next = select_beam(beam, results, 3);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0].kernel_text, "A_BETTER");
  EXPECT_EQ(next[1].kernel_text, "B");
  EXPECT_EQ(next[2].kernel_text, "C0");
}

TEST(SelectBeam, KeepsOldCandidatesWhenNothingIsBetterAndDropsDuplicates) {
  std::vector<agents::Candidate> beam = {{"c0", "C0", 1.0, std::nullopt}};
  std::vector<KernelResult> results = {result(0, 0, 1.0, true, "C0"), result(0, 1, 5.0, true, "SLOW")};
  auto next = select_beam(beam, results, 6);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0].id, "c0");  // the tie goes to the old candidate, the identical copy is dropped
  EXPECT_EQ(next[1].kernel_text, "SLOW");
}


// A simulated profile: `dma_ms` of DMA time, the rest fixed.
trn::Profile profile(double latency, double dma_ms, uint64_t instructions = 100) {
  trn::Profile p;
  p.latency = latency;
  p.instructions = instructions;
  p.hbm_read_bytes = 1 << 20, p.hbm_write_bytes = 1 << 20;
  p.engine_busy_ms = {{"dma", dma_ms}, {"pe", 0.5}};
  return p;
}

KernelResult profiled(size_t c, size_t p, const std::string& code, const trn::Profile& prof) {
  KernelResult r = result(c, p, prof.latency, true, code);
  r.profile = prof;
  return r;
}

TEST(SameEvaluation, EqualUpToRoundingOnlyWhenBothAreProfiled) {
  agents::Candidate a{"a", "A", 1.0, profile(1.0, 0.8)};
  agents::Candidate b{"b", "B", 1.0 + 1e-13, profile(1.0 + 1e-13, 0.8 - 1e-13)};  // summed in another order
  EXPECT_TRUE(same_evaluation(a, b));
  agents::Candidate slower{"c", "C", 1.0001, profile(1.0001, 0.8)};
  EXPECT_FALSE(same_evaluation(a, slower));
  agents::Candidate other_dma{"d", "D", 1.0, profile(1.0, 0.7)};  // same latency, another schedule
  EXPECT_FALSE(same_evaluation(a, other_dma));
  agents::Candidate more_instructions{"e", "E", 1.0, profile(1.0, 0.8, 101)};
  EXPECT_FALSE(same_evaluation(a, more_instructions));
  agents::Candidate unprofiled{"f", "F", 1.0, std::nullopt};  // a latency alone says too little
  EXPECT_FALSE(same_evaluation(unprofiled, unprofiled));
}

TEST(SelectBeam, ATwinTakesASlotOnlyWhenNoOtherKernelIsLeft) {
  std::vector<agents::Candidate> beam = {{"c0", "C0", 2.0, profile(2.0, 1.5)}};
  std::vector<KernelResult> results = {
      profiled(0, 0, "ROW0", profile(1.0, 0.8)),  // one move on two symmetric copies:
      profiled(0, 1, "ROW1", profile(1.0, 0.8)),  // the same schedule
      profiled(0, 2, "OTHER", profile(1.2, 0.9)),
  };
  auto next = select_beam(beam, results, 2);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0].kernel_text, "ROW0");
  EXPECT_EQ(next[1].kernel_text, "OTHER");  // not ROW1, though faster
  // A beam wider than the distinct kernels takes the twin last, still fastest first.
  next = select_beam(beam, results, 4);
  ASSERT_EQ(next.size(), 4u);
  EXPECT_EQ(next[0].kernel_text, "ROW0");
  EXPECT_EQ(next[1].kernel_text, "ROW1");
  EXPECT_EQ(next[2].kernel_text, "OTHER");
  EXPECT_EQ(next[3].kernel_text, "C0");
  // Without profiles (nothing to tell twins by) the selection is by latency alone.
  for (auto& r : results) r.profile.reset();
  next = select_beam(beam, results, 2);
  EXPECT_EQ(next[1].kernel_text, "ROW1");
}

}  // namespace
}  // namespace search
