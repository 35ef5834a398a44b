// The published cost formulas, checked on cases worked out by hand (docs/simulator.md).
#include <gtest/gtest.h>

#include <stdexcept>

#include "trn/arch_config.h"
#include "trn/cost_model.h"
#include "trn/hazards.h"

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

TEST(TrnCost, AnFp32OperandOfOnesAndZerosHalvesTheFp32Factor) {
  // ISA nc_matmul: is_stationary_onezero / is_moving_onezero "may give 2x better performance when
  // that operand is FP32": the NKIBench transpose nc_matmul(x, identity, is_moving_onezero=True).
  auto transpose = matmul(128, 128, 4);
  transpose.opcode = trn::Opcode::Transpose;
  EXPECT_EQ(trn::instruction_cycles(transpose, trn1()), 4u * 128);
  transpose.moving_onezero = true;
  EXPECT_EQ(trn::instruction_cycles(transpose, trn1()), 2u * 128);
  EXPECT_EQ(trn::hardware_flops(transpose, trn1()), 4ull * 128 * 128 * 128);  // still two passes counted
  auto broadcast = matmul(128, 512, 4);
  broadcast.stationary_onezero = true;
  EXPECT_EQ(trn::instruction_cycles(broadcast, trn1()), 2u * 512);
  // A partition broadcast is that matmul with the compiler's ones as the flagged stationary (ARCH2:
  // "partition broadcast = matmul with a ones row (is_stationary_onezero=True)"): the record carries
  // only the data row, whose type the ones take.
  auto row_broadcast = inst(trn::Opcode::Broadcast, trn::Engine::Tensor, {tile(512)}, {tile(512, 4, trn::BufferKind::Psum)});
  row_broadcast.inputs[0].partitions = 1;
  EXPECT_EQ(trn::instruction_cycles(row_broadcast, trn1()), 2u * 512);
  auto row_broadcast16 = inst(trn::Opcode::Broadcast, trn::Engine::Tensor, {tile(512, 2)}, {tile(512, 4, trn::BufferKind::Psum)});
  EXPECT_EQ(trn::instruction_cycles(row_broadcast16, trn1()), 512u);
  // A flag on a 16-bit operand changes nothing; the rule can be switched off.
  auto narrow = matmul(128, 512, 2);
  narrow.moving_onezero = true;
  EXPECT_EQ(trn::instruction_cycles(narrow, trn1()), 512u);
  trn::ArchConfig off = trn1();
  off.onezero_halves_fp32 = false;
  EXPECT_EQ(trn::instruction_cycles(broadcast, off), 4u * 512);
  EXPECT_EQ(trn::instruction_cycles(row_broadcast, off), 4u * 512);
}

TEST(TrnCost, ElementwiseFormulasWithFloor) {
  auto act = inst(trn::Opcode::Activation, trn::Engine::Scalar, {tile(1024)}, {tile(1024)});
  EXPECT_EQ(trn::instruction_cycles(act, trn1()), 1024u);
  auto tiny = inst(trn::Opcode::Activation, trn::Engine::Scalar, {tile(8)}, {tile(8)});
  EXPECT_EQ(trn::instruction_cycles(tiny, trn1()), 64u);  // MIN_II
  act.has_reduce = true;
  EXPECT_EQ(trn::instruction_cycles(act, trn1()), 1024u + 64);
  // fp32 tensor_tensor with both inputs in SBUF streams 2 cycles per element (ISA); a PSUM input
  // or all-16-bit add/subtract/multiply 1.
  auto tt_sbuf = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512), tile(512)}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(tt_sbuf, trn1()), 2u * 512);
  auto tt_psum = inst(trn::Opcode::TensorTensor, trn::Engine::Vector,
                      {tile(512, 4, trn::BufferKind::Psum), tile(512)}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(tt_psum, trn1()), 512u);
  auto tt_bf16 = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512, 2), tile(512, 2)}, {tile(512, 2)});
  tt_bf16.alu = trn::AluOp::Multiply;
  EXPECT_EQ(trn::instruction_cycles(tt_bf16, trn1()), 512u);
  tt_bf16.alu = trn::AluOp::Max;  // not on the 16-bit fast path
  EXPECT_EQ(trn::instruction_cycles(tt_bf16, trn1()), 1024u);
  auto recip = inst(trn::Opcode::Reciprocal, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(recip, trn1()), uint64_t(trn1().vector_reciprocal_factor * 512));
  auto iota = inst(trn::Opcode::Iota, trn::Engine::GpSimd, {}, {tile(100)});
  EXPECT_EQ(trn::instruction_cycles(iota, trn1()), 150u + 100);
  auto strided = tile(512);
  strided.strided = true;
  auto copy = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {strided}, {tile(512)});
  EXPECT_EQ(trn::instruction_cycles(copy, trn1()), 2u * 512);
  EXPECT_NEAR(trn::instruction_ns(copy, trn1()), 2 * 512 / 1.12, 1e-9);
}

