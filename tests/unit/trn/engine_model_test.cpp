// The cost mechanisms of docs/simulator.md, each checked on a trace built for it: fixed overheads
// paid only by waiting instructions, semaphores between engines, program order in sequential
// loops, partitions that do not shorten an instruction, the per-queue DMA fixed cost (which
// reproduces the published efficiency curve) and the neuron-profile counting rules.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "trn/simulator.h"
#include "trn/trace_builder.h"
#include "trace_fixture.h"

namespace {

using trn::Engine;
using trn::Opcode;

using trn_test::build;
using trn_test::trn1;

trn::Operand fresh(trn::TraceBuilder& b, uint16_t partitions, uint32_t free) {
  return b.tile(b.sbuf("t", partitions, uint64_t(free) * 4), 0, partitions, free);
}

// `count` instructions on one [128 x free] tile: each reads the previous one's result
// (dependent) or the same ready source (independent).
std::vector<trn::Record> chain(Opcode opcode, Engine engine, int count, uint32_t free, bool dependent) {
  return build([&](trn::TraceBuilder& b) {
    trn::Operand src = fresh(b, 128, free);
    b.op(Opcode::Memset, Engine::GpSimd, {}, {src});
    trn::Operand prev = src;
    for (int idx = 0; idx < count; ++idx) {
      trn::Operand out = fresh(b, 128, free);
      b.op(opcode, engine, {dependent ? prev : src}, {out});
      prev = out;
    }
  });
}

double ns_per_instruction(const std::vector<trn::Record>& records, const trn::ArchConfig& arch, int count) {
  auto shorter = std::vector<trn::Record>(records.begin(), records.end() - 2 * (count / 2));
  double all = trn::simulate(records, arch).latency, half = trn::simulate(shorter, arch).latency;
  return (all - half) * 1e6 / (count / 2);
}

}  // namespace

TEST(TrnEngineModel, IndependentSmallInstructionsStreamAtTheirIsaCost) {
  // Issue 11: small independent VectorE instructions take about 60 ns on the device (MIN_II =
  // 64 cycles at 1.12 GHz = 57 ns); the static overhead is not charged to them.
  auto records = chain(Opcode::TensorScalar, Engine::Vector, 200, 1, false);
  for (auto& r : records) r.inst.engine_chosen_by_user = true;
  EXPECT_NEAR(ns_per_instruction(records, trn1(), 200), 64 / 1.12, 1.0);
}

TEST(TrnEngineModel, DependentSmallActivationsPayTheFixedOverhead) {
  // PERF Opt #5a: back-to-back dependent 1-element ScalarE activations have an initiation
  // interval of 264 cycles = 189 ns on NC-v2. The model gives MIN_II + ScalarE's static overhead
  // + the access of the input waited on (the static overhead is calibrated on this number).
  auto records = chain(Opcode::Activation, Engine::Scalar, 200, 1, true);
  double ii = ns_per_instruction(records, trn1(), 200);
  EXPECT_NEAR(ii, (64 + 140 + 60) / 1.4, 1.0);
  EXPECT_NEAR(ii / 189.0, 1.0, 0.02);
  // The engine spends the wait on the instruction: active time, not idle.
  trn::Profile p = trn::simulate(records, trn1());
  EXPECT_GT(p.scalar_engine_active_time_percent, 0.95);
}

TEST(TrnEngineModel, ADependencyOnAnotherEngineWaitsForTheSemaphore) {
  auto alternating = [](int count) {
    return build([&](trn::TraceBuilder& b) {
      trn::Operand prev = fresh(b, 128, 512);
      b.op(Opcode::Memset, Engine::Vector, {}, {prev});
      for (int idx = 0; idx < count; ++idx) {
        trn::Operand out = fresh(b, 128, 512);
        b.op(idx % 2 ? Opcode::TensorTensor : Opcode::Activation, idx % 2 ? Engine::Vector : Engine::Scalar,
             idx % 2 ? std::vector<trn::Operand>{prev, prev} : std::vector<trn::Operand>{prev}, {out});
        prev = out;
      }
    });
  };
  trn::ArchConfig slow = trn1();
  trn::set_parameter(slow, "semaphore_ns", trn1().semaphore_ns + 500);
  auto records = alternating(20);
  double extra = (trn::simulate(records, slow).latency - trn::simulate(records, trn1()).latency) * 1e6;
  EXPECT_NEAR(extra, 20 * 500.0, 1.0);  // every step crosses engines
}

