// The simulator's own profile field sbuf_space_wait_ms (trn::Profile; docs/simulator.md, On-chip
// memory): what SBUF space costs a kernel, its latency less that of the same trace on a core whose
// SBUF never runs out. Kernels of tests/kernels/space_wait, legacy and newer nki API.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "simulated_pair.h"
#include "trn/arch_config.h"
#include "trn/profile.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(ACCELOPT_SOURCE_DIR) / "tests" / "kernels" / "space_wait";

trn::Profile profile_of(const std::string& kernel, const trn::ArchConfig& arch = trn::arch_config("trn1")) {
  eval::ProfileRun run = eval::profile_kernel(
      eval::trace_request_from_files((kDir / "rows.ref.py").string(), (kDir / kernel).string()), arch);
  EXPECT_TRUE(run.profile.has_value()) << kernel;
  return run.profile.value_or(trn::Profile{});
}

// A whole row per iteration: three of its 48 KiB tiles live at once fill trn1's 176 KiB partition,
// so the next row's loads wait for this row's tiles to be released, and the Scalar Engine waits for
// those loads: with SBUF to spare the rows' loads overlap and the run is 0.42 ms, not 0.60. In
// 512-column chunks (8 KiB a chunk) nothing waits for space; the field is 0, not absent.
TEST(TrnSpaceWait, WholeRowsFillingSbufWaitOnSpaceAndChunkedRowsDoNot) {
  trn::ArchConfig roomy = trn::arch_config("trn1");
  roomy.sbuf_bytes_per_partition = 64 * 1024 * 1024;
  for (const char* kernel : {"whole_rows.py", "whole_rows_api.py"}) {
    SCOPED_TRACE(kernel);
    simulated_pair::expect_computes_the_reference(kDir, "rows.ref.py", kernel);
    trn::Profile p = profile_of(kernel);
    ASSERT_TRUE(p.sbuf_space_wait_ms.has_value());
    EXPECT_GT(*p.sbuf_space_wait_ms, 0.25 * p.latency);
    EXPECT_NEAR(*p.sbuf_space_wait_ms, p.latency - profile_of(kernel, roomy).latency, 1e-9);
  }
  simulated_pair::expect_computes_the_reference(kDir, "rows.ref.py", "chunked_rows.py");
  trn::Profile chunked = profile_of("chunked_rows.py");
  ASSERT_TRUE(chunked.sbuf_space_wait_ms.has_value());
  EXPECT_EQ(*chunked.sbuf_space_wait_ms, 0.0);
}

// A DMA-bound stream whose loads run ahead until SBUF is full and then wait for space: the space
// is released by stores the bandwidth paces, so more SBUF buys nothing and the field is 0. (The
// earlier field, the time some instruction waited for space, said 0.34 of its 0.42 ms, and the
// planner read every such kernel as space-bound.)
TEST(TrnSpaceWait, ADmaBoundStreamWithFullBuffersIsNotSpaceBound) {
  simulated_pair::expect_computes_the_reference(kDir, "rows.ref.py", "wide_chunks.py");
  trn::Profile p = profile_of("wide_chunks.py");
  EXPECT_EQ(p.bound_class, "dma");
  ASSERT_TRUE(p.sbuf_space_wait_ms.has_value());
  EXPECT_EQ(*p.sbuf_space_wait_ms, 0.0);
}

// The field is measured beside the schedule, never part of it: the profile of the same trace is the
// same with or without anyone reading it, and its JSON carries it (absent when unknown, as in a real
// profiler's profile, which reads back as unknown). tests/golden/trn/*.profile pin the latencies.
TEST(TrnSpaceWait, FieldRoundTripsThroughJsonAndIsAbsentWhenUnknown) {
  trn::Profile p = profile_of("whole_rows.py");
  nlohmann::json j = trn::to_json(p);
  ASSERT_TRUE(j.contains("sbuf_space_wait_ms"));
  trn::Profile back = trn::profile_from_json(j);
  ASSERT_TRUE(back.sbuf_space_wait_ms.has_value());
  EXPECT_DOUBLE_EQ(*back.sbuf_space_wait_ms, *p.sbuf_space_wait_ms);
  EXPECT_DOUBLE_EQ(back.latency, p.latency);
  j.erase("sbuf_space_wait_ms");
  EXPECT_FALSE(trn::profile_from_json(j).sbuf_space_wait_ms.has_value());
  EXPECT_FALSE(trn::to_json(trn::profile_from_json(j)).contains("sbuf_space_wait_ms"));
  j["sbuf_space_wait_ms"] = "x";
  EXPECT_THROW(trn::profile_from_json(j), std::runtime_error);
}

}  // namespace
