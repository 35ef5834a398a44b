// `accelopt eval` and `accelopt profile` on the indirect-DMA kernels of tests/kernels (gather by
// an index tile in the legacy and newer-API spellings, an atomic scatter-add).
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

const std::string kGatherRef = "tests/kernels/gather_rows.ref.py";

void expect_correct(const std::string& ref, const std::string& kernel) {
  TempDir tmp;
  CliRun r = accelopt(tmp.path(), "eval --reference " + ref + " --kernel " + kernel + " --seeds 0,42 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = r.json();
  EXPECT_EQ(j["status"], "ok") << r.out;
  EXPECT_EQ(j["correct"], true) << r.out;
  for (auto& s : j["seeds"]) EXPECT_LT(s["rel_l2"].get<double>(), 1e-6);
  ASSERT_TRUE(j["profile"].is_object()) << r.out;
  EXPECT_GT(j["profile"]["latency"].get<double>(), 0);
}

TEST(IndirectDmaCli, LegacyGatherIsCorrect) { expect_correct(kGatherRef, "tests/kernels/gather_rows.py"); }

TEST(IndirectDmaCli, NewerApiGatherIsCorrect) { expect_correct(kGatherRef, "tests/kernels/gather_rows_ap.py"); }

TEST(IndirectDmaCli, AtomicScatterAddIsCorrect) {
  expect_correct("tests/kernels/scatter_add_rows.ref.py", "tests/kernels/scatter_add_rows.py");
}

TEST(IndirectDmaCli, ProfileReadsTheGatheredRowsOnce) {
  TempDir tmp;
  CliRun r = accelopt(tmp.path(), "profile --reference " + kGatherRef + " --kernel tests/kernels/gather_rows.py --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = r.json();
  EXPECT_GT(j["latency"].get<double>(), 0);
  // 4096 gathered 2 KiB rows and the 4096 4-byte labels (the index tiles) come from HBM.
  EXPECT_EQ(j["hbm_read_bytes"].get<uint64_t>(), 4096u * 512 * 4 + 4096u * 4);
}

TEST(IndirectDmaCli, RewriteListsTheSitesItCanWithoutCrashing) {
  // The gather lifts as a frozen load of the whole table (tests/unit/loopnest/
  // indirect_access_test.cpp): no move rewrites it, the others are listed, and the command succeeds.
  TempDir tmp;
  CliRun r = accelopt(tmp.path(), "rewrite --kernel tests/kernels/gather_rows.py --reference " + kGatherRef + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(r.json().is_array()) << r.out;
}

}  // namespace
}  // namespace bench_e2e