TEST(TrnEngineModel, SequentialLoopsKeepProgramOrderOnEachEngine) {
  // A VectorE instruction waiting for a load, then an independent long one. In an affine_range
  // the compiler runs the independent one first; in a sequential_range it keeps the order.
  auto body = [](trn::LoopKind kind) {
    return build([&](trn::TraceBuilder& b) {
      auto x = b.hbm("x", 128 * 4096 * 4, true);
      b.loop_begin(kind, 1);
      trn::Operand in = fresh(b, 128, 4096);
      b.load(in, b.hbm_rows(x, 128, 4096));
      b.op(Opcode::TensorScalar, Engine::Vector, {in}, {fresh(b, 128, 4096)});
      trn::Operand other = fresh(b, 128, 8192);
      b.op(Opcode::Memset, Engine::Vector, {}, {other});
      b.loop_end();
    });
  };
  auto affine = body(trn::LoopKind::Affine), sequential = body(trn::LoopKind::Sequential);
  for (auto* v : {&affine, &sequential})
    for (auto& r : *v) r.inst.engine_chosen_by_user = true;
  double a = trn::simulate(affine, trn1()).latency, s = trn::simulate(sequential, trn1()).latency;
  EXPECT_LT(a, s);
  // Sequential: the memset starts after the tensor_scalar, which waits for the load.
  double memset_ns = 8192 / 1.12;
  EXPECT_GE(s * 1e6, memset_ns + 4096 / 1.12 + trn1().dma_fixed_ns);
}

TEST(TrnEngineModel, FewerPartitionsTakeAsLongAndDoNotOverlap) {
  // PERF Opt #5b: a 64-partition instruction costs what a 128-partition one does, and two
  // independent 64-partition VectorE instructions do not run in parallel on NC-v2.
  auto two = [](uint16_t partitions) {
    return build([&](trn::TraceBuilder& b) {
      trn::Operand src = fresh(b, partitions, 2048);
      b.op(Opcode::Memset, Engine::GpSimd, {}, {src});
      for (int idx = 0; idx < 2; ++idx) b.op(Opcode::TensorScalar, Engine::Vector, {src}, {fresh(b, partitions, 2048)});
    });
  };
  auto half = two(64), full = two(128);
  for (auto* v : {&half, &full})
    for (auto& r : *v) r.inst.engine_chosen_by_user = true;
  trn::Profile h = trn::simulate(half, trn1()), f = trn::simulate(full, trn1());
  EXPECT_DOUBLE_EQ(h.latency, f.latency);
  EXPECT_DOUBLE_EQ(h.engine_busy_ms["dve"], f.engine_busy_ms["dve"]);
}

namespace {

// `count` independent loads of [128 x bytes/4] fp32 on the IO queues, issued by `statements`
// DMA statements (source lines) in turn, statement s reading HBM tensor s % `tensors`; returns GB/s.
double load_stream_gbps(const trn::ArchConfig& arch, uint32_t bytes, int count, int statements = 1,
                        int tensors = 1) {
  auto records = build([&](trn::TraceBuilder& b) {
    std::vector<uint32_t> x;
    for (int t = 0; t < tensors; ++t) x.push_back(b.hbm("x" + std::to_string(t), uint64_t(count) * 128 * bytes, true));
    for (int idx = 0; idx < count; ++idx) {
      b.set_line(uint32_t(10 + idx % statements));
      b.load(fresh(b, 128, bytes / 4), b.hbm_rows(x[size_t(idx % statements % tensors)], 128, bytes / 4));
    }
  });
  trn::Profile p = trn::simulate(records, arch);
  return double(p.hbm_read_bytes) / (p.latency * 1e6);
}

trn::ArchConfig with(trn::ArchConfig arch, const char* name, double value) {
  trn::set_parameter(arch, name, value);
  return arch;
}

}  // namespace

TEST(TrnEngineModel, OneQueueReproducesThePublishedDmaEfficiencyCurve) {
  // The DMAO figure (throughput against bytes per partition, p_dim = 128, relative to 32 KiB)
  // follows from the per-transfer fixed cost of one queue: small transfers are bound by it,
  // large ones by bandwidth.
  trn::ArchConfig one = trn1();
  trn::set_parameter(one, "dma_queues", 1);
  double top = load_stream_gbps(one, 32768, 40);
  for (uint32_t bytes : {256u, 512u, 1024u, 2048u, 4096u, 8192u}) {
    double relative = load_stream_gbps(one, bytes, 400) / top;
    EXPECT_NEAR(std::log(relative / trn1().dma_efficiency_at(bytes)), 0.0, 0.2) << bytes;
  }
}