// ISA memset, "Vector (or GpSimd)": max(MIN_II, N), N/2 for 16-bit, on the engine that runs it;
// the GpSimd start-up (150) is published for iota / affine_select / local_gather only (session 23:
// a GpSimd memset cost 150 + N).
TEST(TrnCost, AMemsetIsMaxMinIiNOnEitherEngine) {
  for (auto engine : {trn::Engine::Vector, trn::Engine::GpSimd}) {
    EXPECT_EQ(trn::instruction_cycles(inst(trn::Opcode::Memset, engine, {}, {tile(2048)}), trn1()), 2048u);
    EXPECT_EQ(trn::instruction_cycles(inst(trn::Opcode::Memset, engine, {}, {tile(2048, 2)}), trn1()), 1024u);
    EXPECT_EQ(trn::instruction_cycles(inst(trn::Opcode::Memset, engine, {}, {tile(1)}), trn1()), 64u);
  }
  auto select = inst(trn::Opcode::Select, trn::Engine::GpSimd, {tile(2048)}, {tile(2048)});
  EXPECT_EQ(trn::instruction_cycles(select, trn1()), 150u + 2048);
}

TEST(TrnCost, ScalarTensorTensorIsOneInstructionOf2NOrNOnTheBf16SubtractMultiplyPath) {
  // ISA cost table: 2N, or N when data and operand1 are bf16, op0 subtract, op1 multiply, N even;
  // not the tensor_scalar (N) plus tensor_tensor (2N) it computes.
  auto stt = inst(trn::Opcode::ScalarTensorTensor, trn::Engine::Vector, {tile(512), tile(512)}, {tile(512)});
  stt.scalar_alu = trn::AluOp::Subtract;
  stt.alu = trn::AluOp::Multiply;
  EXPECT_EQ(trn::instruction_cycles(stt, trn1()), 2u * 512);
  auto bf16 = inst(trn::Opcode::ScalarTensorTensor, trn::Engine::Vector, {tile(512, 2), tile(512, 2)}, {tile(512, 2)});
  bf16.scalar_alu = trn::AluOp::Subtract;
  bf16.alu = trn::AluOp::Multiply;
  EXPECT_EQ(trn::instruction_cycles(bf16, trn1()), 512u);
  bf16.scalar_alu = trn::AluOp::Multiply;  // another op0: off the fast path
  EXPECT_EQ(trn::instruction_cycles(bf16, trn1()), 2u * 512);
  auto odd = inst(trn::Opcode::ScalarTensorTensor, trn::Engine::Vector, {tile(511, 2), tile(511, 2)}, {tile(511, 2)});
  odd.scalar_alu = trn::AluOp::Subtract;
  odd.alu = trn::AluOp::Multiply;
  EXPECT_EQ(trn::instruction_cycles(odd, trn1()), 2u * 511);  // N odd
}

TEST(TrnCost, FixedOverheadIsStaticPlusTheAccessWaitedOn) {
  // ARCH2: ~100 cycles static overhead and ~60 cycles per tensor access request, in the engine's
  // clock; only the request of the operand the instruction waited on is exposed (the others are
  // issued while it waits), whatever the number of operands.
  auto tt = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512), tile(512)}, {tile(512)});
  EXPECT_NEAR(trn::fixed_overhead_ns(tt, trn1()), (100 + 60) / 1.12, 1e-9);
  auto copy = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_EQ(trn::fixed_overhead_ns(copy, trn1()), trn::fixed_overhead_ns(tt, trn1()));
  // ScalarE: its own static overhead, 264 - MIN_II - 60 cycles (PERF Opt #5a).
  auto act = inst(trn::Opcode::Activation, trn::Engine::Scalar, {tile(1)}, {tile(1)});
  EXPECT_NEAR(trn::fixed_overhead_ns(act, trn1()), (140 + 60) / 1.4, 1e-9);
  EXPECT_EQ(trn::fixed_overhead_ns(matmul(128, 512, 2), trn1()), 0.0);
}

