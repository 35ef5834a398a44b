#include <gtest/gtest.h>

#include <sstream>

#include "trn/trace_text.h"

namespace {

trn::TextTrace parse(const std::string& text) {
  std::istringstream in(text);
  return trn::parse_trace_text(in, "t.trace");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TrnTraceText, ParsesRecordsAndOperands) {
  auto t = parse(
      "# comment\narch trn2\nalloc 3 sbuf name=x blocks=4 partitions=128 bytes=4096 input\n"
      "inst matmul pe acc line=9 mm=128,64,512 in sbuf:3.2:128x64:bf16:c128 sbuf:4:128x512 "
      "out psum:5:128x512:f32:strided\n");
  EXPECT_EQ(t.arch, "trn2");
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].alloc.blocks, 4u);
  EXPECT_TRUE(t.records[0].alloc.is_kernel_input);
  const auto& inst = t.records[1].inst;
  EXPECT_EQ(inst.opcode, trn::Opcode::MatMul);
  EXPECT_TRUE(inst.accumulate);
  EXPECT_EQ(t.records[1].line, 9u);
  EXPECT_EQ(inst.matmul_stationary_cols, 64u);
  EXPECT_EQ(inst.inputs[0].block, 2u);
  EXPECT_EQ(inst.inputs[0].dtype_bytes, 2);
  EXPECT_FALSE(inst.inputs[0].fp32);
  EXPECT_EQ(inst.inputs[0].contiguous_bytes, 128u);
  EXPECT_TRUE(inst.outputs[0].strided);
  EXPECT_EQ(t.records[1].seq, 1u);
}

TEST(TrnTraceText, FormatThenParseKeepsTheInstruction) {
  auto t = parse("inst activation act reduce line=4 in sbuf:1.0:128x512:f32 out sbuf:2.0:128x512:f32\n");
  std::string again = trn::format_record(t.records[0]);
  auto u = parse(again + "\n");
  EXPECT_EQ(trn::format_record(u.records[0]), again);
  EXPECT_TRUE(u.records[0].inst.has_reduce);
}

TEST(TrnTraceText, OnezeroFlagsRoundTrip) {
  for (std::string flag : {"stationary", "moving", "both"}) {
    auto t = parse("inst transpose pe line=3 mm=128,128,128 onezero=" + flag +
                   " in sbuf:1.0:128x128:f32 sbuf:2.0:128x128:f32 out psum:3.0:128x128:f32\n");
    const auto& inst = t.records[0].inst;
    EXPECT_EQ(inst.stationary_onezero, flag != "moving");
    EXPECT_EQ(inst.moving_onezero, flag != "stationary");
    EXPECT_NE(trn::format_record(t.records[0]).find(" onezero=" + flag + " "), std::string::npos);
  }
  EXPECT_EQ(error_of("inst matmul pe onezero=left in\n"), "t.trace:1: onezero= needs stationary, moving or both, got 'left'");
}

TEST(TrnTraceText, IndirectOperandsRoundTrip) {
  auto t = parse("inst dma_load dma line=4 in hbm:1.0:128x512:c2048:d128:indirect sbuf:2.0:128x1:i32 out sbuf:3.0:128x512\n");
  const auto& inst = t.records[0].inst;
  ASSERT_EQ(inst.inputs.size(), 2u);
  EXPECT_TRUE(inst.inputs[0].indirect);
  EXPECT_FALSE(inst.inputs[1].indirect);
  EXPECT_NE(trn::format_record(t.records[0]).find(":d128:indirect "), std::string::npos);
}

TEST(TrnTraceText, ErrorsNameTheLine) {
  EXPECT_EQ(error_of("\ninst frobnicate pe in out\n"), "t.trace:2: unknown opcode 'frobnicate'");
  EXPECT_EQ(error_of("inst matmul gpu\n"), "t.trace:1: unknown engine 'gpu' (pe, dve, act, pool, sp, dma)");
  EXPECT_EQ(error_of("inst matmul pe in sbuf:1:128\n"), "t.trace:1: shape '128' must be PxF");
  EXPECT_EQ(error_of("alloc x sbuf\n"), "t.trace:1: bad tensor id 'x'");
  EXPECT_EQ(error_of("inst matmul pe sbuf:1:1x1\n"), "t.trace:1: operand 'sbuf:1:1x1' before 'in' or 'out'");
  EXPECT_EQ(error_of("bogus\n"), "t.trace:1: unknown record 'bogus' (alloc, inst, loop, kernel, arch)");
  EXPECT_EQ(error_of("inst matmul pe in sbuf:1:1x1:q7\n"), "t.trace:1: unknown operand modifier 'q7'");
}