// `count` [128 x bytes/4] fp32 loads from one HBM tensor and, when `stores`, as many stores of
// independent tiles to another; returns the latency in ns.
double copy_stream_ns(const trn::ArchConfig& arch, uint32_t bytes, int count, bool stores) {
  auto records = build([&](trn::TraceBuilder& b) {
    uint32_t x = b.hbm("x", uint64_t(count) * 128 * bytes, true);
    uint32_t y = b.hbm("y", uint64_t(count) * 128 * bytes, false, true);
    for (int idx = 0; idx < count; ++idx) {
      b.set_line(10);
      b.load(fresh(b, 128, bytes / 4), b.hbm_rows(x, 128, bytes / 4));
      if (!stores) continue;
      trn::Operand out = fresh(b, 128, bytes / 4);
      b.set_line(11);
      b.op(Opcode::Memset, Engine::GpSimd, {}, {out});
      b.set_line(12);
      b.store(b.hbm_rows(y, 128, bytes / 4), out);
    }
  });
  return trn::simulate(records, arch).latency * 1e6;
}

TEST(TrnEngineModel, SeparateDirectionsOverlapLoadsAndStoresUpToTheHbmBandwidth) {
  // With dma_directions, reads from HBM and writes to HBM each move at the engines' 16 x 17 B/ns
  // and share only the core's 410 GB/s: equal load and store streams take the HBM time of both
  // (2 x bytes / 410) instead of both at the engines' rate (2 x bytes / 272). A load stream alone
  // is bound by the engines either way.
  const trn::ArchConfig shared = trn1(), split = with(trn1(), "dma_directions", 1);
  ASSERT_FALSE(shared.dma_directions);
  const int count = 16;  // [128 x 4 KiB] tiles, 16 MiB of them: no SBUF pressure
  const double tile_bytes = 128.0 * 4096, engines = shared.dma_bytes_per_ns(), hbm = shared.hbm_bytes_per_ns;
  // Both after the first transfer's fixed cost.
  const double one_way = shared.dma_fixed_ns + 2 * count * tile_bytes / engines;
  const double duplex = shared.dma_fixed_ns + 2 * count * tile_bytes / hbm;
  EXPECT_NEAR(copy_stream_ns(shared, 4096, count, true), one_way, 0.02 * one_way);
  EXPECT_NEAR(copy_stream_ns(split, 4096, count, true), duplex, 0.02 * duplex);
  EXPECT_NEAR(copy_stream_ns(split, 4096, count, false) / copy_stream_ns(shared, 4096, count, false), 1.0, 0.01);
  // The floor the agent and the invariants use is the same bound.
  EXPECT_DOUBLE_EQ(split.hbm_traffic_floor_ns(count * tile_bytes, count * tile_bytes), 2 * count * tile_bytes / hbm);
  EXPECT_DOUBLE_EQ(split.hbm_traffic_floor_ns(count * tile_bytes, 0), count * tile_bytes / engines);
  EXPECT_DOUBLE_EQ(shared.hbm_traffic_floor_ns(count * tile_bytes, count * tile_bytes), 2 * count * tile_bytes / engines);
}

TEST(TrnEngineModel, QueuesOverlapTheirFixedCosts) {
  // Round robin: consecutive transfers alternate queues.
  trn::ArchConfig one = with(with(trn1(), "dma_queue_per_statement", 0), "dma_queues", 1);
  trn::ArchConfig four = with(with(trn1(), "dma_queue_per_statement", 0), "dma_queues", 4);
  // 64 KiB transfers are bound by the fixed cost on one queue; four queues overlap it.
  EXPECT_GT(load_stream_gbps(four, 512, 400), 3.5 * load_stream_gbps(one, 512, 400));
  // Large transfers are bound by bandwidth either way.
  EXPECT_NEAR(load_stream_gbps(four, 32768, 40) / load_stream_gbps(one, 32768, 40), 1.0, 0.1);
}

