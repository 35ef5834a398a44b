// The newer API's views through the binary (session 42): a `flatten_dims(1, 2).reshape_dim(...)`
// cutting a contiguous HBM tensor's per-partition range into chunks that straddle its rows, and a
// `nisa.dma_copy` of a 3-D access pattern into a 2-D tile (equal element counts, paired in
// row-major order). `accelopt eval` checks each against its numpy reference; `parse --emit loops`
// lifts the DMA pairing as a DMA of one shape, and names the construct that stops the chunked view.
#include <gtest/gtest.h>

#include "bench_e2e_util.h"

namespace bench_e2e {
namespace {

void expect_correct(const std::string& name) {
  TempDir tmp;
  CliRun r = accelopt(tmp.path(), "eval --reference tests/kernels/" + name + ".ref.py --kernel tests/kernels/" + name +
                                      ".py --seeds 0,42 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto j = r.json();
  EXPECT_EQ(j["status"], "ok") << r.out;
  EXPECT_EQ(j["correct"], true) << r.out;
  for (auto& s : j["seeds"]) EXPECT_LT(s["rel_l2"].get<double>(), 1e-6);
  ASSERT_TRUE(j["profile"].is_object()) << r.out;
  EXPECT_GT(j["profile"]["latency"].get<double>(), 0);
}

TEST(ViewPairingCli, ChunksStraddlingRowsOfAFlattenedViewAreCorrect) { expect_correct("flat_row_chunks_api"); }

TEST(ViewPairingCli, A3DPatternCopiedIntoA2DTileIsCorrect) { expect_correct("halves_gathered_ap_api"); }

TEST(ViewPairingCli, TheDmaPairingAndTheChunkedViewLift) {
  TempDir tmp;
  CliRun lifted = accelopt(tmp.path(), "parse --kernel tests/kernels/halves_gathered_ap_api.py --reference "
                                       "tests/kernels/halves_gathered_ap_api.ref.py --emit loops");
  ASSERT_EQ(lifted.exit_code, 0) << lifted.err;
  // The gathered 128 partitions are one quasi-affine axis of the source: row p % 64, column block p // 64.
  EXPECT_NE(lifted.out.find("lo = nisa.dma_copy(src=x[a0[128] % 64, 256*i + 1024*(a0[128] // 64) + a1[256]])"),
            std::string::npos) << lifted.out;
  // The chunked view lifts as slices of one flat view of x (contiguous_merge, session 43; it was
  // refused as "reshape_dim of a quasi-affine axis").
  CliRun chunked = accelopt(tmp.path(), "parse --kernel tests/kernels/flat_row_chunks_api.py --reference "
                                        "tests/kernels/flat_row_chunks_api.ref.py --emit loops");
  ASSERT_EQ(chunked.exit_code, 0) << chunked.err;
  EXPECT_NE(chunked.out.find("tensor %1: hbm float32[128, 1536] view of x"), std::string::npos) << chunked.out;
  EXPECT_NE(chunked.out.find("t = nisa.dma_copy(src=%1[a0[128], 512*c + a1[512]])"), std::string::npos) << chunked.out;
  CliRun sites = accelopt(tmp.path(), "rewrite --kernel tests/kernels/halves_gathered_ap_api.py --reference "
                                      "tests/kernels/halves_gathered_ap_api.ref.py --json");
  ASSERT_EQ(sites.exit_code, 0) << sites.err;
  EXPECT_TRUE(sites.json().is_array()) << sites.out;
}

}  // namespace
}  // namespace bench_e2e
