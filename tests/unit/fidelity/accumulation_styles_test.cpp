// The compiler stage's PSUM accumulation end to end, from NKI source written in two styles
// (docs/simulator.md "Compiler stage"): a K loop that adds each matmul product into an SBUF
// accumulator, as `acc += nl.matmul(...)` (legacy nl API) or as nc_matmul into a PSUM tile and an
// explicit nisa.tensor_tensor add (newer destination-first API), runs on the device as PSUM
// accumulation with one copy at the end (issue 11: such a kernel ran 29% faster on the device
// where the simulator without the rule called it 50% slower). Inside a sequential_range the
// compiler keeps the SBUF adds (MM Opt 3, KOPT v5), so the kernel stays bound by its VectorE adds.
#include <gtest/gtest.h>

#include <filesystem>

#include "lowered_profile.h"

namespace {

namespace fs = std::filesystem;
using lowered_profile::Measured;

Measured profile(const fs::path& kernel, const std::string& rules = "all") {
  return lowered_profile::profile("matmul_reference.py", kernel, lower::Rule::PsumAccumulation, rules);
}

}  // namespace

TEST(AccumulationStyles, SbufAccumulationRunsLikePsumAccumulationInEitherStyle) {
  const Measured psum = profile("psum_accumulation.py");
  EXPECT_EQ(psum.changes, 0u);
  for (const char* name : {"sbuf_accumulation.py", "sbuf_accumulation_new_api.py"}) {
    SCOPED_TRACE(name);
    const Measured lowered = profile(name);
    const Measured adds_kept = profile(name, "psum_copies");
    EXPECT_GT(lowered.changes, 0u);
    // One VectorE add per output tile instead of one per K block: within 2% of the kernel that
    // accumulates in PSUM itself (the remaining add), and far from the 8 adds per tile.
    EXPECT_NEAR(lowered.latency_us / psum.latency_us, 1.0, 0.02);
    EXPECT_GT(adds_kept.latency_us, 1.3 * lowered.latency_us);
  }
}

TEST(AccumulationStyles, SequentialRangeKeepsTheSbufAdds) {
  // The legacy-style kernel with its K loop (the innermost affine_range) made a sequential_range.
  const fs::path seq = lowered_profile::with_sequential_loop("sbuf_accumulation.py", "nl.affine_range(K // 128):\n      acc");
  const Measured run = profile(seq);
  fs::remove(seq);
  const Measured psum = profile("psum_accumulation.py");
  EXPECT_EQ(run.changes, 0u);
  EXPECT_GT(run.latency_us, 1.3 * psum.latency_us);
}