TEST(TrnEngineModel, OneDmaStreamKeepsOneQueueOnTrn1) {
  // The loads one statement issues in a loop stay in order on one queue: one fixed cost (1300 ns,
  // DMABW) per transfer, whatever the queue count (the Trn1 matmul tutorial's loops of [128 x 1 KiB]
  // loads take 1.17-1.22 us per transfer). Loads of two tensors use two queues and overlap their
  // fixed costs; round robin (Trn2, two DGE instances) overlaps one statement's transfers.
  const trn::ArchConfig& a = trn1();
  ASSERT_TRUE(a.dma_queue_per_statement);
  const double one_statement = load_stream_gbps(a, 1024, 400, 1);
  EXPECT_NEAR(one_statement, 128.0 * 1024 / a.dma_fixed_ns, 0.05 * one_statement);
  EXPECT_NEAR(load_stream_gbps(with(a, "dma_queues", 8), 1024, 400, 1) / one_statement, 1.0, 0.02);
  EXPECT_NEAR(load_stream_gbps(a, 1024, 400, 2, 2) / one_statement, 2.0, 0.1);
  EXPECT_NEAR(load_stream_gbps(with(a, "dma_queue_per_statement", 0), 1024, 400, 1) / one_statement, 2.0, 0.1);
  EXPECT_FALSE(trn::arch_config("trn2").dma_queue_per_statement);
}

TEST(TrnEngineModel, TwoStatementsLoadingOneTensorAreOneStream) {
  // The stream is the HBM tensor and direction, not the source line: a loop's tail chunk loaded by
  // a second statement (the bundled transpose_matmul) waits on the same queue as the main chunks,
  // as when one statement loads every chunk (its nki_api and legacy_grid forms).
  const trn::ArchConfig& a = trn1();
  ASSERT_TRUE(a.dma_queue_per_tensor);
  const double one_statement = load_stream_gbps(a, 1024, 400, 1);
  EXPECT_NEAR(load_stream_gbps(a, 1024, 400, 2, 1) / one_statement, 1.0, 0.02);
  // Keyed by source line (the rule until 2 Dec 2026), the second statement overlapped the first.
  EXPECT_NEAR(load_stream_gbps(with(a, "dma_queue_per_tensor", 0), 1024, 400, 2, 1) / one_statement, 2.0, 0.1);
}

TEST(TrnEngineModel, QueuesShareTheEnginesRoundRobin) {
  // DMAO: the engines serve their queues round robin. Eight 1 MiB weight loads (one stream, one
  // queue on Trn1) are placed before a 16 KiB x load of another tensor (another queue) that a
  // chain of VectorE work waits for. Round robin, the x load moves its data alternately with
  // theirs and ends after about twice its own data time; served in placement order across
  // queues it ended after all eight (8 x 3.9 us at 272 GB/s).
  auto program = [](trn::TraceBuilder& b) {
    auto w = b.hbm("w", 8u * 128 * 2048 * 4, true), x = b.hbm("x", 128u * 32 * 4, true);
    b.set_line(10);
    for (int k = 0; k < 8; ++k) b.load(fresh(b, 128, 2048), b.hbm_rows(w, 128, 2048));
    b.set_line(11);
    trn::Operand xt = fresh(b, 128, 32);
    b.load(xt, b.hbm_rows(x, 128, 32));
    trn::Operand prev = xt;
    for (int idx = 0; idx < 40; ++idx) {
      trn::Operand out = fresh(b, 128, 2048);
      b.op(Opcode::TensorScalar, Engine::Vector, {prev}, {out});
      prev = out;
    }
  };
  auto records = build(program);
  const trn::ArchConfig& a = trn1();
  ASSERT_TRUE(a.dma_round_robin);
  const double shared = trn::simulate(records, a).latency * 1e3;  // us
  const double in_placement_order = trn::simulate(records, with(a, "dma_round_robin", 0)).latency * 1e3;
  const double weights_us = 8.0 * 128 * 2048 * 4 / (16 * a.dma_engine_bytes_per_ns) / 1e3;
  EXPECT_GT(in_placement_order - shared, 0.8 * weights_us);
  // The weights alone still take their bandwidth: a second round of them is not sped up.
  auto twice = build([&](trn::TraceBuilder& b) {
    auto w = b.hbm("w", 16u * 128 * 2048 * 4, true);
    b.set_line(10);
    for (int k = 0; k < 16; ++k) b.load(fresh(b, 128, 2048), b.hbm_rows(w, 128, 2048));
  });
  EXPECT_NEAR(trn::simulate(twice, a).latency, trn::simulate(twice, with(a, "dma_round_robin", 0)).latency, 1e-9);
}