TEST(TrnTraceText, LoopsKernelAttributesAndLayoutRoundTrip) {
  const std::string text =
      "kernel skip_middle_end_transformations\n"
      "loop begin affine_range 3 8\n"
      "loop iter 3 0\n"
      "inst tensor_tensor dve acc user alu=add line=2 in sbuf:1.0:64x4:f32:c4:d256:strided:s64:o3:p16:e49 "
      "hbm:2:64x4:f32:r128:o-8 out sbuf:1.0:64x4:f32  # a note\n"
      "loop end 3\n"
      "inst scalar_tensor_tensor dve alu=multiply salu=subtract line=3 in sbuf:1.0:64x4:bf16 sbuf:1.1:64x4:bf16 "
      "out sbuf:3:64x4:bf16\n";
  auto t = parse(text);
  ASSERT_EQ(t.records.size(), 6u);
  EXPECT_TRUE(t.records[0].kernel.skip_middle_end_transformations);
  EXPECT_EQ(t.records[1].kind, trn::RecordKind::LoopBegin);
  EXPECT_EQ(t.records[1].loop.kind, trn::LoopKind::Affine);
  EXPECT_EQ(t.records[1].loop.trip_count, 8);
  EXPECT_EQ(t.records[2].kind, trn::RecordKind::LoopIteration);
  EXPECT_EQ(t.records[4].kind, trn::RecordKind::LoopEnd);
  const auto& inst = t.records[3].inst;
  EXPECT_EQ(inst.alu, trn::AluOp::Add);
  EXPECT_TRUE(inst.engine_chosen_by_user);
  EXPECT_EQ(inst.inputs[0].partition_start, 64);
  EXPECT_EQ(inst.inputs[0].offset, 3);
  EXPECT_EQ(inst.inputs[0].pitch, 16u);
  EXPECT_EQ(inst.inputs[0].extent, 49u);
  EXPECT_EQ(inst.inputs[1].row_stride, 128);
  EXPECT_EQ(inst.inputs[1].offset, -8);
  // scalar_tensor_tensor's two operations (its cost depends on both).
  EXPECT_EQ(t.records[5].inst.opcode, trn::Opcode::ScalarTensorTensor);
  EXPECT_EQ(t.records[5].inst.alu, trn::AluOp::Multiply);
  EXPECT_EQ(t.records[5].inst.scalar_alu, trn::AluOp::Subtract);
  std::string formatted;
  for (const auto& r : t.records) formatted += trn::format_record(r) + "\n";
  auto again = parse(formatted);
  ASSERT_EQ(again.records.size(), t.records.size());
  for (size_t i = 0; i < t.records.size(); ++i)
    EXPECT_EQ(trn::format_record(again.records[i]), trn::format_record(t.records[i]));
  EXPECT_EQ(again.records[3].inst.inputs, t.records[3].inst.inputs);
  EXPECT_EQ(again.records[5].inst.scalar_alu, trn::AluOp::Subtract);
}

// A copy with no Scalar Engine form on its NeuronCore (the newer API's tensor_copy on NC-v2) keeps
// the mark through the text form, which the cost model reads (placed_engine).
TEST(TrnTraceText, KeepsACopyWithoutAScalarEngineForm) {
  auto t = parse("inst tensor_copy dve noact line=4 in psum:5:128x512:f32 out sbuf:6:128x512:f32\n"
                 "inst tensor_copy dve line=5 in psum:5:128x512:f32 out sbuf:7:128x512:f32\n");
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_TRUE(t.records[0].inst.no_scalar_engine);
  EXPECT_FALSE(t.records[1].inst.no_scalar_engine);
  auto again = parse(trn::format_record(t.records[0]) + "\n");
  ASSERT_EQ(again.records.size(), 1u);
  EXPECT_TRUE(again.records[0].inst.no_scalar_engine);
}