TEST(TrnCost, Trn2VectorPerformanceModes) {
  const auto& trn2 = trn::arch_config("trn2");
  // ARCH3: 16-bit tensor_scalar / tensor_copy 4x with SBUF in and out and contiguous data, 2x
  // with a PSUM side or a non-contiguous innermost dimension; 16-bit tensor_tensor 2x in SBUF.
  auto contiguous = tile(1024, 2);
  contiguous.contiguous_bytes = 2048;
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {contiguous}, {contiguous});
  EXPECT_EQ(trn::instruction_cycles(ts, trn2), 256u);
  EXPECT_EQ(trn::instruction_cycles(ts, trn1()), 1024u);  // no performance mode on NC-v2
  auto gather = contiguous;
  gather.contiguous_bytes = 2;
  auto ts_strided = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {gather}, {contiguous});
  EXPECT_EQ(trn::instruction_cycles(ts_strided, trn2), 512u);
  auto evac = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {tile(1024, 2, trn::BufferKind::Psum)}, {contiguous});
  evac.inputs[0].fp32 = false;
  evac.inputs[0].contiguous_bytes = 2048;
  EXPECT_EQ(trn::instruction_cycles(evac, trn2), 512u);
  auto tt = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {contiguous, contiguous}, {contiguous});
  EXPECT_EQ(trn::instruction_cycles(tt, trn2), 512u);
  // fp32 keeps the NC-v2 cycle counts (in the slower NC-v3 vector clock).
  auto fp32 = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(1024)}, {tile(1024)});
  EXPECT_EQ(trn::instruction_cycles(fp32, trn2), 1024u);
}

// ARCH3 names the input and the output: a tensor_scalar's per-partition operand ([P, 1], read
// once per partition) is not streamed data, so an fp32 scale vector keeps a bf16 tensor_scalar in
// performance mode (an outside author's probe: 16 of them on [128, 4096] bf16 simulated at N each,
// 72 us on trn2, where the 4x mode gives ~18 us). A streamed fp32 input still takes it out.
TEST(TrnCost, APartitionOperandDoesNotTakeABf16TensorScalarOutOfPerformanceMode) {
  const auto& trn2 = trn::arch_config("trn2");
  auto data = tile(4096, 2);
  data.contiguous_bytes = 8192;
  auto scale = tile(1);  // fp32 [128, 1]
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {data, scale}, {data});
  EXPECT_EQ(trn::instruction_cycles(ts, trn2), 1024u);
  auto fp32_in = tile(4096);
  fp32_in.contiguous_bytes = 16384;
  auto widening = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {fp32_in, scale}, {data});
  EXPECT_EQ(trn::instruction_cycles(widening, trn2), 4096u);
  // The same for scalar_tensor_tensor's bf16 subtract-multiply path: its op0 operand is [P, 1].
  auto stt = inst(trn::Opcode::ScalarTensorTensor, trn::Engine::Vector, {data, scale, data}, {data});
  stt.scalar_alu = trn::AluOp::Subtract;
  stt.alu = trn::AluOp::Multiply;
  EXPECT_EQ(trn::instruction_cycles(stt, trn1()), 4096u);
}

TEST(TrnCost, EngineChoiceOnlyForMovableInstructions) {
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_TRUE(trn::engine_is_flexible(ts));
  ts.engine_chosen_by_user = true;
  EXPECT_FALSE(trn::engine_is_flexible(ts));
  auto tt = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {tile(512), tile(512)}, {tile(512)});
  EXPECT_FALSE(trn::engine_is_flexible(tt));
}

// The compiler balances a tensor_scalar onto ScalarE only when the ISA table lets ScalarE run its
// operation (trn/alu_engines.h): a bitvec one stays on VectorE, an add (as recorded) may move.
TEST(TrnCost, EngineChoiceFollowsTheAluTable) {
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(512)}, {tile(512)});
  ts.alu = trn::AluOp::Add;
  EXPECT_TRUE(trn::engine_is_flexible(ts));
  ts.alu = trn::AluOp::Bitwise;
  EXPECT_FALSE(trn::engine_is_flexible(ts));
}

// ScalarE runs a tensor_scalar only as (multiply, add), (multiply) or (add) (ISA tensor_scalar):
// the compiler cannot balance a subtract, a max or an add-then-multiply onto it.
TEST(TrnCost, OnlyMultiplyAddTensorScalarsMoveToTheScalarEngine) {
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(512)}, {tile(512)});
  using A = trn::AluOp;
  struct Case {
    A op0, op1;
    bool moves;
  };
  for (Case c : {Case{A::Multiply, A::Unknown, true}, Case{A::Add, A::Unknown, true}, Case{A::Multiply, A::Add, true},
                 Case{A::Subtract, A::Unknown, false}, Case{A::Max, A::Unknown, false},
                 Case{A::Add, A::Multiply, false}, Case{A::Multiply, A::Subtract, false},
                 Case{A::Multiply, A::Multiply, false}}) {
    ts.alu = c.op0;
    ts.alu1 = c.op1;
    EXPECT_EQ(trn::engine_is_flexible(ts), c.moves) << trn::to_string(c.op0) << " " << trn::to_string(c.op1);
  }
}

