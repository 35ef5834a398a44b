// Golden simulator files: tests/golden/trn/NAME.trace (records, trace_text.h format) and
// NAME.profile (the expected profile JSON). Set ACCELOPT_UPDATE_GOLDEN=1 to rewrite the
// .profile files from the current simulator, then review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "trn/simulator.h"
#include "trn/trace_text.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

const fs::path kGoldenDir = fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/trn";

// Data time of a [128 x free] fp32 transfer on trn1: 16 engines, one buffer per partition row.
double trn1_dma_ns(uint64_t free) {
  const auto& a = trn::arch_config("trn1");
  return 128.0 * free * 4 / (16 * a.dma_engine_bytes_per_ns) + 128.0 / 16 * a.dma_descriptor_ns;
}

trn::Profile run_trace(const fs::path& path) {
  std::ifstream in(path);
  trn::TextTrace trace = trn::parse_trace_text(in, path.filename().string());
  return trn::simulate(trace.records, trn::arch_config(trace.arch));
}

// Numbers equal to 1e-9 relative (the profile is deterministic; this only absorbs printing).
void expect_same(const nlohmann::json& expected, const nlohmann::json& actual, const std::string& where) {
  ASSERT_EQ(expected.type(), actual.type()) << where;
  if (expected.is_object()) {
    ASSERT_EQ(expected.size(), actual.size()) << where << ": " << actual.dump();
    for (const auto& [key, value] : expected.items()) {
      ASSERT_TRUE(actual.contains(key)) << where << "." << key;
      expect_same(value, actual[key], where + "." + key);
    }
  } else if (expected.is_number_float() || actual.is_number_float()) {
    double e = expected.get<double>(), a = actual.get<double>();
    EXPECT_NEAR(a, e, 1e-9 * std::max(1.0, std::fabs(e))) << where;
  } else {
    EXPECT_EQ(expected, actual) << where;
  }
}

}  // namespace

TEST(TrnGolden, EveryTraceMatchesItsProfile) {
  bool update = std::getenv("ACCELOPT_UPDATE_GOLDEN") != nullptr;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kGoldenDir)) {
    if (entry.path().extension() != ".trace") continue;
    fs::path expected_path = entry.path();
    expected_path.replace_extension(".profile");
    nlohmann::json actual = trn::to_json(run_trace(entry.path()));
    // The error band comes from fidelity/band.json, which the suite regenerates; it is tested in
    // error_band_test.cpp, not pinned here.
    for (const char* band_field : {"latency_low", "latency_high", "bound_class"}) actual.erase(band_field);
    if (update) {
      std::ofstream(expected_path) << actual.dump(1) << "\n";
    }
    std::ifstream in(expected_path);
    ASSERT_TRUE(in) << "missing " << expected_path << " (run with ACCELOPT_UPDATE_GOLDEN=1)";
    expect_same(nlohmann::json::parse(in), actual, entry.path().filename().string());
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

// The golden latencies, derived by hand from the cost formulas (comments in each .trace file).
TEST(TrnGolden, OneMatmulLatencyIsTheIsaFormula) {
  trn::Profile p = run_trace(kGoldenDir / "one_matmul.trace");
  EXPECT_NEAR(p.latency * 1e6, (512.0 + 64.0) / 2.8, 1e-6);
  EXPECT_EQ(p.hardware_flops, 2ull * 128 * 128 * 512);
}

TEST(TrnGolden, PipelineOverlapsLoadComputeStore) {
  trn::Profile p = run_trace(kGoldenDir / "pipeline.trace");
  const auto& a = trn::arch_config("trn1");
  const double d = trn1_dma_ns(1024), setup = a.dma_fixed_ns, sem = a.semaphore_ns;
  const double act = 1024 / 1.4, fixed = (140 + 60) / 1.4;
  // Loads on IO queue 0, stores on queue 1: the second load's setup follows the first's, its data
  // follows the first's data; each activation waits for its load through a semaphore and pays
  // its fixed cost; each store sets up after its activation, and the second store's data moves
  // after the first store's.
  double load0 = setup + d, load1 = load0 + d;
  double act1 = load1 + sem + fixed + act;
  double store0 = load0 + sem + fixed + act + setup + d;
  double store1 = std::max(store0, act1 + setup) + d;
  EXPECT_NEAR(p.latency * 1e6, store1, 1e-6);
  // Fully serial execution would take two full load-compute-store chains.
  EXPECT_LT(p.latency * 1e6, 2 * (2 * (setup + d) + act));
  EXPECT_EQ(p.hbm_read_bytes, 2u * 524288);
  EXPECT_EQ(p.hbm_write_bytes, 2u * 524288);
}

TEST(TrnGolden, SpillSavesAndReloadsTheEvictedTile) {
  trn::Profile p = run_trace(kGoldenDir / "spill.trace");
  const uint64_t tile = 81920ull * 128;
  EXPECT_EQ(p.spill_save_bytes, tile);
  EXPECT_EQ(p.spill_reload_bytes, tile);
  EXPECT_EQ(p.hbm_write_bytes, 3 * tile + tile);
  EXPECT_EQ(p.hbm_read_bytes, tile);
  const double m = 20480 / 1.12, fixed = (100 + 60) / 1.12, s = trn1_dma_ns(20480);
  EXPECT_NEAR(p.latency * 1e6, 2 * (fixed + m) + 3 * trn::arch_config("trn1").dma_fixed_ns + 5 * s, 1e-6);
}

TEST(TrnGolden, EvictedLoadIsReloadedNotSpilled) {
  trn::Profile p = run_trace(kGoldenDir / "reload.trace");
  const uint64_t tile = 81920ull * 128;
  EXPECT_EQ(p.spill_save_bytes, 0u);
  EXPECT_EQ(p.spill_reload_bytes, 0u);
  EXPECT_EQ(p.hbm_read_bytes, 2 * tile);
  EXPECT_EQ(p.hbm_write_bytes, 3 * tile);
}
