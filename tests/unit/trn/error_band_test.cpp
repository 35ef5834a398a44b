// The error band: bound classification of a profile and the band lookup (trn/error_band.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "trn/error_band.h"

namespace {

trn::Profile profile(double latency_ms, std::map<std::string, double> busy_ms) {
  trn::Profile p;
  p.latency = latency_ms;
  p.engine_busy_ms = std::move(busy_ms);
  return p;
}

TEST(ErrorBand, ClassifiesByTheEngineWithTheLargestBusyShare) {
  EXPECT_EQ(trn::classify(profile(10, {{"pe", 9}, {"dma", 6}, {"act", 1}})), trn::BoundClass::Pe);
  EXPECT_EQ(trn::classify(profile(10, {{"pe", 4}, {"dma", 8}})), trn::BoundClass::Dma);
  EXPECT_EQ(trn::classify(profile(10, {{"dve", 7}, {"act", 6.9}})), trn::BoundClass::Dve);
  EXPECT_EQ(trn::classify(profile(10, {{"act", 5}})), trn::BoundClass::Act);
  EXPECT_EQ(trn::classify(profile(10, {{"pool", 6}})), trn::BoundClass::Pool);
}

TEST(ErrorBand, NoEngineBusyHalfTheTimeIsLatencyBound) {
  EXPECT_EQ(trn::classify(profile(10, {{"pe", 4.9}, {"dma", 4.9}, {"dve", 3}})), trn::BoundClass::Latency);
  EXPECT_EQ(trn::classify(profile(0, {})), trn::BoundClass::Latency);
}

TEST(ErrorBand, DmaQueuesAreNotTheFabric) {
  // Per-queue busy times (dma_load, ...) overlap; only the fabric ("dma") classifies.
  EXPECT_EQ(trn::classify(profile(10, {{"dma_load", 9}, {"dve", 6}})), trn::BoundClass::Dve);
}

trn::ErrorBandTable table() {
  return trn::error_band_table_from_json(nlohmann::json::parse(R"({
    "format": "accelopt-error-band/1", "min_samples": 4, "quantile": 0.1,
    "pooled": {"low": 0.5, "high": 1.5, "samples": 20},
    "speedup": {"low": 0.9, "high": 1.11, "samples": 30},
    "classes": {"pe": {"low": 0.9, "high": 1.2, "samples": 6},
                "dve": {"low": 0.2, "high": 3.0, "samples": 2}}})"));
}

TEST(ErrorBand, UsesTheClassBandWithEnoughSamplesElseThePooledOne) {
  auto t = table();
  EXPECT_DOUBLE_EQ(trn::band_for(t, trn::BoundClass::Pe).low, 0.9);
  EXPECT_DOUBLE_EQ(trn::band_for(t, trn::BoundClass::Dve).low, 0.5);     // 2 samples < 4
  EXPECT_DOUBLE_EQ(trn::band_for(t, trn::BoundClass::Latency).high, 1.5);  // absent
}

TEST(ErrorBand, ApplySetsTheBandAndTheClass) {
  trn::Profile p = profile(10, {{"pe", 9}});
  trn::apply_error_band(p, table());
  EXPECT_EQ(p.bound_class, "pe");
  EXPECT_DOUBLE_EQ(p.latency_low, 9);
  EXPECT_DOUBLE_EQ(p.latency_high, 12);
}

TEST(ErrorBand, TableRoundTripsThroughJson) {
  auto t = table();
  auto again = trn::error_band_table_from_json(trn::to_json(t));
  EXPECT_EQ(again.classes.size(), 2u);
  EXPECT_DOUBLE_EQ(again.classes.at(trn::BoundClass::Dve).high, 3.0);
  EXPECT_EQ(again.pooled.samples, 20);
  EXPECT_DOUBLE_EQ(again.speedup.low, 0.9);
  EXPECT_EQ(again.speedup.samples, 30);
  // A table written before the speedup band existed has none (samples 0: only latency bands apply).
  auto old = trn::to_json(t);
  old.erase("speedup");
  EXPECT_EQ(trn::error_band_table_from_json(old).speedup.samples, 0);
}

TEST(ErrorBand, RejectsBadTables) {
  EXPECT_THROW(trn::error_band_table_from_json(nlohmann::json::parse(R"({"format": "x"})")), std::runtime_error);
  EXPECT_THROW(trn::error_band_table_from_json(nlohmann::json::parse(
                   R"({"format": "accelopt-error-band/1", "pooled": {"low": 2, "high": 1}})")),
               std::runtime_error);
  EXPECT_THROW(trn::error_band_table_from_json(nlohmann::json::parse(
                   R"({"format": "accelopt-error-band/1", "pooled": {"low": 1, "high": 1},
                       "classes": {"gpu": {"low": 1, "high": 1}}})")),
               std::runtime_error);
}

TEST(ErrorBand, TheBuiltinTableLoadsAndCoversEveryProfile) {
  const auto& t = trn::builtin_error_band_table();
  EXPECT_GT(t.pooled.high, 0);
  trn::Profile p = profile(2, {{"dve", 1.9}});
  trn::apply_error_band(p);
  EXPECT_GT(p.latency_low, 0);
  EXPECT_GE(p.latency_high, p.latency_low);
}

}  // namespace