TEST(TrnEngineModel, ProfileCountsBytesAsNeuronProfileDoes) {
  // fp32 matmul of K=128, M=128, N=512 into PSUM, copied out by ScalarE, stored.
  auto records = build([](trn::TraceBuilder& b) {
    auto lhs = b.hbm("lhs", 128 * 128 * 4, true), rhs = b.hbm("rhs", 128 * 512 * 4, true);
    auto out = b.hbm("out", 128 * 512 * 4, false, true);
    trn::Operand l = fresh(b, 128, 128), r = fresh(b, 128, 512);
    b.load(l, b.hbm_rows(lhs, 128, 128));
    b.load(r, b.hbm_rows(rhs, 128, 512));
    trn::Operand acc = b.psum_tile(b.psum("acc", 128, 2048), 0, 128, 512);
    b.matmul(acc, l, r, false);
    b.matmul(acc, l, r, true);  // accumulation: not a PSUM read
    trn::Operand res = fresh(b, 128, 512);
    b.op(Opcode::Activation, Engine::Scalar, {acc}, {res});
    b.store(b.hbm_rows(out, 128, 512), res);
  });
  trn::Profile p = trn::simulate(records, trn1());
  // DMA: every byte. Compute instructions: one partition's bytes; fp32 matmuls twice.
  EXPECT_EQ(p.sbuf_write_bytes, 128u * 128 * 4 + 128u * 512 * 4 + 512 * 4);
  EXPECT_EQ(p.sbuf_read_bytes, 128u * 512 * 4 + 2 * 2 * (128 * 4 + 512 * 4));
  EXPECT_EQ(p.psum_write_bytes, 2u * 2 * 512 * 4);
  EXPECT_EQ(p.psum_read_bytes, 512u * 4);
  EXPECT_EQ(p.hbm_read_bytes, 128u * 128 * 4 + 128u * 512 * 4);
  EXPECT_GT(p.tensor_engine_active_time_percent, 0);
  EXPECT_GT(p.dma_active_time_percent, 0);
  EXPECT_LE(p.dma_active_time_percent, 1.0);
}

TEST(TrnEngineModel, ATransposeReadsItsIdentityOnce) {
  // A TensorE transpose is a matmul against an identity: nc_transpose(x) reads an identity the
  // compiler provides, nc_matmul(x, identity, is_transpose=True) passes it. Both read it once
  // (the real matmul baseline's sbuf_read_bytes, docs/simulator.md "Profile").
  auto transpose_of = [](bool identity_passed) {
    return build([&](trn::TraceBuilder& b) {
      trn::Operand x = fresh(b, 128, 128), identity = fresh(b, 128, 128);
      b.op(Opcode::Memset, Engine::GpSimd, {}, {x});
      b.op(Opcode::Memset, Engine::GpSimd, {}, {identity});
      trn::Operand t = b.psum_tile(b.psum("t", 128, 512), 0, 128, 128);
      if (identity_passed) b.op(Opcode::Transpose, Engine::Tensor, {x, identity}, {t});
      else b.transpose(t, x);
    });
  };
  const uint64_t fp32_transpose = 2 * (128 * 4 + 128 * 4);  // x and the identity, two fp32 passes
  EXPECT_EQ(trn::simulate(transpose_of(false), trn1()).sbuf_read_bytes, fp32_transpose);
  EXPECT_EQ(trn::simulate(transpose_of(true), trn1()).sbuf_read_bytes, fp32_transpose);
}

TEST(TrnEngineModel, SwitchingScalarFunctionsLoadsTheirTables) {
  // Activations alternating between two functions load a table each time; the same function
  // twice loads it once (the 1.33 us segment before an exp in the DMAO timelines).
  auto chain_of = [](std::vector<uint16_t> funcs) {
    return build([&](trn::TraceBuilder& b) {
      trn::Operand src = fresh(b, 128, 512);
      b.op(Opcode::Memset, Engine::GpSimd, {}, {src});
      // TraceBuilder leaves the function 0 (identity): with_funcs sets it on the records.
      for (size_t k = 0; k < funcs.size(); ++k) b.op(Opcode::Activation, Engine::Scalar, {src}, {fresh(b, 128, 512)});
    });
  };
  auto with_funcs = [&](std::vector<uint16_t> funcs) {
    auto records = chain_of(funcs);
    size_t k = 0;
    for (auto& r : records)
      if (r.kind == trn::RecordKind::Instruction && r.inst.opcode == Opcode::Activation) r.inst.activation_func = funcs[k++];
    return trn::simulate(records, trn1()).engine_busy_ms["act"];
  };
  const double load_ms = trn1().act_table_load_cycles / trn1().scalar_ghz * 1e-6;
  double same = with_funcs({15, 15, 15, 15}), alternating = with_funcs({15, 19, 15, 19}),
         identity = with_funcs({0, 0, 0, 0});
  // Every switch after the first adds a whole load; the first one runs while the memset is still
  // producing the input, so the activation's own fixed cost hides behind it.
  EXPECT_NEAR(alternating - same, 3 * load_ms, 1e-9);
  EXPECT_LE(same - identity, load_ms + 1e-9);
  EXPECT_GT(same - identity, 0.8 * load_ms);
}

