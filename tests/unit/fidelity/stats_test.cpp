// The suite's statistics: Kendall tau-b, step directions, ladder summaries and the guard.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "fidelity/band.h"
#include "fidelity/report.h"
#include "fidelity/stats.h"

namespace {

TEST(FidelityStats, KendallTauB) {
  EXPECT_DOUBLE_EQ(fidelity::kendall_tau_b({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(fidelity::kendall_tau_b({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  // One discordant pair of six: (5 - 1) / 6.
  EXPECT_NEAR(fidelity::kendall_tau_b({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6.0, 1e-12);
  // Ties: x = (1, 1, 2), y = (1, 2, 3): concordant 2, tied in x 1 -> 2 / sqrt(2 * 3).
  EXPECT_NEAR(fidelity::kendall_tau_b({1, 1, 2}, {1, 2, 3}), 2.0 / std::sqrt(6.0), 1e-12);
  EXPECT_TRUE(std::isnan(fidelity::kendall_tau_b({1}, {1})));
  EXPECT_TRUE(std::isnan(fidelity::kendall_tau_b({1, 2}, {5, 5})));
}

TEST(FidelityStats, MedianAndQuantile) {
  EXPECT_DOUBLE_EQ(fidelity::median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(fidelity::median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(fidelity::median({}), 0);
  EXPECT_DOUBLE_EQ(fidelity::quantile({0, 10}, 0.1), 1);
  EXPECT_DOUBLE_EQ(fidelity::quantile({5, 0, 10}, 0.5), 5);
  EXPECT_DOUBLE_EQ(fidelity::quantile({7}, 0.9), 7);
}

TEST(FidelityStats, StepsWithinTwoPercentAreFlat) {
  EXPECT_EQ(fidelity::direction(100, 101.9), 0);
  EXPECT_EQ(fidelity::direction(100, 98.1), 0);
  EXPECT_EQ(fidelity::direction(100, 103), 1);
  EXPECT_EQ(fidelity::direction(100, 50), -1);
}

// A ladder of three entries (and one standalone entry) with given measured/simulated times.
struct Fixture {
  std::vector<fidelity::Entry> entries;
  std::vector<fidelity::EntryResult> results;
  Fixture(std::vector<std::pair<double, double>> ladder, bool running_last = true) {
    entries.reserve(ladder.size() + 1);
    for (size_t i = 0; i < ladder.size(); ++i) {
      fidelity::Entry e;
      e.group = "ladder";
      e.name = "v" + std::to_string(i);
      e.ladder = true;
      e.gen = "trn1";
      e.metric = fidelity::Metric::ProfileTotal;
      entries.push_back(e);
    }
    fidelity::Entry solo;
    solo.group = "micro";
    solo.name = "solo";
    solo.gen = "trn2";
    solo.role = fidelity::Role::Calibrate;
    entries.push_back(solo);
    for (size_t i = 0; i < entries.size(); ++i) {
      fidelity::EntryResult r;
      r.entry = &entries[i];
      double real = i < ladder.size() ? ladder[i].first : 10, sim = i < ladder.size() ? ladder[i].second : 20;
      r.measured_us = real;
      bool runs = running_last || i + 2 != entries.size();
      if (runs) {
        trn::Profile p;
        p.latency = sim / 1e3;
        r.profile = p;
        r.simulated_us = sim;
      }
      results.push_back(r);
    }
  }
};

TEST(FidelityStats, LadderSummary) {
  Fixture f({{100, 100}, {50, 80}, {40, 90}});
  fidelity::Summary s = fidelity::summarize(f.results);
  ASSERT_EQ(s.ladders.size(), 1u);
  const auto& l = s.ladders[0];
  EXPECT_EQ(l.name, "ladder");
  EXPECT_EQ(l.compared, 3);
  EXPECT_NEAR(l.tau, 1.0 / 3.0, 1e-12);  // pairs: (0,1) +, (0,2) +, (1,2) -
  ASSERT_EQ(l.steps.size(), 2u);
  EXPECT_TRUE(l.steps[0].match());
  EXPECT_FALSE(l.steps[1].match());  // device 20% faster, model 12.5% slower
  EXPECT_EQ(l.pairs, 3);
  EXPECT_EQ(l.pairs_agree, 2);
  EXPECT_EQ(s.by_gen.at("all").entries, 4);
  EXPECT_EQ(s.by_gen.at("trn2").compared, 1);
  EXPECT_NEAR(s.by_gen.at("trn2").median_abs_log_ratio, std::log(2.0), 1e-12);
  EXPECT_NEAR(s.by_gen.at("trn1").median_abs_log_ratio, std::log(1.6), 1e-12);
}

TEST(FidelityStats, AnEntryThatDoesNotRunIsCountedNotCompared) {
  Fixture f({{100, 100}, {50, 80}, {40, 90}}, /*running_last=*/false);
  fidelity::Summary s = fidelity::summarize(f.results);
  EXPECT_EQ(s.by_gen.at("all").entries, 4);
  EXPECT_EQ(s.by_gen.at("all").running, 3);
  EXPECT_EQ(s.ladders[0].compared, 2);
  EXPECT_EQ(s.ladders[0].steps.size(), 1u);
}

TEST(FidelityGuard, TodaysFiguresPassAndAnyRegressionFails) {
  Fixture f({{100, 100}, {50, 80}, {40, 90}});
  fidelity::Thresholds t = fidelity::thresholds_of(f.results);
  EXPECT_EQ(t.running_min, 4);
  EXPECT_EQ(t.compared_entries.size(), 4u);
  EXPECT_TRUE(fidelity::guard_failures(f.results, t).empty());
  auto round_trip = fidelity::thresholds_from_json(fidelity::to_json(t));
  EXPECT_TRUE(fidelity::guard_failures(f.results, round_trip).empty());

  fidelity::Thresholds tighter = t;
  tighter.running_min = 5;
  tighter.median_abs_log_ratio_max["trn1"] = 0.1;
  tighter.ladder_tau_min["ladder"] = 0.5;
  tighter.ladder_tau_min["gone"] = 0.0;
  auto failures = fidelity::guard_failures(f.results, tighter);
  EXPECT_EQ(failures.size(), 4u);
}

TEST(FidelityGuard, AnEntryThatStartsToRunDoesNotMoveTheGuardedMedian) {
  Fixture before({{100, 100}, {50, 80}, {40, 90}}, /*running_last=*/false);
  fidelity::Thresholds t = fidelity::thresholds_of(before.results);
  EXPECT_EQ(t.running_min, 3);
  // The entry that did not run now runs with a large error (2x): the guarded set excludes it.
  Fixture after({{100, 100}, {50, 80}, {40, 90}}, /*running_last=*/true);
  EXPECT_TRUE(fidelity::guard_failures(after.results, t).empty());
}

TEST(FidelityBand, BandsSpanTheResidualsOfEachClass) {
  Fixture f({{100, 100}, {50, 80}, {40, 90}});
  // All profiles are latency-bound (no busy time): one class, residuals log(real / sim).
  trn::ErrorBandTable t = fidelity::derive_error_band(f.results, 0.0, 1);
  ASSERT_EQ(t.classes.count(trn::BoundClass::Latency), 1u);
  const auto& b = t.classes.at(trn::BoundClass::Latency);
  EXPECT_EQ(b.samples, 4);
  EXPECT_NEAR(b.low, 40.0 / 90.0, 1e-12);
  EXPECT_NEAR(b.high, 1.0, 1e-12);
  EXPECT_EQ(t.pooled.samples, 4);
}

TEST(FidelityBand, SpeedupBandSpansTheLadderPairsBothWays) {
  // Pairs of the ladder (real, sim): v0/v1 real 2x, simulated 1.25x: residual log 1.6; v0/v2
  // 2.5x vs 1.111x: log 2.25; v1/v2 1.25x vs 0.889x: log 1.40625. The standalone entry is in no pair.
  Fixture f({{100, 100}, {50, 80}, {40, 90}});
  trn::ErrorBandTable t = fidelity::derive_error_band(f.results, 0.0, 1);
  EXPECT_EQ(t.speedup.samples, 3);
  EXPECT_NEAR(t.speedup.low, 1 / 2.25, 1e-12);
  EXPECT_NEAR(t.speedup.high, 2.25, 1e-12);
  // A version that does not run is in no pair.
  Fixture partial({{100, 100}, {50, 80}, {40, 90}}, /*running_last=*/false);
  EXPECT_EQ(fidelity::derive_error_band(partial.results, 0.0, 1).speedup.samples, 1);
  EXPECT_NEAR(fidelity::derive_error_band(partial.results, 0.0, 1).speedup.high, 1.6, 1e-12);
}

}  // namespace