// The unary ALU operators of a tensor_scalar step (nki-language.md 9.1), named in the trace since
// session 26: a VectorE reciprocal costs the VectorE reciprocal (the calibrated factor for the ISA's
// 8N), GpSimd's rsqrt 4x ScalarE's N (SHARED), abs and the ScalarE forms the instruction's N; a
// reciprocal or abs left to the compiler may move to ScalarE (9.1: Vector / Scalar), a step the
// ALU table does not know (Other) may not.
TEST(TrnCost, UnaryTensorScalarStepsCostWhatTheOperatorCostsOnItsEngine) {
  using A = trn::AluOp;
  auto ts = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(512)}, {tile(512)});
  ts.alu = A::Reciprocal;
  EXPECT_EQ(trn::instruction_cycles(ts, trn1()), uint64_t(trn1().vector_reciprocal_factor * 512));
  EXPECT_TRUE(trn::engine_is_flexible(ts));
  ts.alu = A::Add, ts.alu1 = A::Reciprocal;  // the costlier step sets the rate
  EXPECT_EQ(trn::instruction_cycles(ts, trn1()), uint64_t(trn1().vector_reciprocal_factor * 512));
  EXPECT_TRUE(trn::engine_is_flexible(ts));
  ts.alu = A::Abs, ts.alu1 = A::Unknown;
  EXPECT_EQ(trn::instruction_cycles(ts, trn1()), 512u);
  EXPECT_TRUE(trn::engine_is_flexible(ts));
  ts.alu = A::Other;
  EXPECT_FALSE(trn::engine_is_flexible(ts));
  auto on_scalar = ts;
  on_scalar.engine = trn::Engine::Scalar, on_scalar.alu = A::Reciprocal;
  EXPECT_EQ(trn::instruction_cycles(on_scalar, trn1()), 512u);
  auto rsqrt = inst(trn::Opcode::TensorScalar, trn::Engine::GpSimd, {tile(512)}, {tile(512)});
  rsqrt.alu = A::Rsqrt;
  EXPECT_EQ(trn::instruction_cycles(rsqrt, trn1()), uint64_t(trn1().gpsimd_rsqrt_factor * 512));
  EXPECT_EQ(trn1().gpsimd_rsqrt_factor, 4.0);
  rsqrt.engine = trn::Engine::Scalar;
  EXPECT_EQ(trn::instruction_cycles(rsqrt, trn1()), 512u);
  EXPECT_FALSE(trn::engine_is_flexible(rsqrt));  // 9.1: GpSimd / Scalar, never VectorE
}

TEST(TrnCost, DmaTimeFromBytesEnginesAndDescriptors) {
  const double engine = trn1().dma_engine_bytes_per_ns, desc = trn1().dma_descriptor_ns;
  trn::DmaShape full{524288, 128, 128, trn::DmaTransposeKind::None};
  trn::DmaTiming t = trn::dma_timing(full, trn1());
  EXPECT_NEAR(t.duration_ns, 524288 / (16 * engine) + 128.0 / 16 * desc, 1e-6);
  EXPECT_DOUBLE_EQ(t.fabric_ns, t.duration_ns);
  EXPECT_DOUBLE_EQ(t.setup_ns, trn1().dma_fixed_ns);
  // Eight partitions are one engine's share: 1/16 of the bandwidth, 1/16 of the fabric.
  trn::DmaShape narrow{32768, 8, 8, trn::DmaTransposeKind::None};
  trn::DmaTiming n = trn::dma_timing(narrow, trn1());
  EXPECT_NEAR(n.duration_ns, 32768 / engine + 8 * desc, 1e-6);
  EXPECT_NEAR(n.fabric_ns, n.duration_ns / 16, 1e-6);
  // Element-granular transfers pay a descriptor per element.
  trn::DmaShape elements{65536, 128, 16384, trn::DmaTransposeKind::None};
  EXPECT_NEAR(trn::dma_timing(elements, trn1()).duration_ns, 65536 / (16 * engine) + 1024 * desc, 1e-6);
}

TEST(TrnCost, DmaShapeCountsContiguousChunks) {
  trn::Operand sbuf = tile(512);
  sbuf.contiguous_bytes = 2048;
  trn::Operand rows = tile(512, 4, trn::BufferKind::Hbm);
  rows.contiguous_bytes = 2048;
  auto load = inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {rows}, {sbuf});
  EXPECT_EQ(trn::dma_shape(load).descriptors, 128u);  // one run per partition
  trn::Operand column = rows;
  column.contiguous_bytes = 4;  // each element in its own HBM row
  auto store = inst(trn::Opcode::DmaStore, trn::Engine::Dma, {sbuf}, {column});
  EXPECT_EQ(trn::dma_shape(store).descriptors, 128u * 512);
  auto transpose = inst(trn::Opcode::DmaTranspose, trn::Engine::Dma, {rows}, {sbuf});
  EXPECT_EQ(trn::dma_shape(transpose).transpose, trn::DmaTransposeKind::FromHbm);
  EXPECT_EQ(trn::dma_shape(transpose).descriptors, 128u * 512);
  // NC-v3 transposes in hardware at 90% of copy throughput from HBM (ARCH3).
  const auto& trn2 = trn::arch_config("trn2");
  trn::DmaShape t2 = trn::dma_shape(transpose), copy = trn::dma_shape(load);
  EXPECT_NEAR(trn::dma_timing(t2, trn2).duration_ns - 128.0 / 16 * trn2.dma_descriptor_ns,
              (trn::dma_timing(copy, trn2).duration_ns - 128.0 / 16 * trn2.dma_descriptor_ns) / 0.9, 1e-6);
}

