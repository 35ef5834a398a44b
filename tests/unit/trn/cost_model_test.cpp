// The published cost formulas, checked on cases worked out by hand (docs/simulator.md).
#include <gtest/gtest.h>

#include <stdexcept>

#include "trn/arch_config.h"
#include "trn/cost_model.h"

namespace {

const trn::ArchConfig& trn1() { return trn::arch_config("trn1"); }

trn::Operand tile(uint32_t free, uint8_t dtype_bytes = 4, trn::BufferKind buffer = trn::BufferKind::Sbuf) {
  trn::Operand op;
  op.buffer = buffer;
  op.partitions = 128;
  op.free_elements = free;
  op.dtype_bytes = dtype_bytes;
  op.fp32 = dtype_bytes == 4;
  return op;
}

trn::InstructionInfo inst(trn::Opcode opcode, trn::Engine engine, std::vector<trn::Operand> in,
                          std::vector<trn::Operand> out) {
  trn::InstructionInfo i;
  i.opcode = opcode;
  i.engine = engine;
  i.inputs = std::move(in);
  i.outputs = std::move(out);
  return i;
}

trn::InstructionInfo matmul(uint32_t stationary, uint32_t moving, uint8_t dtype_bytes) {
  auto i = inst(trn::Opcode::MatMul, trn::Engine::Tensor, {tile(stationary, dtype_bytes), tile(moving, dtype_bytes)},
                {tile(moving, 4, trn::BufferKind::Psum)});
  i.matmul_rows = 128;
  i.matmul_stationary_cols = stationary;
  i.matmul_moving_cols = moving;
  return i;
}

}  // namespace

TEST(TrnArch, KnownConfigsAndUnknownName) {
  EXPECT_EQ(trn1().name, "trn1");
  EXPECT_EQ(trn::arch_config("trn2").name, "trn2");
  EXPECT_DOUBLE_EQ(trn1().tensor_peak_flops(), 2.0 * 128 * 128 * 2.8e9);
  EXPECT_NEAR(trn1().tensor_peak_flops() / trn1().profiler_hbm_bytes_per_s, 223.7815, 1e-3);
  EXPECT_THROW(trn::arch_config("trn9"), std::invalid_argument);
}

TEST(TrnArch, DmaEfficiencyFollowsTheDigitizedCurve) {
  EXPECT_DOUBLE_EQ(trn1().dma_efficiency_at(4096), 0.97);
  EXPECT_DOUBLE_EQ(trn1().dma_efficiency_at(1 << 20), 1.0);
  EXPECT_NEAR(trn1().dma_efficiency_at(3072), (0.81 + 0.97) / 2, 1e-12);
  EXPECT_LT(trn1().dma_efficiency_at(16), trn1().dma_efficiency_at(32));
  EXPECT_GT(trn1().dma_efficiency_at(0), 0.0);
}

TEST(TrnCost, MatmulIsMaxOfStationaryFloorAndMoving) {
  EXPECT_EQ(trn::instruction_cycles(matmul(128, 512, 2), trn1()), 512u);
  EXPECT_EQ(trn::instruction_cycles(matmul(128, 512, 4), trn1()), 4u * 512);  // fp32 at 1/4 rate
  EXPECT_EQ(trn::instruction_cycles(matmul(128, 16, 2), trn1()), 64u);        // min(64, 128) floor
  EXPECT_EQ(trn::instruction_cycles(matmul(32, 16, 2), trn1()), 32u);
  EXPECT_EQ(trn::hardware_flops(matmul(128, 512, 2), trn1()), 2ull * 128 * 128 * 512);
  EXPECT_EQ(trn::hardware_flops(matmul(128, 512, 4), trn1()), 4ull * 128 * 128 * 512);
}

