// The peak estimate of every bundled task against a hand computation with the published
// constants (the seven calibration tasks also match trainium-performance.md §3.5).
#include <gtest/gtest.h>

#include "bench/loader.h"
#include "bench/peak.h"
#include "support/test_paths.h"

namespace {

struct Expected {
  const char* task;
  double peak_ms;
  const char* bound;
};

// max(V / (2*128*1.12e9), F / 23.75e12, Y / (410*2^30)) in ms, worked out by hand from the
// nkibench.md table at the bundled configurations.
const Expected kTrn1[] = {
    {"matmul", 2.0 * 4096 * 12288 * 5120 / 23.75e12 * 1e3, "matmul"},                  // 21.7009
    {"transpose_matmul", 2.0 * 4096 * 10944 * 2048 / 23.75e12 * 1e3, "matmul"},        // 7.7309
    {"bmm", 4.0 * 16 * (4096.0 * 4096 + 4096 * 64 + 4096 * 64) / (410.0 * 1073741824) * 1e3, "memory"},  // 2.5152
    {"bmm_softmax", 5.0 * 16 * 4096 * 4096 / (2 * 128 * 1.12e9) * 1e3, "vector"},       // 4.6811
    {"lora", (2.0 * 4096 * 12288 * 5120 + 2.0 * 4096 * 5120 * 128 + 2.0 * 4096 * 12288 * 128) / 23.75e12 * 1e3,
     "matmul"},                                                                          // 22.4695
    {"swiglu", 6.0 * 4096 * 1024 * 3072 / 23.75e12 * 1e3, "matmul"},                    // 3.2551
    {"rmsnorm_matmul", 2.0 * 4096 * 2048 * 1024 / 23.75e12 * 1e3, "matmul"},            // 0.7234
    {"add_rmsnorm_matmul", 2.0 * 4096 * 2048 * 1024 / 23.75e12 * 1e3, "matmul"},        // 0.7234
    {"matmul_add_rmsnorm", 2.0 * 4096 * 2048 * 2048 / 23.75e12 * 1e3, "matmul"},        // 1.4467
    {"gqa_full", 4.0 * 16 * 4096 * 4096 * 128 / 23.75e12 * 1e3, "matmul"},             // 5.7869
    {"rope_single_freq_apply", 12.0 * 64 * 4096 * 128 / (410.0 * 1073741824) * 1e3, "memory"},  // 0.9146
    {"silu", 8.0 * 4096 * 7168 / (410.0 * 1073741824) * 1e3, "memory"},                // 0.5335
    {"adamw", 20.0 * 10944 * 2048 / (410.0 * 1073741824) * 1e3, "memory"},              // 1.0182
    {"mamba", 8.0 * 7168 * 256 * 16 / (2 * 128 * 1.12e9) * 1e3, "vector"},              // 0.8192
};

TEST(Peak, EveryBundledTaskMatchesHandComputation) {
  bench::Suite suite = bench::load_suite(std::string(ACCELOPT_SOURCE_DIR) + "/nkibench");
  ASSERT_EQ(suite.cases.size(), 14u);
  const auto& trn1 = bench::peak_constants("trn1");
  for (const auto& expected : kTrn1) {
    auto it = std::find_if(suite.cases.begin(), suite.cases.end(), [&](auto& c) { return c.task == expected.task; });
    ASSERT_NE(it, suite.cases.end()) << expected.task;
    auto e = bench::estimate_peak(it->task, it->values, trn1);
    EXPECT_NEAR(e.latency_ms, expected.peak_ms, 1e-9 * expected.peak_ms) << expected.task;
    EXPECT_EQ(e.bound, expected.bound) << expected.task;
  }
}

TEST(Peak, PublishedCalibrationFigures) {
  // "AO peak latency" column of trainium-performance.md §3.5, printed to 3 decimals.
  const auto& trn1 = bench::peak_constants("trn1");
  EXPECT_NEAR(bench::estimate_peak("matmul", {{"M", 4096}, {"N", 12288}, {"K", 5120}}, trn1).latency_ms, 21.701, 5e-4);
  EXPECT_NEAR(bench::estimate_peak("swiglu", {{"M", 4096}, {"N", 3072}, {"K", 1024}}, trn1).latency_ms, 3.255, 5e-4);
  EXPECT_NEAR(bench::estimate_peak("silu", {{"M", 4096}, {"N", 7168}}, trn1).latency_ms, 0.534, 5e-4);
  EXPECT_NEAR(bench::estimate_peak("adamw", {{"M", 10944}, {"N", 2048}}, trn1).latency_ms, 1.018, 5e-4);
}

TEST(Peak, Trn2UsesItsOwnConstants) {
  const auto& trn2 = bench::peak_constants("trn2");
  auto e = bench::estimate_peak("silu", {{"M", 4096}, {"N", 7168}}, trn2);
  EXPECT_NEAR(e.latency_ms, 8.0 * 4096 * 7168 / (2.9e12 / 8) * 1e3, 1e-12);
  EXPECT_NE(trn2.description.find("trn2"), std::string::npos);
  // Per-core shares of the chip figures, as AccelOpt's trn1 constants are (820 GB/s / 2, 47.5 TF / 2):
  // fp32 TensorE 181 TF / 8 cores; VectorE 256 + ScalarE 128 fp32 lanes at the 0.96 GHz VectorE clock.
  auto mm = bench::estimate_peak("matmul", {{"M", 4096}, {"N", 12288}, {"K", 5120}}, trn2);
  EXPECT_EQ(mm.bound, "matmul");
  EXPECT_NEAR(mm.latency_ms, 2.0 * 4096 * 12288 * 5120 / (181e12 / 8) * 1e3, 1e-12);
  EXPECT_DOUBLE_EQ(trn2.vector_flops, 384 * 0.96e9);
  EXPECT_NE(trn2.description.find("PEAK_MM = 181e12/8"), std::string::npos);
}

TEST(Peak, MissingValueAndUnknownTaskAreErrors) {
  const auto& trn1 = bench::peak_constants("trn1");
  try {
    bench::estimate_peak("matmul", {{"M", 4096}, {"N", 1}}, trn1);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'K'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(bench::estimate_peak("nosuchtask", {}, trn1), std::invalid_argument);
  EXPECT_FALSE(bench::has_peak_formula("nosuchtask"));
  EXPECT_THROW(bench::peak_constants("trn9"), std::invalid_argument);
}

}  // namespace
