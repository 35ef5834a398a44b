// Loading the fidelity manifest: group defaults, parameters, measured units, clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fidelity/manifest.h"
#include "fidelity/runner.h"
#include "trn/arch_config.h"
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;

std::string write_manifest(const std::string& name, const std::string& text) {
  fs::path dir = fs::temp_directory_path() / ("fidelity_manifest_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

const char* kGood = R"(format: accelopt-fidelity/1
groups:
  - name: ladder
    ladder: true
    gen: trn2
    role: validate
    kernel: k.py
    reference: r.py
    params: {M: 256, OP: copy}
    check_params: {M: 128}
    metric: p99
    entries:
      - {name: a, entry: fa, measured: 1.5, unit: ms}
      - {name: b, entry: fb, measured: 30.8, unit: tflops, flops: 30.8e6, metric: te_active, per: 2,
         params: {OP: exp}}
)";

TEST(FidelityManifest, EntriesInheritTheirGroupsDefaults) {
  auto m = fidelity::load_manifest(write_manifest("good.yaml", kGood));
  ASSERT_EQ(m.entries.size(), 2u);
  const auto& a = m.entries[0];
  EXPECT_EQ(a.id(), "ladder/a");
  EXPECT_TRUE(a.ladder);
  EXPECT_EQ(a.gen, "trn2");
  EXPECT_EQ(a.role, fidelity::Role::Validate);
  EXPECT_EQ(a.metric, fidelity::Metric::P99);
  EXPECT_EQ(a.entry.function, "fa");
  EXPECT_DOUBLE_EQ(a.measured_us(), 1500);
  EXPECT_EQ(fs::path(a.kernel_path).filename(), "k.py");
  EXPECT_EQ(a.params.at("M"), "256");
  EXPECT_EQ(a.params.at("OP"), "'copy'");
  // check_params overlay the measured params.
  EXPECT_EQ(a.check_params.at("M"), "128");
  EXPECT_EQ(a.check_params.at("OP"), "'copy'");
  const auto& b = m.entries[1];
  EXPECT_EQ(b.metric, fidelity::Metric::TeActive);
  EXPECT_EQ(b.per, 2);
  EXPECT_EQ(b.params.at("OP"), "'exp'");
  EXPECT_NEAR(b.measured_us(), 1.0, 1e-12);  // 30.8 MFLOP at 30.8 TFLOPS
}

TEST(FidelityManifest, ErrorsNameTheFileAndLine) {
  std::string bad = kGood;
  bad.replace(bad.find("metric: p99"), 11, "metric: p98");
  try {
    fidelity::load_manifest(write_manifest("bad_metric.yaml", bad));
    FAIL() << "expected a ManifestError";
  } catch (const fidelity::ManifestError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_metric.yaml:11: error: unknown metric 'p98'"), std::string::npos)
        << e.what();
  }
  std::string typo = kGood;
  typo.replace(typo.find("check_params"), 12, "chek_params");
  EXPECT_THROW(fidelity::load_manifest(write_manifest("typo.yaml", typo)), fidelity::ManifestError);
  std::string no_flops = kGood;
  no_flops.replace(no_flops.find(", flops: 30.8e6"), 15, "");
  EXPECT_THROW(fidelity::load_manifest(write_manifest("no_flops.yaml", no_flops)), fidelity::ManifestError);
  EXPECT_THROW(fidelity::load_manifest("/nonexistent/manifest.yaml"), fidelity::ManifestError);
}

TEST(FidelityManifest, ParametersOverrideTheReferencesConstants) {
  std::string text = "import numpy as np\nM = 4096\n";
  std::string out = fidelity::reference_with_params(text, {{"M", "128"}, {"OP", "'exp'"}});
  EXPECT_EQ(out.substr(0, text.size()), text);
  EXPECT_NE(out.find("\nM = 128\n"), std::string::npos);
  EXPECT_NE(out.find("\nOP = 'exp'\n"), std::string::npos);
  EXPECT_EQ(fidelity::reference_with_params(text, {}), text);
}

TEST(FidelityManifest, TheRepositorysManifestLoads) {
  auto m = fidelity::load_manifest(std::string(ACCELOPT_SOURCE_DIR) + "/fidelity/manifest.yaml");
  EXPECT_GE(m.entries.size(), 60u);
  for (const auto& e : m.entries) {
    EXPECT_TRUE(fs::exists(e.kernel_path)) << e.id() << ": " << e.kernel_path;
    EXPECT_TRUE(fs::exists(e.reference_path)) << e.id() << ": " << e.reference_path;
    EXPECT_GT(e.measured_us(), 0) << e.id();
  }
}

TEST(FidelityMetric, LaunchCostInEveryWholeRunLatency) {
  // NCL and a profile's total_time both span the run's fixed start cost; engine active times and
  // initiation intervals do not.
  EXPECT_TRUE(fidelity::includes_launch_cost(fidelity::Metric::P99));
  EXPECT_TRUE(fidelity::includes_launch_cost(fidelity::Metric::Bench));
  EXPECT_TRUE(fidelity::includes_launch_cost(fidelity::Metric::ProfileTotal));
  EXPECT_TRUE(fidelity::includes_launch_cost(fidelity::Metric::Profile));
  EXPECT_FALSE(fidelity::includes_launch_cost(fidelity::Metric::TeActive));
  EXPECT_FALSE(fidelity::includes_launch_cost(fidelity::Metric::II));
  fidelity::Entry e;
  e.gen = "trn2";
  trn::Profile p;
  p.latency = 1.0;  // ms
  p.engine_busy_ms["pe"] = 0.5;
  e.metric = fidelity::Metric::ProfileTotal;
  EXPECT_DOUBLE_EQ(fidelity::simulated_quantity_us(e, p), 1000 + trn::arch_config("trn2").launch_offset_us);
  e.metric = fidelity::Metric::P50;
  EXPECT_DOUBLE_EQ(fidelity::simulated_quantity_us(e, p), 1000 + trn::arch_config("trn2").launch_offset_us);
  e.metric = fidelity::Metric::TeActive;
  e.per = 2;
  EXPECT_DOUBLE_EQ(fidelity::simulated_quantity_us(e, p), 250);
}

}  // namespace

namespace {

TEST(FidelityManifest, ConstantsAreSetWhereTheKernelAssignsThem) {
  std::string text = "def k(a):\n    ROW_CHUNK = 1\n    X == 2\n    return ROW_CHUNK\n";
  EXPECT_EQ(fidelity::kernel_with_constants(text, {{"ROW_CHUNK", "128"}}),
            "def k(a):\n    ROW_CHUNK = 128\n    X == 2\n    return ROW_CHUNK\n");
  EXPECT_EQ(fidelity::kernel_with_constants(text, {}), text);
  // A comparison is not an assignment; a missing constant is an error.
  EXPECT_THROW(fidelity::kernel_with_constants(text, {{"X", "3"}}), std::runtime_error);
  EXPECT_THROW(fidelity::kernel_with_constants(text, {{"FREE_DIM", "2"}}), std::runtime_error);
}

}  // namespace
