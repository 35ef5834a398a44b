// Golden loop-nest forms (`accelopt parse --emit loops`) of kernels in each style:
// tests/golden/loopnest/<path with / as __>.loops. ACCELOPT_UPDATE_GOLDEN=1 rewrites them.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "corpus.h"
#include "loopnest/dump.h"
#include "loopnest/lift.h"

namespace {

const char* const kGolden[] = {
    "nkibench/kernels/silu_M4096_N7168_0.py",
    "nkibench/styles/legacy_grid/silu_M4096_N7168_0.py",
    "nkibench/kernels/adamw_M10944_N2048_0.py",
    "nkibench/styles/legacy_grid/adamw_M10944_N2048_0.py",
    "nkibench/kernels/mamba_M7168_C256_S16_0.py",
    "nkibench/kernels/bmm_softmax_B16_K64_M4096_N4096_0.py",
    "nkibench/styles/legacy_grid/bmm_softmax_B16_K64_M4096_N4096_0.py",
    "nkibench/kernels/rope_single_freq_apply_B1_H64_N4096_D128_0.py",
    "tests/kernels/newer_api.py",
    "tests/kernels/masked_blocks.py",
    "tests/kernels/mgrid_broadcast.py",
    "tests/kernels/matmul.py",
    "tests/golden/bench/published_layout/kernels/add_rmsnorm_matmul_M256_N512_K256_0.py",
    // names carried through a sequential_range: buffers the loop carries (lift_carry.cpp)
    "tests/kernels/corpus/p10_online_logsumexp_sequential.py",
    "tests/kernels/corpus/p10_cummax_scan_carry.py",
};

TEST(LoopNestGolden, FormsOfKernelsInEveryStyle) {
  auto kernels = loopnest_test::corpus();
  bool update = std::getenv("ACCELOPT_UPDATE_GOLDEN") != nullptr;
  for (const char* path : kGolden) {
    const loopnest_test::CorpusKernel* k = nullptr;
    for (const auto& c : kernels)
      if (c.path == path) k = &c;
    ASSERT_TRUE(k) << path;
    std::string got = loopnest::dump(loopnest::lift_source(k->path, k->text, k->args));
    std::string name = path;
    for (auto& ch : name)
      if (ch == '/') ch = '_';
    std::string golden = loopnest_test::source_dir() + "/tests/golden/loopnest/" + name + ".loops";
    if (update) std::ofstream(golden) << got;
    EXPECT_EQ(got, loopnest_test::read(golden)) << path << " (ACCELOPT_UPDATE_GOLDEN=1 regenerates " << golden << ")";
  }
}

}  // namespace