TEST(TrnCost, ElementwiseFormulasWithFloorAndOverhead) {
  const uint64_t overhead = trn1().static_overhead;
  auto act = inst(trn::Opcode::Activation, trn::Engine::Scalar, {tile(1024)}, {tile(1024)});
  EXPECT_EQ(trn::instruction_cycles(act, trn1()), 1024 + overhead);
  auto tiny = inst(trn::Opcode::Activation, trn::Engine::Scalar, {tile(8)}, {tile(8)});
  EXPECT_EQ(trn::instruction_cycles(tiny, trn1()), 64 + overhead);  // MIN_II
  act.has_reduce = true;
  EXPECT_EQ(trn::instruction_cycles(act, trn1()), 1024 + 64 + overhead);
  auto tt_sbuf = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512), tile(512)}, {tile(512)});
  // Two SBUF inputs stream slower than one (calibrated rate, docs/simulator.md): 1.5 cycles/element.
  EXPECT_EQ(trn::instruction_cycles(tt_sbuf, trn1()), 768 + overhead);
  auto recip = inst(trn::Opcode::Reciprocal, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(recip, trn1()), 3 * 512 + overhead);
  auto tt_odd = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(101), tile(101)}, {tile(101)});
  EXPECT_EQ(trn::instruction_cycles(tt_odd, trn1()), 152 + overhead);  // fractional rate rounds up
  auto tt_psum = inst(trn::Opcode::TensorTensor, trn::Engine::Vector,
                      {tile(512, 4, trn::BufferKind::Psum), tile(512)}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(tt_psum, trn1()), 512 + overhead);
  auto iota = inst(trn::Opcode::Iota, trn::Engine::GpSimd, {}, {tile(100)});
  EXPECT_EQ(trn::instruction_cycles(iota, trn1()), 150 + 100 + overhead);
  auto strided = tile(512);
  strided.strided = true;
  auto copy = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {strided}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(copy, trn1()), 2 * 512 + overhead);
  EXPECT_NEAR(trn::instruction_ns(copy, trn1()), (2 * 512 + overhead) / 1.12, 1e-9);
}

TEST(TrnCost, EngineChoiceOnlyForMovableInstructions) {
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_TRUE(trn::engine_is_flexible(ts));
  ts.engine_chosen_by_user = true;
  EXPECT_FALSE(trn::engine_is_flexible(ts));
  auto tt = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512), tile(512)}, {tile(512)});
  EXPECT_FALSE(trn::engine_is_flexible(tt));
}

TEST(TrnCost, DmaTimeFromBytesEnginesAndRowLength) {
  trn::DmaShape full{524288, 128, 4096, false};
  trn::DmaTiming t = trn::dma_timing(full, trn1());
  const double engine = trn1().dma_engine_bytes_per_ns;
  EXPECT_NEAR(t.duration_ns, 524288 / (16 * engine * 0.97), 1e-6);
  EXPECT_DOUBLE_EQ(t.fabric_ns, t.duration_ns);
  EXPECT_DOUBLE_EQ(t.setup_ns, 1300);
  // Eight partitions are one engine's share: 1/16 of the bandwidth, 1/16 of the fabric.
  trn::DmaShape narrow{32768, 8, 4096, false};
  trn::DmaTiming n = trn::dma_timing(narrow, trn1());
  EXPECT_NEAR(n.duration_ns, 32768 / (engine * 0.97), 1e-6);
  EXPECT_NEAR(n.fabric_ns, n.duration_ns / 16, 1e-6);
  // Short rows are descriptor-bound.
  trn::DmaShape short_rows{524288, 128, 256, false};
  EXPECT_GT(trn::dma_timing(short_rows, trn1()).duration_ns, 9 * t.duration_ns);
}

TEST(TrnCost, PsumEvacuationsThatTheCompilerPlacesGoToScalar) {
  auto evac = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {tile(512, 4, trn::BufferKind::Psum)}, {tile(512)});
  EXPECT_EQ(trn::placed_engine(evac), trn::Engine::Scalar);
  EXPECT_FALSE(trn::engine_is_flexible(evac));
  evac.engine_chosen_by_user = true;  // the user's engine stands
  EXPECT_EQ(trn::placed_engine(evac), trn::Engine::Vector);
  auto sbuf_copy = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_EQ(trn::placed_engine(sbuf_copy), trn::Engine::Vector);
  EXPECT_TRUE(trn::engine_is_flexible(sbuf_copy));
  // Two-input VectorE work on PSUM is not movable at all.
  auto add = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512, 4, trn::BufferKind::Psum), tile(512)},
                  {tile(512)});
  EXPECT_EQ(trn::placed_engine(add), trn::Engine::Vector);
}
