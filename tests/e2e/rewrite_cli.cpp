// `accelopt rewrite` end to end: listing the catalogue's sites in a kernel, applying one (the
// result must pass the same check as the original), and the errors for bad keys and sites.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

const std::string kBench = "tests/golden/rewrite/bench";

std::string small_silu_kernel() {
  for (const auto& e : fs::directory_iterator(source(kBench + "/kernels")))
    if (e.path().filename().string().rfind("silu_", 0) == 0) return e.path().string();
  return "";
}

std::string small_silu_reference() {
  for (const auto& e : fs::directory_iterator(source(kBench + "/reference")))
    if (e.path().filename().string().rfind("silu_", 0) == 0) return e.path().string();
  return "";
}

TEST(RewriteCli, ListsSitesAndAppliesOneThatStillPassesTheCheck) {
  TempDir tmp;
  std::string kernel = small_silu_kernel();
  ASSERT_FALSE(kernel.empty());
  // The kernel lifts to the loop-nest form (its reference is found by its file name in the
  // benchmark directory): the form's fold_silu offers silu and sigmoid.
  CliRun list = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --transform fold_silu --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto sites = list.json();
  ASSERT_EQ(sites.size(), 2u) << list.out;
  EXPECT_EQ(sites[0]["transform"], "fold_silu");
  EXPECT_EQ(sites[0]["params"]["func"], "silu");
  std::string key = sites[0]["key"];

  CliRun applied = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --apply " + quote(key));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_NE(applied.out.find("nl.silu"), std::string::npos) << applied.out;
  EXPECT_EQ(applied.out.find("nl.exp"), std::string::npos) << applied.out;
  spit(tmp.path() + "/fused.py", applied.out);
  CliRun check = accelopt(tmp.path(), "eval --no-profile --json --reference " + small_silu_reference() +
                                          " --kernel " + tmp.path() + "/fused.py");
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;
  EXPECT_EQ(check.json()["correct"], true);
}

// `parse` names its file as every other command does (`--kernel FILE`), or positionally: one form
// either way (an outside author's first try was `parse --emit loops --kernel FILE`).
TEST(RewriteCli, ParseTakesTheKernelFileByNameOrPosition) {
  TempDir tmp;
  const std::string kernel = small_silu_kernel(), reference = small_silu_reference();
  CliRun named = accelopt(tmp.path(), "parse --emit loops --kernel " + kernel + " --reference " + reference);
  CliRun positional = accelopt(tmp.path(), "parse --emit loops " + kernel + " --reference " + reference);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("kernel "), std::string::npos) << named.out;
  EXPECT_EQ(named.out, positional.out);
}

// A kernel file away from any benchmark directory, named after its task: `--bench-root` says where
// its reference is found by that name (an installed binary has no bundled benchmark beside it:
// outside authors' `parse --emit loops --kernel FILE` failed with "give the task's reference").
TEST(RewriteCli, ParseAndRewriteFindTheReferenceInTheBenchRootGiven) {
  TempDir tmp;
  const std::string kernel = small_silu_kernel();
  const std::string copy = tmp.path() + "/" + fs::path(kernel).filename().string();
  fs::copy_file(kernel, copy);
  CliRun lost = accelopt(tmp.path(), "parse --emit loops --kernel " + copy);
  EXPECT_NE(lost.exit_code, 0);
  EXPECT_NE(lost.err.find("give the task's reference"), std::string::npos) << lost.err;
  CliRun parsed = accelopt(tmp.path(), "parse --emit loops --kernel " + copy + " --bench-root " + source(kBench));
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  EXPECT_NE(parsed.out.find("kernel "), std::string::npos) << parsed.out;
  CliRun listed = accelopt(tmp.path(), "rewrite --kernel " + copy + " --transform fold_silu --json --bench-root " +
                                           source(kBench));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.json().size(), 2u) << listed.out;
}

TEST(RewriteCli, TextListingShowsKeyAndSummary) {
  TempDir tmp;
  CliRun list = accelopt(tmp.path(), "rewrite --kernel " + small_silu_kernel());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("fold_silu "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("anchor="), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("free_size "), std::string::npos) << list.out;
}

// A kernel written as a driver calling stage helpers, the same helper from several nests
// (nkibench/styles/decomposed): the sites inside the helpers are listed (helpers=open), and no note
// says they stay closed.
TEST(RewriteCli, ListsTheSitesInsideHelpersCalledFromSeveralNests) {
  TempDir tmp;
  CliRun list = accelopt(tmp.path(), "rewrite --kernel " + source("nkibench/styles/decomposed/swiglu_M4096_N3072_K1024_0.py") +
                                         " --reference " + source("nkibench/reference/swiglu_M4096_N3072_K1024.py") +
                                         " --transform hoist --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto sites = list.json();
  ASSERT_EQ(sites.size(), 3u) << list.out;  // the weight-loading loop of each of the three nests
  for (const auto& s : sites) EXPECT_EQ(s["params"]["helpers"], "open") << s;
  EXPECT_EQ(list.err.find("stay closed"), std::string::npos) << list.err;
}

TEST(RewriteCli, BadKeyUnknownSiteAndMissingFileAreErrors) {
  TempDir tmp;
  std::string kernel = small_silu_kernel();
  CliRun bad = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --apply bogus");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("is not a site key"), std::string::npos) << bad.err;
  CliRun nosite = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --apply " + quote("fuse_silu line=999"));
  EXPECT_EQ(nosite.exit_code, 1);
  EXPECT_NE(nosite.err.find("cannot apply"), std::string::npos) << nosite.err;
  CliRun unknown = accelopt(tmp.path(), "rewrite --kernel " + kernel + " --apply " + quote("no_such_rewrite line=3"));
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown transformation"), std::string::npos) << unknown.err;
  CliRun missing = accelopt(tmp.path(), "rewrite --kernel /nonexistent/k.py");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace bench_e2e