// "Up to 90% of DMA throughput" is a share of what the same copy achieves, short HBM rows and
// their descriptor floor included: a [128 x 128] bf16 tile read from a wide matrix (256-byte
// rows) transposes no faster than it copies (an outside author's ladder found it 2.5x faster).
TEST(TrnCost, ADmaTransposeOfShortRowsTakesAtLeastTheCopyOfThemOnTrn2) {
  const auto& trn2 = trn::arch_config("trn2");
  trn::Operand sbuf = tile(128, 2), rows = tile(128, 2, trn::BufferKind::Hbm);
  sbuf.fp32 = rows.fp32 = false;
  rows.row_stride = 1024;
  auto copy = trn::dma_shape(inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {rows}, {sbuf}));
  auto transpose = trn::dma_shape(inst(trn::Opcode::DmaTranspose, trn::Engine::Dma, {rows}, {sbuf}));
  ASSERT_EQ(copy.hbm_runs, 128u);
  const double copy_ns = trn::dma_timing(copy, trn2).duration_ns;
  const double transpose_ns = trn::dma_timing(transpose, trn2).duration_ns;
  EXPECT_GT(copy_ns, 2 * 32768 / trn2.dma_bytes_per_ns());  // the floor, not the bytes, sets it
  EXPECT_GE(transpose_ns, copy_ns - 128.0 / 16 * trn2.dma_descriptor_ns);
  EXPECT_NEAR(transpose_ns - 128.0 / 16 * trn2.dma_descriptor_ns,
              (copy_ns - 128.0 / 16 * trn2.dma_descriptor_ns) / trn2.dma_transpose_from_hbm, 1e-6);
}

TEST(TrnCost, AnIndirectGatherMovesOneRunPerIndexEvenWhenItsRowsWouldFollowEachOther) {
  // A direct load of 128 rows that follow each other in HBM is one HBM run; the same shape
  // gathered through an index tile is 128 runs (each index its own row), with the short-row floor
  // per row.
  trn::Operand sbuf = tile(128);
  trn::Operand rows = tile(128, 4, trn::BufferKind::Hbm);
  rows.contiguous_bytes = 512;
  rows.row_stride = 128;
  trn::Operand index = tile(1, 4);
  auto direct = inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {rows}, {sbuf});
  EXPECT_EQ(trn::dma_shape(direct).descriptors, 128u);  // the SBUF side: one per partition
  EXPECT_EQ(trn::dma_shape(direct).hbm_runs, 1u);
  rows.indirect = true;
  rows.row_stride = 0;
  auto gather = inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {rows, index}, {sbuf});
  const trn::DmaShape g = trn::dma_shape(gather);
  EXPECT_EQ(g.descriptors, 128u);
  EXPECT_EQ(g.hbm_runs, 128u);
  EXPECT_EQ(g.hbm_run_bytes, 512u);
  EXPECT_EQ(g.bytes, 128u * 512);  // the index tile is not payload
  // 512 B rows are under trn1's 1536 B floor: each costs its engine a floor's worth.
  EXPECT_GT(trn::dma_timing(g, trn1()).duration_ns, trn::dma_timing(trn::dma_shape(direct), trn1()).duration_ns);
}

TEST(TrnCost, DmaDirectionIsTheWayItsBytesCrossTheHbmInterface) {
  trn::Operand sbuf = tile(512), rows = tile(512, 4, trn::BufferKind::Hbm);
  auto load = trn::dma_shape(inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {rows}, {sbuf}));
  auto store = trn::dma_shape(inst(trn::Opcode::DmaStore, trn::Engine::Dma, {sbuf}, {rows}));
  auto copy = trn::dma_shape(inst(trn::Opcode::DmaCopy, trn::Engine::Dma, {sbuf}, {tile(512)}));
  auto hbm_copy = trn::dma_shape(inst(trn::Opcode::DmaCopy, trn::Engine::Dma, {rows}, {rows}));
  EXPECT_EQ(load.direction, trn::DmaDirection::FromHbm);
  EXPECT_EQ(store.direction, trn::DmaDirection::ToHbm);
  EXPECT_EQ(copy.direction, trn::DmaDirection::OnChip);
  EXPECT_EQ(hbm_copy.direction, trn::DmaDirection::Both);
  // Its time on the HBM bandwidth: each HBM side once, none on chip.
  const auto& a = trn1();
  EXPECT_DOUBLE_EQ(trn::dma_timing(load, a).hbm_ns, 262144 / a.hbm_bytes_per_ns);
  EXPECT_DOUBLE_EQ(trn::dma_timing(hbm_copy, a).hbm_ns, 2 * 262144 / a.hbm_bytes_per_ns);
  EXPECT_DOUBLE_EQ(trn::dma_timing(copy, a).hbm_ns, 0);
}

