// Properties of the whole stage on the golden traces, and what the simulator makes of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lower/lowering.h"
#include "trn/simulator.h"
#include "trn/trace_builder.h"
#include "trn/trace_text.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

namespace {

trn::TextTrace golden(const std::string& name) {
  fs::path path = fs::path(ACCELOPT_SOURCE_DIR) / "tests/golden/lower" / (name + ".trace");
  std::ifstream in(path);
  return trn::parse_trace_text(in, name);
}

double latency_us(const std::vector<trn::Record>& records, const std::string& arch = "trn1") {
  return trn::simulate(records, trn::arch_config(arch)).latency * 1e3;
}

uint64_t pe_flops(const std::vector<trn::Record>& records) {
  uint64_t f = 0;
  for (const auto& r : records)
    if (r.kind == trn::RecordKind::Instruction && r.inst.engine == trn::Engine::Tensor) f += r.inst.flops;
  return f;
}

uint64_t dma_bytes(const std::vector<trn::Record>& records) {
  uint64_t b = 0;
  for (const auto& r : records)
    if (r.kind == trn::RecordKind::Instruction && r.inst.engine == trn::Engine::Dma) b += r.inst.outputs[0].bytes();
  return b;
}

// Counts what reaches it and remembers the most records held back at once.
struct CountingSink : trn::TraceSink {
  uint64_t received = 0;
  void consume(const trn::Record&) override { ++received; }
};

}  // namespace

TEST(LowerPipeline, FoldingAndMergingKeepWorkAndTraffic) {
  for (const char* name : {"loop_folding_columns", "loop_folding_partition_slices",
                           "loop_folding_nested", "dma_coalescing_adjacent_columns", "dma_coalescing_row_blocks",
                           "dma_coalescing_adjacent_stores"}) {
    auto t = golden(name);
    auto lowered = lower::lower_trace(t.records);
    EXPECT_EQ(dma_bytes(lowered), dma_bytes(t.records)) << name;
    EXPECT_LT(lowered.size(), t.records.size()) << name;
    EXPECT_LT(latency_us(lowered, t.arch), latency_us(t.records, t.arch)) << name;
  }
}

TEST(LowerPipeline, PsumRulesKeepTheMatmulWork) {
  for (const char* name : {"psum_accumulation_affine_loop", "psum_accumulation_explicit_add",
                           "psum_copies_psum_operands", "psum_copies_accumulate_into_sbuf"}) {
    auto t = golden(name);
    EXPECT_EQ(pe_flops(lower::lower_trace(t.records)), pe_flops(t.records)) << name;
  }
}

TEST(LowerPipeline, PsumAccumulationRemovesAllButOneAdd) {
  auto t = golden("psum_accumulation_affine_loop");
  auto copies_only = lower::lower_trace(t.records, lower::parse_rules("psum_copies"));
  auto both = lower::lower_trace(t.records, lower::parse_rules("psum_copies,psum_accumulation"));
  auto adds = [](const std::vector<trn::Record>& rs) {
    int n = 0;
    for (const auto& r : rs) n += r.kind == trn::RecordKind::Instruction && r.inst.opcode == trn::Opcode::TensorTensor;
    return n;
  };
  EXPECT_EQ(adds(copies_only), 4);
  EXPECT_EQ(adds(both), 1);
  auto dve_ms = [](const std::vector<trn::Record>& rs) {
    return trn::simulate(rs, trn::arch_config("trn1")).engine_busy_ms.at("dve");
  };
  EXPECT_NEAR(dve_ms(both) * 4, dve_ms(copies_only), 1e-12);
}

TEST(LowerPipeline, SkipMiddleEndKeepsProgramOrder) {
  auto t = golden("loop_folding_not_skip_middle_end");
  auto lowered = lower::lower_trace(t.records);
  ASSERT_EQ(lowered.size(), t.records.size());
  for (size_t i = 0; i < lowered.size(); ++i) EXPECT_EQ(trn::format_record(lowered[i]), trn::format_record(t.records[i]));
}

TEST(LowerPipeline, HoistedLoadReadsLessHbm) {
  auto t = golden("hoist_loads_invariant_tile");
  auto p0 = trn::simulate(t.records, trn::arch_config("trn1"));
  auto p1 = trn::simulate(lower::lower_trace(t.records), trn::arch_config("trn1"));
  EXPECT_EQ(p0.hbm_read_bytes - p1.hbm_read_bytes, 3u * 128 * 128 * 4);
}

// A loop of a million tiny iterations flows through with bounded look-ahead: records reach the
// simulator long before the loop ends.
TEST(LowerPipeline, StreamsLongLoops) {
  CountingSink sink;
  lower::Lowering stage(sink);
  trn::TraceBuilder b(stage);
  auto x = b.sbuf("x", 128, 4);
  b.loop_begin(trn::LoopKind::Affine, 1 << 20);
  trn::Record iter;
  iter.kind = trn::RecordKind::LoopIteration;
  for (int i = 0; i < (1 << 20); ++i) {
    iter.loop.iteration = i;
    stage.consume(iter);
    auto col = b.tile(x, 0, 128, 1);
    col.offset = i % 4;  // four columns, then the same again: at most 4 iterations fold
    b.op(trn::Opcode::Activation, trn::Engine::Scalar, {col}, {col});
    if (i == (1 << 19)) EXPECT_GT(sink.received, uint64_t(1) << 16);
  }
  b.loop_end();
  stage.finish();
  EXPECT_GE(sink.received, uint64_t(1) << 18);
}
