// `accelopt fidelity` end to end on small manifests: the table, the ladder figures, an entry that
// does not run (listed with its diagnostic, counted), the guard and the band file.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

// Two versions of examples/add (one slower: it adds twice), and a third whose kernel does not run.
std::string write_suite(const TempDir& tmp) {
  std::string kernel = slurp(source("examples/add/kernel.py"));
  spit(tmp.path() + "/add.py", kernel);
  std::string twice = kernel;
  twice.replace(twice.find("        nl.store"), 0,
                "        total = nisa.tensor_tensor(total, y_tile, nl.add)\n"
                "        total = nisa.tensor_tensor(total, y_tile, nl.subtract)\n");
  spit(tmp.path() + "/add_twice.py", twice);
  std::string broken = kernel;
  broken.replace(broken.find("nisa.tensor_tensor"), 18, "nisa.no_such_instruction");
  spit(tmp.path() + "/broken.py", broken);
  spit(tmp.path() + "/manifest.yaml", R"(format: accelopt-fidelity/1
groups:
  - name: add_ladder
    ladder: true
    gen: trn1
    role: validate
    reference: )" + source("examples/add/reference.py") + R"(
    metric: profile_total
    tag: M
    source: test
    entries:
      - {name: twice, kernel: add_twice.py, measured: 20, unit: us}
      - {name: once, kernel: add.py, measured: 10, unit: us}
      - {name: broken, kernel: broken.py, measured: 5, unit: us}
)");
  return tmp.path() + "/manifest.yaml";
}

TEST(FidelityCli, TableLaddersAndAKernelThatDoesNotRun) {
  TempDir tmp;
  std::string manifest = write_suite(tmp);
  CliRun r = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = r.json();
  ASSERT_EQ(j["entries"].size(), 3u);
  EXPECT_EQ(j["entries"][0]["id"], "add_ladder/twice");
  EXPECT_EQ(j["entries"][0]["check"], "passed");
  EXPECT_GT(j["entries"][0]["ratio"].get<double>(), 0);
  EXPECT_GT(j["entries"][0]["simulated_us"].get<double>(), j["entries"][1]["simulated_us"].get<double>());
  const auto& broken = j["entries"][2];
  EXPECT_EQ(broken["runs"], false);
  EXPECT_EQ(broken["profile_outcome"], "compile_error");
  ASSERT_FALSE(broken["diagnostics"].empty());
  EXPECT_NE(broken["diagnostics"].dump().find("no_such_instruction"), std::string::npos) << broken.dump();
  const auto& all = j["summary"]["by_gen"]["all"];
  EXPECT_EQ(all["entries"], 3);
  EXPECT_EQ(all["running"], 2);
  EXPECT_EQ(all["compared"], 2);
  ASSERT_EQ(j["summary"]["ladders"].size(), 1u);
  const auto& ladder = j["summary"]["ladders"][0];
  EXPECT_EQ(ladder["kendall_tau"], 1.0);
  EXPECT_EQ(ladder["steps"][0]["match"], true);
}

TEST(FidelityCli, TextOutputListsTheDiagnostic) {
  TempDir tmp;
  std::string manifest = write_suite(tmp);
  CliRun r = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --no-check");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("add_ladder/broken"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 entries do not run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("add_ladder (trn1, validate): tau +1.00"), std::string::npos) << r.out;
}

TEST(FidelityCli, GuardPassesOnTodaysFiguresAndFailsOnTighterOnes) {
  TempDir tmp;
  std::string manifest = write_suite(tmp);
  CliRun w = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --no-check --write-thresholds " + tmp.path() +
                                      "/t.json --write-band " + tmp.path() + "/band.json");
  ASSERT_EQ(w.exit_code, 0) << w.err << w.out;
  auto band = nlohmann::json::parse(slurp(tmp.path() + "/band.json"));
  EXPECT_EQ(band["format"], "accelopt-error-band/1");
  EXPECT_EQ(band["pooled"]["samples"], 2);
  CliRun ok = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --no-check --guard " + tmp.path() + "/t.json");
  EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  auto t = nlohmann::json::parse(slurp(tmp.path() + "/t.json"));
  EXPECT_EQ(t["running_min"], 2);
  t["running_min"] = 3;
  spit(tmp.path() + "/t.json", t.dump());
  CliRun bad = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --no-check --guard " + tmp.path() + "/t.json");
  EXPECT_EQ(bad.exit_code, 1) << bad.err << bad.out;
  EXPECT_NE(bad.out.find("guard: REGRESSION entries that run: 2 < 3"), std::string::npos) << bad.out;
}

TEST(FidelityCli, BadManifestAndSelection) {
  TempDir tmp;
  spit(tmp.path() + "/m.yaml", "format: accelopt-fidelity/1\ngroups: 3\n");
  CliRun r = accelopt(tmp.path(), "fidelity --manifest " + tmp.path() + "/m.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("m.yaml:2: error: 'groups' must be a list"), std::string::npos) << r.err;
  std::string manifest = write_suite(tmp);
  CliRun none = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --kernel nothing");
  EXPECT_EQ(none.exit_code, 2);
  CliRun partial_guard = accelopt(tmp.path(), "fidelity --manifest " + manifest + " --arch trn1 --guard x.json");
  EXPECT_EQ(partial_guard.exit_code, 2);
}

}  // namespace
}  // namespace bench_e2e