// An accumulating DMA (`nisa.dma_copy(dst=, src=, dst_rmw_op=np.add)`, traced with `acc`) reads
// its destination before it writes it (nki-language.md 8.4, "accumulates into the destination
// instead of overwriting"): its engines move the payload twice and an HBM destination is read
// and written. Until session 22 it cost what a plain store costs.
TEST(TrnCost, AnAccumulatingDmaReadsItsDestinationToo) {
  trn::Operand sbuf = tile(512), rows = tile(512, 4, trn::BufferKind::Hbm);
  auto store = inst(trn::Opcode::DmaStore, trn::Engine::Dma, {sbuf}, {rows});
  auto rmw = store;
  rmw.accumulate = true;
  const trn::DmaShape plain = trn::dma_shape(store), acc = trn::dma_shape(rmw);
  EXPECT_FALSE(plain.rmw);
  EXPECT_TRUE(acc.rmw);
  for (const char* name : {"trn1", "trn2"}) {
    const auto& a = trn::arch_config(name);
    ASSERT_TRUE(a.dma_rmw_reads_dst) << name;
    const trn::DmaTiming p = trn::dma_timing(plain, a), r = trn::dma_timing(acc, a);
    EXPECT_NEAR(r.duration_ns, 2 * p.duration_ns, 1e-6) << name;
    EXPECT_NEAR(r.fabric_ns, 2 * p.fabric_ns, 1e-6) << name;
    EXPECT_DOUBLE_EQ(r.setup_ns, p.setup_ns) << name;  // one transfer, one fixed cost
    EXPECT_EQ(r.direction, trn::DmaDirection::Both) << name;
    EXPECT_DOUBLE_EQ(r.hbm_ns, 2 * p.hbm_ns) << name;
    trn::ArchConfig off = a;
    trn::set_parameter(off, "dma_rmw_reads_dst", 0);
    EXPECT_DOUBLE_EQ(trn::dma_timing(acc, off).duration_ns, p.duration_ns) << name;
  }
}

// A [128 x 128] bf16 tile cut from a wide HBM matrix is 128 runs of 256 B there; each costs its
// engine as long as a dma_min_descriptor_bytes run. The same tile from a matrix of its own width is
// one contiguous run (the DMAO timeline: one engine moves its 2 KiB of it in 97 ns), and rows of
// at least the floor move at the engines' rate.
TEST(TrnCost, SmallHbmRunsCostTheirEnginesTheDescriptorFloor) {
  for (const char* name : {"trn1", "trn2"}) {
    const trn::ArchConfig& a = trn::arch_config(name);
    ASSERT_GT(a.dma_min_descriptor_bytes, 256) << name;
    trn::Operand sbuf = tile(128);
    sbuf.dtype_bytes = 2;
    trn::Operand slice = tile(128, 2, trn::BufferKind::Hbm);
    slice.row_stride = 4096;  // a row of a 4096-wide matrix
    auto strided = trn::dma_shape(inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {slice}, {sbuf}));
    EXPECT_EQ(strided.hbm_runs, 128u);
    EXPECT_EQ(strided.hbm_run_bytes, 256u);
    const double rate = a.dma_engine_bytes_per_ns;
    EXPECT_NEAR(trn::dma_timing(strided, a).duration_ns,
                8 * a.dma_min_descriptor_bytes / rate + 128.0 / 16 * a.dma_descriptor_ns, 1e-6)
        << name;
    trn::Operand whole = slice;
    whole.row_stride = 128;  // the rows follow each other
    auto contiguous = trn::dma_shape(inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {whole}, {sbuf}));
    EXPECT_EQ(contiguous.hbm_runs, 1u);
    const double data = 32768 / std::min(16 * rate, a.dma_bytes_per_ns());
    EXPECT_NEAR(trn::dma_timing(contiguous, a).duration_ns, data + 128.0 / 16 * a.dma_descriptor_ns, 1e-6)
        << name;
    EXPECT_LT(trn::dma_timing(contiguous, a).duration_ns, trn::dma_timing(strided, a).duration_ns / 2) << name;
    // Rows of 4 KiB (2048 bf16) from a wide matrix: above the floor, the data time alone.
    trn::Operand wide_sbuf = tile(2048), wide = tile(2048, 2, trn::BufferKind::Hbm);
    wide_sbuf.dtype_bytes = 2;
    wide.row_stride = 8192;
    auto rows = trn::dma_shape(inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {wide}, {wide_sbuf}));
    EXPECT_NEAR(trn::dma_timing(rows, a).duration_ns,
                524288 / std::min(16 * rate, a.dma_bytes_per_ns()) + 128.0 / 16 * a.dma_descriptor_ns, 1e-6)
        << name;
    // An SBUF-to-SBUF copy has no HBM side and no floor.
    auto copy = trn::dma_shape(inst(trn::Opcode::DmaLoad, trn::Engine::Dma, {sbuf}, {sbuf}));
    EXPECT_EQ(copy.hbm_runs, 0u);
  }
}

