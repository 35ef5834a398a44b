// The compiler stage's loop folding and PSUM->SBUF copies end to end, from NKI source written in
// styles other than tests/golden/lower/nki/tiny_columns.py (slices, nl calls; LowerCli.*):
// nl.arange index grids with nisa.activation, and the newer destination-first `nki` API
// (docs/simulator.md "Compiler stage"; issue 11: one kernel of tiny per-column instructions
// simulated 41.7x slower than the device, and kernels that assign TensorE results to SBUF or pass
// a PSUM tile to nc_matmul ran on the device because the compiler inserts the copies).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "eval/profile_run.h"
#include "lowered_profile.h"
#include "lower/lowering.h"
#include "trn/trace.h"
#include "support/test_paths.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(ACCELOPT_SOURCE_DIR);

using Folded = lowered_profile::Measured;

Folded profile(const fs::path& kernel, const std::string& rules = "all") {
  return lowered_profile::profile("column_reference.py", kernel, lower::Rule::LoopFolding, rules);
}

struct Collect : trn::TraceSink {
  std::vector<trn::Record> records;
  void consume(const trn::Record& r) override { records.push_back(r); }
};

}  // namespace

TEST(LoweringStyles, ColumnLoopsFoldInEveryStyle) {
  for (const char* name : {"columns_arange.py", "columns_new_api.py"}) {
    SCOPED_TRACE(name);
    const Folded folded = profile(name);
    const Folded unfolded = profile(name, "none");
    EXPECT_GT(folded.changes, 0u);
    // 64 one-column activations per block become one [128 x 64] instruction (16.98 vs 27.71 us;
    // the block loop's [128 x 64] loads and stores stay one transfer each: a loop that issues a
    // DMA does not fold, session 24; with them merged it was 5.17 us).
    EXPECT_LT(folded.latency_us * 1.5, unfolded.latency_us);
    // The column loop made a sequential_range is not folded (it keeps its program order).
    const fs::path seq = lowered_profile::with_sequential_loop(name, "for c in nl.affine_range(64)");
    const Folded sequential = profile(seq);
    fs::remove(seq);
    EXPECT_EQ(sequential.changes, 0u);
    EXPECT_GT(sequential.latency_us, 4 * folded.latency_us);
  }
}

// After the stage, whatever the kernel wrote, the Tensor Engine reads SBUF and writes PSUM only,
// and no DMA touches PSUM (ARCH2, DMAO): the corpus kernel assigns a transpose and a matmul to
// SBUF tiles, passes a PSUM transpose as nc_matmul's operands and stores a PSUM result.
TEST(LoweringStyles, TensorEngineResultsReachSbufThroughInsertedCopies) {
  const fs::path corpus = kSource / "tests/kernels/corpus";
  eval::TraceRequest req = eval::trace_request_from_files((corpus / "con_tensor_engine_to_sbuf.ref.py").string(),
                                                          (corpus / "con_tensor_engine_to_sbuf.py").string());
  Collect raw, lowered;
  ASSERT_EQ(eval::trace_kernel(req, raw).status, eval::Status::Ok);
  lower::Lowering stage(lowered);
  ASSERT_EQ(eval::trace_kernel(req, stage).status, eval::Status::Ok);
  auto illegal = [](const std::vector<trn::Record>& records) {
    int n = 0;
    for (const auto& r : records) {
      if (r.kind != trn::RecordKind::Instruction) continue;
      if (r.inst.engine == trn::Engine::Tensor) {
        for (const auto& in : r.inst.inputs) n += in.buffer != trn::BufferKind::Sbuf;
        for (const auto& out : r.inst.outputs) n += out.buffer != trn::BufferKind::Psum;
      } else if (r.inst.engine == trn::Engine::Dma) {
        for (const auto& in : r.inst.inputs) n += in.buffer == trn::BufferKind::Psum;
        for (const auto& out : r.inst.outputs) n += out.buffer == trn::BufferKind::Psum;
      }
    }
    return n;
  };
  EXPECT_GT(illegal(raw.records), 0) << "the kernel no longer exercises the copies";
  EXPECT_EQ(illegal(lowered.records), 0);
  uint64_t copies = 0;
  for (const auto& [rule, stats] : stage.stats())
    if (rule == lower::Rule::PsumCopies) copies = stats.changed;
  EXPECT_GT(copies, 0u);
}