TEST(TrnEngineModel, TableLoadRunsWhileTheInputIsStillArriving) {
  // The table needs no data: a load -> exp kernel pays the table load under the DMA, not after it.
  auto latency_with = [](uint16_t func) {
    auto records = build([](trn::TraceBuilder& b) {
      trn::Operand t = fresh(b, 128, 2048);
      b.load(t, b.hbm_rows(b.hbm("x", 128 * 2048 * 4, true), 128, 2048));
      b.op(Opcode::Activation, Engine::Scalar, {t}, {fresh(b, 128, 2048)});
    });
    for (auto& r : records)
      if (r.kind == trn::RecordKind::Instruction && r.inst.opcode == Opcode::Activation) r.inst.activation_func = func;
    return trn::simulate(records, trn1()).latency;
  };
  EXPECT_DOUBLE_EQ(latency_with(15), latency_with(0));
}

namespace {

// `count` affine_range iterations of transpose (TensorE -> PSUM) -> copy (ScalarE -> SBUF) ->
// matmul on one preloaded bf16 tile. With `chained`, the matmul's stationary is the copy (the
// transpose_example pattern); otherwise it is the loaded tile and the copy feeds nothing.
std::vector<trn::Record> transpose_chain(int count, bool chained) {
  return build([&](trn::TraceBuilder& b) {
    auto x = b.hbm("x", 128 * 128 * 2, true), y = b.hbm("y", 128 * 512 * 2, true);
    // Two load statements of two tensors, as a kernel writes them: on Trn1 each keeps its queue.
    b.set_line(1);
    trn::Operand a = b.tile(b.sbuf("a", 128, 128 * 2), 0, 128, 128, 2);
    b.load(a, b.hbm_rows(x, 128, 128, 2));
    b.set_line(2);
    trn::Operand rhs = b.tile(b.sbuf("rhs", 128, 512 * 2), 0, 128, 512, 2);
    b.load(rhs, b.hbm_rows(y, 128, 512, 2));
    b.set_line(3);
    trn::Operand acc = b.psum_tile(b.psum("acc", 128, 2048), 0, 128, 512);
    b.loop_begin(trn::LoopKind::Affine, count);
    for (int idx = 0; idx < count; ++idx) {
      trn::Operand t = b.tile(b.psum("t", 128, 128 * 2), 0, 128, 128, 2);
      b.transpose(t, a);
      trn::Operand lhsT = b.tile(b.sbuf("lhsT", 128, 128 * 2), 0, 128, 128, 2);
      b.op(Opcode::TensorCopy, Engine::Scalar, {t}, {lhsT});
      b.matmul(acc, chained ? lhsT : a, rhs, idx > 0);
    }
    b.loop_end();
  });
}

}  // namespace

TEST(TrnEngineModel, TensorEngineWaitingOnAnotherEngineHoldsItsQueue) {
  // transpose_example (trn2): TensorE transposes whose PSUM copies feed the next matmul cost the
  // device ~194 us over 1,024 iterations; the transposes of later iterations do not fill the PE
  // while a matmul waits for its copy. Each iteration then pays the whole chain: transpose,
  // semaphore, copy (with its fixed cost), semaphore, matmul.
  const int count = 32;
  auto chained = transpose_chain(count, true), independent = transpose_chain(count, false);
  for (auto* v : {&chained, &independent})
    for (auto& r : *v) r.inst.engine_chosen_by_user = true;
  const trn::ArchConfig& arch = trn1();
  double with_chain = trn::simulate(chained, arch).latency * 1e6;
  double without = trn::simulate(independent, arch).latency * 1e6;
  const double transpose_ns = 128 / arch.tensor_ghz, matmul_ns = 512 / arch.tensor_ghz;
  const double copy_ns = (128 + arch.scalar_static_overhead + arch.access_overhead) / arch.scalar_ghz;
  const double chain_ns = transpose_ns + copy_ns + matmul_ns + 2 * arch.semaphore_ns;
  // The copies of the independent version run beside the PE, which streams back to back.
  const double loads_ns = 2 * arch.dma_fixed_ns + 2 * chain_ns;  // before the first transpose
  EXPECT_LT(without, count * (transpose_ns + matmul_ns) + loads_ns);
  EXPECT_GT(with_chain, count * chain_ns);
  EXPECT_LT(with_chain, count * (chain_ns + 64 / arch.tensor_ghz) + loads_ns);
}