TEST(TrnArch, ParametersCanBeSetByName) {
  trn::ArchConfig a = trn1();
  trn::set_parameter(a, "semaphore_ns", 250);
  trn::set_parameter(a, "dma_queues", 3);
  EXPECT_EQ(a.semaphore_ns, 250);
  EXPECT_EQ(a.dma_queues, 3u);
  EXPECT_THROW(trn::set_parameter(a, "warp_speed", 1), std::invalid_argument);
  EXPECT_THROW(trn::set_parameter(a, "dma_queues", 2.5), std::invalid_argument);
  EXPECT_THROW(trn::set_parameter(a, "dma_queues", 0), std::invalid_argument);
  EXPECT_THROW(trn::set_parameter(a, "semaphore_ns", -1), std::invalid_argument);
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

// The newer API's tensor_copy on NeuronCore-v2 has no ScalarE form (nki-language.md 12.2): traced
// with no_scalar_engine, neither a PSUM evacuation nor an SBUF copy leaves VectorE.
TEST(TrnCost, ACopyWithoutAScalarEngineFormStaysOnVector) {
  auto evac = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {tile(512, 4, trn::BufferKind::Psum)}, {tile(512)});
  auto sbuf_copy = inst(trn::Opcode::TensorCopy, trn::Engine::Vector, {tile(512)}, {tile(512)});
  evac.no_scalar_engine = sbuf_copy.no_scalar_engine = true;
  EXPECT_EQ(trn::placed_engine(evac), trn::Engine::Vector);
  EXPECT_FALSE(trn::engine_is_flexible(evac));
  EXPECT_EQ(trn::placed_engine(sbuf_copy), trn::Engine::Vector);
  EXPECT_FALSE(trn::engine_is_flexible(sbuf_copy));
}

TEST(TrnHazards, AnIndirectAccessMayTouchAnyRowOfItsTensor) {
  // A scatter's rows are data: a later read of any part of the tensor waits for it, where the
  // same access made direct (offset 0, one 128-row run) misses a read at offset 1 << 20.
  trn::Operand scatter = tile(512, 4, trn::BufferKind::Hbm);
  trn::Operand far = scatter;
  far.offset = 1 << 20;
  EXPECT_FALSE(trn::Region::of(scatter).overlaps(trn::Region::of(far)));
  scatter.indirect = true;
  EXPECT_TRUE(trn::Region::of(scatter).overlaps(trn::Region::of(far)));
}

TEST(TrnCost, SmallInstructionStaticOverheadIsASwitchOffByDefault) {
  // ARCH2: about 100 cycles of static overhead for back-to-back instructions with N << 128. The
  // model charges it to waiting instructions only (fixed_overhead_ns); the switch charges it to
  // every instruction below the threshold as streaming time (docs/simulator.md, session-21 audit).
  auto tiny = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(8)}, {tile(8)});
  auto big = inst(trn::Opcode::TensorScalar, trn::Engine::Vector, {tile(512)}, {tile(512)});
  EXPECT_EQ(trn1().small_instruction_elements, 0u);
  EXPECT_EQ(trn::small_static_ns(tiny, trn1()), 0.0);
  trn::ArchConfig on = trn1();
  on.small_instruction_elements = 64;
  EXPECT_DOUBLE_EQ(trn::small_static_ns(tiny, on), on.static_overhead / on.vector_ghz);
  EXPECT_EQ(trn::small_static_ns(big, on), 0.0);
  auto act = inst(trn::Opcode::Activation, trn::Engine::Scalar, {tile(1)}, {tile(1)});
  EXPECT_DOUBLE_EQ(trn::small_static_ns(act, on), on.scalar_static_overhead / on.scalar_ghz);
}

