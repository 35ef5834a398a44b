// Recorded-profile fields: each field of a simulated profile against the real one with its stated
// tolerance, and the guard that holds the deviations known today (fidelity/thresholds.json).
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "fidelity/fields.h"
#include "fidelity/report.h"

namespace {

const fidelity::FieldRow& row_of(const std::vector<fidelity::FieldRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r;
  throw std::runtime_error("no row " + field);
}

TEST(FidelityFields, EachFieldAgainstItsTolerance) {
  nlohmann::json sim = {{"latency", 1.2},          {"hbm_read_bytes", 1000},
                        {"sbuf_read_bytes", 1030}, {"psum_write_bytes", 0},
                        {"hardware_flops", 0},     {"gpsimd_engine_active_time_percent", 0.0},
                        {"transpose_flops", 5}};
  std::map<std::string, double> recorded = {{"latency", 1.0},          {"hbm_read_bytes", 1010},
                                            {"sbuf_read_bytes", 1000}, {"psum_write_bytes", 0},
                                            {"hardware_flops", 0},     {"gpsimd_engine_active_time_percent", 0.012},
                                            {"transpose_flops", 0}};
  auto rows = fidelity::compare_fields(sim, recorded);
  EXPECT_EQ(rows.size(), fidelity::compared_fields().size());
  EXPECT_TRUE(row_of(rows, "latency").within);            // 1.2x inside x1.5
  EXPECT_TRUE(row_of(rows, "hbm_read_bytes").within);     // 0.99x inside x1.02
  EXPECT_FALSE(row_of(rows, "sbuf_read_bytes").within);   // 1.03x outside x1.02
  EXPECT_NEAR(row_of(rows, "sbuf_read_bytes").ratio, 1.03, 1e-12);
  EXPECT_TRUE(row_of(rows, "psum_write_bytes").within);   // both zero
  EXPECT_DOUBLE_EQ(row_of(rows, "psum_write_bytes").ratio, 1.0);
  EXPECT_TRUE(row_of(rows, "gpsimd_engine_active_time_percent").within);  // 0 vs 0.012: inside the slack
  EXPECT_TRUE(std::isinf(row_of(rows, "transpose_flops").ratio));         // only the recorded one is zero
  EXPECT_FALSE(row_of(rows, "transpose_flops").within);
  // A field the real profile does not have is shown, not compared.
  EXPECT_FALSE(row_of(rows, "dma_active_time_percent").recorded_present);
  EXPECT_TRUE(row_of(rows, "dma_active_time_percent").within);
}

// One calibration entry with a recorded profile and a simulated one.
struct Baseline {
  fidelity::Entry entry;
  std::vector<fidelity::EntryResult> results;
  explicit Baseline(uint64_t simulated_sbuf_read) {
    entry.group = "trn1_baselines";
    entry.name = "k";
    entry.gen = "trn1";
    entry.metric = fidelity::Metric::Profile;
    entry.measured = 1.0;
    entry.unit = "ms";
    entry.recorded_profile = {{"latency", 1.0}, {"sbuf_read_bytes", 1000}, {"hbm_read_bytes", 500}};
    fidelity::EntryResult r;
    r.entry = &entry;
    r.profile = trn::Profile{};
    r.profile->latency = 1.0;
    r.profile->sbuf_read_bytes = simulated_sbuf_read;
    r.profile->hbm_read_bytes = 500;
    r.measured_us = 1000;
    r.simulated_us = 1000;
    results.push_back(r);
  }
};

TEST(FidelityFields, GuardHoldsTodaysDeviationsAndNoNewOnes) {
  Baseline today(1300);  // sbuf_read 1.3x: outside x1.02, recorded as a known deviation
  fidelity::Thresholds t = fidelity::thresholds_of(today.results);
  ASSERT_EQ(t.field_abs_log_ratio_max.size(), 1u);
  EXPECT_NEAR(t.field_abs_log_ratio_max.at("trn1_baselines/k sbuf_read_bytes"), std::log(1.3), 1e-4);
  // The thresholds round-trip through JSON, and an unmatched field (inf) is written as null.
  t.field_abs_log_ratio_max["trn1_baselines/k psum_read_bytes"] = INFINITY;
  fidelity::Thresholds back = fidelity::thresholds_from_json(fidelity::to_json(t));
  EXPECT_EQ(back.field_abs_log_ratio_max.size(), 2u);
  EXPECT_TRUE(std::isinf(back.field_abs_log_ratio_max.at("trn1_baselines/k psum_read_bytes")));

  EXPECT_TRUE(fidelity::guard_failures(today.results, back).empty());
  EXPECT_TRUE(fidelity::guard_failures(Baseline(1200).results, back).empty());  // better
  EXPECT_TRUE(fidelity::guard_failures(Baseline(1000).results, back).empty());  // matched
  auto worse = fidelity::guard_failures(Baseline(1400).results, back);
  ASSERT_EQ(worse.size(), 1u);
  EXPECT_NE(worse[0].find("sbuf_read_bytes"), std::string::npos);
  // A field inside its tolerance when the thresholds were written may not leave it.
  fidelity::Thresholds matched = fidelity::thresholds_of(Baseline(1000).results);
  auto fresh = fidelity::guard_failures(Baseline(1100).results, matched);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_NE(fresh[0].find("outside its tolerance"), std::string::npos);
}

TEST(FidelityFields, TableShowsEveryFieldAndTheRatioMatrix) {
  Baseline b(1300);
  auto fields = fidelity::field_comparisons(b.results);
  ASSERT_EQ(fields.size(), 1u);
  std::string text = fidelity::format_fields_text(fields);
  EXPECT_NE(text.find("sbuf_read_bytes"), std::string::npos);
  EXPECT_NE(text.find("OUTSIDE"), std::string::npos);
  EXPECT_NE(text.find("1.300*"), std::string::npos);
  EXPECT_NE(text.find("not recorded"), std::string::npos);
  nlohmann::json j = fidelity::fields_to_json(fields);
  EXPECT_EQ(j[0]["id"], "trn1_baselines/k");
}

}  // namespace