TEST(TrnEngineModel, MatmulsWaitingOnLoadsStillReorder) {
  // The queue is held only by waits on compute engines: a matmul whose stationary is still
  // loading lets the independent matmuls after it run (kernel_optimization v5 keeps TensorE
  // 99.5% busy on the device while its rows arrive one by one); one whose stationary VectorE is
  // still computing holds them.
  auto kernel = [](bool engine_gated, int others) {
    auto records = build([&](trn::TraceBuilder& b) {
      auto x = b.hbm("x", 8 * 128 * 32768 * 2, true);
      trn::Operand ready = b.tile(b.sbuf("s", 128, 128 * 2), 0, 128, 128, 2);
      b.load(ready, b.hbm_rows(x, 128, 128, 2));
      trn::Operand rhs = b.tile(b.sbuf("rhs", 128, 512 * 2), 0, 128, 512, 2);
      b.load(rhs, b.hbm_rows(x, 128, 512, 2));
      trn::Operand late = b.tile(b.sbuf("late", 128, 128 * 2), 0, 128, 128, 2);
      if (engine_gated) {
        trn::Operand big = b.tile(b.sbuf("big", 128, 32768 * 2), 0, 128, 32768, 2);
        b.op(Opcode::Memset, Engine::Vector, {}, {big});
        b.op(Opcode::TensorReduce, Engine::Vector, {big}, {late});
      } else {
        for (int idx = 0; idx < 4; ++idx)
          b.load(b.tile(b.sbuf("big", 128, 32768 * 2), 0, 128, 32768, 2), b.hbm_rows(x, 128, 32768, 2));
        b.load(late, b.hbm_rows(x, 128, 128, 2));
      }
      b.loop_begin(trn::LoopKind::Affine, 1 + others);
      b.matmul(b.psum_tile(b.psum("o", 128, 2048), 0, 128, 512), late, rhs, false);
      for (int idx = 0; idx < others; ++idx)
        b.matmul(b.psum_tile(b.psum("o", 128, 2048), 0, 128, 512), ready, rhs, false);
      b.loop_end();
    });
    for (auto& r : records) r.inst.engine_chosen_by_user = true;
    return trn::simulate(records, trn1()).latency * 1e6;
  };
  const double matmul_ns = 512 / trn1().tensor_ghz;
  EXPECT_LT(kernel(false, 16) - kernel(false, 0), 1.0);  // hidden under the load
  EXPECT_NEAR(kernel(true, 16) - kernel(true, 0), 16 * matmul_ns, 1.0);
}