namespace {

// The published table rows simaudit23 left (session 24): tensor_reduce's N/2 is for bf16 add or
// max only; bn_stats is N whatever the type; bn_aggr 13 (N / 3); a 16-bit memset is N/2 only
// when it fills zeros (ISA tensor_reduce, bn_stats, bn_aggr, memset; trainium-performance.md 2).
TEST(TrnCost, ReductionsAndFillsFollowTheirOwnTableRows) {
  auto reduce = [](trn::AluOp alu, uint8_t bytes) {
    auto r = inst(trn::Opcode::TensorReduce, trn::Engine::Vector, {tile(1024, bytes)}, {tile(1, bytes)});
    r.alu = alu;
    return trn::instruction_cycles(r, trn1());
  };
  EXPECT_EQ(reduce(trn::AluOp::Add, 2), 512u);
  EXPECT_EQ(reduce(trn::AluOp::Max, 2), 512u);
  EXPECT_EQ(reduce(trn::AluOp::Min, 2), 1024u);       // until session 24: 512
  EXPECT_EQ(reduce(trn::AluOp::Multiply, 2), 1024u);  // until session 24: 512
  EXPECT_EQ(reduce(trn::AluOp::Add, 4), 1024u);
  auto fp16 = inst(trn::Opcode::TensorReduce, trn::Engine::Vector, {tile(1024, 2)}, {tile(1, 2)});
  fp16.alu = trn::AluOp::Add;
  fp16.inputs[0].elem = fp16.outputs[0].elem = trn::ElemType::FP16;  // the row says bf16; kept 16-bit
  EXPECT_EQ(trn::instruction_cycles(fp16, trn1()), 512u);
  fp16.alu = trn::AluOp::Unknown;  // an unrecorded operation is not add or max
  EXPECT_EQ(trn::instruction_cycles(fp16, trn1()), 1024u);

  auto stats = inst(trn::Opcode::BnStats, trn::Engine::Vector, {tile(512, 2)}, {tile(6)});
  EXPECT_EQ(trn::instruction_cycles(stats, trn1()), 512u);
  auto aggr = inst(trn::Opcode::BnAggr, trn::Engine::Vector, {tile(96)}, {tile(2)});
  EXPECT_EQ(trn::instruction_cycles(aggr, trn1()), 13u * 32);  // 16 groups of 6: 416 (was 96)
  auto one_group = inst(trn::Opcode::BnAggr, trn::Engine::Vector, {tile(6)}, {tile(2)});
  EXPECT_EQ(trn::instruction_cycles(one_group, trn1()), 64u);  // 26, floored at MIN_II

  auto fill = inst(trn::Opcode::Memset, trn::Engine::Vector, {}, {tile(2048, 2)});
  EXPECT_EQ(trn::instruction_cycles(fill, trn1()), 1024u);
  fill.nonzero_fill = true;
  EXPECT_EQ(trn::instruction_cycles(fill, trn1()), 2048u);  // until session 24: 1024
}

// ISA tensor_tensor: N cycles for 16-bit SBUF inputs with add, subtract or multiply only on
// stride-1 inputs; otherwise 2N. A view t[:, k::2] of bf16 data (4 B stride, below the 16 B of the
// half-rate rule) reads with stride 2: 2N (until session 25 N). NC-v3's performance mode halves
// either (ARCH3). A record without a recorded run length says nothing: unit stride.
TEST(TrnCost, A16BitTensorTensorIsNOnlyOnStrideOneInputs) {
  auto mul = [](uint32_t contiguous_bytes) {
    auto in = tile(1024, 2);
    in.contiguous_bytes = contiguous_bytes;
    auto t = inst(trn::Opcode::TensorTensor, trn::Engine::Vector, {in, in}, {tile(1024, 2)});
    t.alu = trn::AluOp::Multiply;
    return t;
  };
  const auto& trn2 = trn::arch_config("trn2");
  EXPECT_EQ(trn::instruction_cycles(mul(2048), trn1()), 1024u);
  EXPECT_EQ(trn::instruction_cycles(mul(0), trn1()), 1024u);
  EXPECT_EQ(trn::instruction_cycles(mul(2), trn1()), 2048u);  // stride 2 elements
  EXPECT_EQ(trn::instruction_cycles(mul(2048), trn2), 1024u / trn2.vector_perf_mode_tt);
  EXPECT_EQ(trn::instruction_cycles(mul(2), trn2), 2048u / trn2.vector_perf_mode_tt);
  auto fp32 = mul(4);  // fp32 is 2N whatever its stride
  for (auto& o : fp32.inputs) o.dtype_bytes = 4, o.fp32 = true;
  fp32.outputs[0].dtype_bytes = 4, fp32.outputs[0].fp32 = true;
  EXPECT_EQ(trn::instruction_cycles(fp32, trn1()), 2048u);
}

}  // namespace