TEST(TrnEngineModel, AnActivationSwitchingTablesKeepsScalarEnginesProgramOrder) {
  // rmsnorm_matmul (Trn1 profile): the device's PE is busy 0.796 of 0.971 ms; the idle per row
  // tile (~5.5 us) is the next tile's normalization, whose square and rsqrt switch ScalarE's
  // function table, waiting behind the PSUM copies before it. gqa_full's exp, which uses the
  // table already loaded, overlaps the P.V chain before it on the device. Here an activation on a
  // ready tile comes after a ScalarE copy of a long matmul chain's result: switching to another
  // function it runs after the copy; with the function already loaded it runs beside the PE.
  auto kernel = [](bool switches, const trn::ArchConfig& arch) {
    auto records = build([&](trn::TraceBuilder& b) {
      trn::Operand stationary = b.tile(b.sbuf("a", 128, 128 * 2), 0, 128, 128, 2);
      trn::Operand moving = b.tile(b.sbuf("rhs", 128, 512 * 2), 0, 128, 512, 2);
      trn::Operand x = b.tile(b.sbuf("x", 128, 4096 * 4), 0, 128, 4096, 4);
      for (const auto& t : {stationary, moving}) b.op(Opcode::Memset, Engine::GpSimd, {}, {t});
      b.op(Opcode::Memset, Engine::Vector, {}, {x});
      // The exp table is loaded first, on a tile of its own.
      trn::Operand warm = b.tile(b.sbuf("w", 128, 64 * 4), 0, 128, 64, 4);
      b.op(Opcode::Memset, Engine::Vector, {}, {warm});
      b.op(Opcode::Activation, Engine::Scalar, {warm}, {b.tile(b.sbuf("wo", 128, 64 * 4), 0, 128, 64, 4)});
      trn::Operand acc = b.psum_tile(b.psum("acc", 128, 2048), 0, 128, 512);
      for (int idx = 0; idx < 64; ++idx) b.matmul(acc, stationary, moving, idx > 0);
      b.op(Opcode::TensorCopy, Engine::Scalar, {acc}, {b.tile(b.sbuf("res", 128, 512 * 4), 0, 128, 512, 4)});
      b.op(Opcode::Activation, Engine::Scalar, {x}, {b.tile(b.sbuf("y", 128, 4096 * 4), 0, 128, 4096, 4)});
    });
    int activation = 0;
    for (auto& r : records) {
      r.inst.engine_chosen_by_user = true;
      if (r.kind == trn::RecordKind::Instruction && r.inst.opcode == Opcode::Activation)
        r.inst.activation_func = uint16_t(++activation == 2 && switches ? 2 : 1);
    }
    return trn::simulate(records, arch).latency * 1e6;
  };
  const double activation_ns = 4096 / trn1().scalar_ghz, pe_ns = 64 * 512 / trn1().tensor_ghz;
  const double table_ns = trn1().act_table_load_cycles / trn1().scalar_ghz;
  EXPECT_GT(pe_ns, 2 * (activation_ns + table_ns));  // the activation and its table load fit beside the PE
  // With the table already loaded the activation runs beside the PE: the run ends with the copy.
  // Switching, its table load and then it run after the copy.
  EXPECT_NEAR(kernel(true, trn1()) - kernel(false, trn1()), table_ns + activation_ns, 0.1 * activation_ns);
  // Without the rule the switching activation runs beside the PE too.
  trn::ArchConfig free_running = trn1();
  free_running.act_table_switch_in_order = false;
  EXPECT_NEAR(kernel(true, free_running), kernel(false, trn1()), 0.05 * activation_ns);
}

TEST(TrnEngineModel, AReadyInstructionRunsWhileAnEarlierOneWaitsOnAnotherEngine) {
  // The compiler's scheduler orders each engine's stream by readiness (ArchConfig::reorder_window):
  // a VectorE -> ScalarE -> VectorE chain leaves VectorE waiting for ScalarE, and an independent
  // VectorE instruction later in program order runs in that wait even when it is longer than the
  // wait. Placed in program order (window 1), first-fit puts it after the chain: it only fills a
  // gap it fits in whole, which made adamw 1.19x -> 1.43x when a fixed cost shrank by 100 ns.
  auto kernel = [](bool with_independent) {
    auto records = build([&](trn::TraceBuilder& b) {
      trn::Operand src = fresh(b, 128, 2048);
      b.op(Opcode::Memset, Engine::Vector, {}, {src});
      b.loop_begin(trn::LoopKind::Affine, 1);
      trn::Operand a = fresh(b, 128, 512), s = fresh(b, 128, 512);
      b.op(Opcode::TensorScalar, Engine::Vector, {src}, {a});
      b.op(Opcode::Activation, Engine::Scalar, {a}, {s});
      b.op(Opcode::TensorScalar, Engine::Vector, {s}, {fresh(b, 128, 512)});
      if (with_independent) b.op(Opcode::TensorScalar, Engine::Vector, {src}, {fresh(b, 128, 2048)});
      b.loop_end();
    });
    for (auto& r : records) r.inst.engine_chosen_by_user = true;
    return records;
  };
  trn::ArchConfig in_order = trn1();
  trn::set_parameter(in_order, "reorder_window", 1);
  auto us = [](const std::vector<trn::Record>& r, const trn::ArchConfig& arch) {
    return trn::simulate(r, arch).latency * 1e6;
  };
  const double independent_ns = 2048 / trn1().vector_ghz;
  // ScalarE's part of the chain (two semaphores, its fixed cost and the 512-element activation).
  const double wait_ns = 2 * trn1().semaphore_ns + (140 + 60 + 512) / trn1().scalar_ghz;
  ASSERT_LT(wait_ns, independent_ns);  // the independent instruction does not fit the wait
  const double program_order = us(kernel(true), in_order) - us(kernel(false), in_order);
  const double by_readiness = us(kernel(true), trn1()) - us(kernel(false), trn1());
  EXPECT_NEAR(program_order, independent_ns, 1.0);
  EXPECT_LT(by_readiness, independent_ns - wait_ns + 200);  // the wait is hidden, less a fixed cost
}

