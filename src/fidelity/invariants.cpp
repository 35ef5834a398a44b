#include "fidelity/invariants.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fidelity {

double TraceFacts::roofline_ns() const { return std::max({dma_ns, pe_ns, act_ns, dve_ns, pool_ns}); }

namespace {

// Elements per partition the instruction streams: the largest operand (the ISA's N).
uint64_t elements(const trn::InstructionInfo& inst) {
  uint64_t n = 1;
  for (const auto* side : {&inst.inputs, &inst.outputs})
    for (const auto& o : *side) n = std::max<uint64_t>(n, o.free_elements);
  return n;
}

}  // namespace

TraceFacts trace_facts(const std::vector<trn::Record>& lowered, const trn::ArchConfig& arch) {
  TraceFacts f;
  uint64_t act_cycles = 0, dve_cycles = 0, pool_cycles = 0;
  for (const auto& r : lowered) {
    if (r.kind != trn::RecordKind::Instruction) continue;
    const auto& inst = r.inst;
    f.instructions += 1;
    switch (inst.engine) {
      case trn::Engine::Dma:
        f.dma_transfers += 1;
        for (const auto& o : inst.inputs)
          (o.buffer == trn::BufferKind::Hbm ? f.dma_hbm_read : f.dma_from_chip) += o.bytes();
        for (const auto& o : inst.outputs) {
          (o.buffer == trn::BufferKind::Hbm ? f.dma_hbm_write : f.dma_to_chip) += o.bytes();
          f.dma_bytes += o.bytes();
          const bool from_chip = std::none_of(inst.inputs.begin(), inst.inputs.end(),
                                              [](const auto& in) { return in.buffer == trn::BufferKind::Hbm; });
          if (o.buffer != trn::BufferKind::Hbm && from_chip) f.dma_on_chip += o.bytes();
        }
        break;
      case trn::Engine::Tensor:
        // At the PE's peak: 2 * 128 * 128 FLOPs per cycle (fp32 counts twice and runs at a quarter
        // rate, so this stays a lower bound).
        f.pe_ns += double(inst.flops) / arch.tensor_peak_flops() * 1e9;
        break;
      case trn::Engine::Scalar:
        act_cycles += elements(inst);
        break;
      case trn::Engine::Vector:
        dve_cycles += elements(inst);
        break;
      case trn::Engine::GpSimd:
        pool_cycles += elements(inst);
        break;
      case trn::Engine::Sync:
        break;
    }
  }
  // With separate directions an on-chip copy uses both paths: no faster than either alone.
  f.dma_ns = arch.dma_directions ? std::max(arch.hbm_traffic_floor_ns(double(f.dma_hbm_read), double(f.dma_hbm_write)),
                                            double(f.dma_on_chip) / arch.dma_bytes_per_ns())
                                 : double(f.dma_bytes) / arch.dma_bytes_per_ns();
  const double slowest_ghz = std::min({arch.tensor_ghz, arch.vector_ghz, arch.scalar_ghz, arch.gpsimd_ghz});
  f.serial_fixed_ns = double(f.dma_transfers) * arch.dma_fixed_ns +
                      double(f.instructions - f.dma_transfers) *
                          (double(arch.static_overhead + 2 * arch.access_overhead) / slowest_ghz + arch.semaphore_ns);
  // One element per partition per cycle is the ISA's streaming floor (max(MIN_II, N)); VectorE
  // performance modes (trn2) stream up to 4 per cycle.
  const double vector_mode = std::max({1u, arch.vector_perf_mode_copy, arch.vector_perf_mode_tt});
  f.act_ns = double(act_cycles) / arch.scalar_ghz;
  f.dve_ns = double(dve_cycles) / (arch.vector_ghz * vector_mode);
  f.pool_ns = double(pool_cycles) / arch.gpsimd_ghz;
  return f;
}

std::vector<std::string> profile_violations(const trn::Profile& p, const TraceFacts& facts) {
  std::vector<std::string> out;
  auto fail = [&](std::string what) { out.push_back(std::move(what)); };
  const double eps = 1e-9;
  if (!(p.latency > 0)) fail(fmt::format("latency {} is not positive", p.latency));
  const std::pair<const char*, double> fractions[] = {
      {"tensor_engine_active_time_percent", p.tensor_engine_active_time_percent},
      {"scalar_engine_active_time_percent", p.scalar_engine_active_time_percent},
      {"vector_engine_active_time_percent", p.vector_engine_active_time_percent},
      {"gpsimd_engine_active_time_percent", p.gpsimd_engine_active_time_percent},
      {"dma_active_time_percent", p.dma_active_time_percent},
      {"hfu_estimated_percent", p.hfu_estimated_percent}};
  for (const auto& [name, v] : fractions)
    if (!(v >= 0 && v <= 1 + eps)) fail(fmt::format("{} = {} is not a fraction", name, v));
  // The PE cannot exceed its peak: the FLOPs need at least hfu x latency of PE time.
  if (p.hfu_estimated_percent > p.tensor_engine_active_time_percent + 1e-6)
    fail(fmt::format("hfu {} exceeds the Tensor Engine's active share {}", p.hfu_estimated_percent,
                     p.tensor_engine_active_time_percent));
  for (const char* engine : {"pe", "act", "dve", "pool"}) {
    auto it = p.engine_busy_ms.find(engine);
    if (it != p.engine_busy_ms.end() && it->second > p.latency * (1 + 1e-9))
      fail(fmt::format("{} busy {} ms exceeds the latency {} ms", engine, it->second, p.latency));
  }
  // HBM bytes: what the trace's DMAs move, plus what the simulator adds (evictions: spill saves
  // and reloads, rematerializing reloads).
  if (p.hbm_read_bytes < facts.dma_hbm_read)
    fail(fmt::format("hbm_read_bytes {} < the trace's DMA reads {}", p.hbm_read_bytes, facts.dma_hbm_read));
  if (p.hbm_write_bytes < facts.dma_hbm_write)
    fail(fmt::format("hbm_write_bytes {} < the trace's DMA writes {}", p.hbm_write_bytes, facts.dma_hbm_write));
  if (p.hbm_write_bytes > facts.dma_hbm_write + p.spill_save_bytes)
    fail(fmt::format("hbm_write_bytes {} > the trace's DMA writes {} + spill saves {}", p.hbm_write_bytes,
                     facts.dma_hbm_write, p.spill_save_bytes));
  if (p.spill_save_bytes == 0 && p.spill_reload_bytes == 0 && p.hbm_write_bytes != facts.dma_hbm_write)
    fail(fmt::format("no spill, yet hbm_write_bytes {} != the trace's DMA writes {}", p.hbm_write_bytes,
                     facts.dma_hbm_write));
  // A DMA counts every byte it moves on chip (SCHEMA), so the on-chip counters hold at least that.
  if (p.sbuf_write_bytes + p.psum_write_bytes < facts.dma_to_chip)
    fail(fmt::format("sbuf + psum writes {} < the trace's DMA bytes into SBUF/PSUM {}",
                     p.sbuf_write_bytes + p.psum_write_bytes, facts.dma_to_chip));
  if (p.sbuf_read_bytes + p.psum_read_bytes < facts.dma_from_chip)
    fail(fmt::format("sbuf + psum reads {} < the trace's DMA bytes out of SBUF/PSUM {}",
                     p.sbuf_read_bytes + p.psum_read_bytes, facts.dma_from_chip));
  if (p.transpose_flops > p.hardware_flops)
    fail(fmt::format("transpose_flops {} > hardware_flops {}", p.transpose_flops, p.hardware_flops));
  const uint64_t hbm = p.hbm_read_bytes + p.hbm_write_bytes;
  const double ai = hbm ? double(p.hardware_flops - p.transpose_flops) / double(hbm) : 0;
  if (std::abs(ai - p.mm_arithmetic_intensity) > 1e-9 * std::max(1.0, ai))
    fail(fmt::format("mm_arithmetic_intensity {} != (hardware - transpose flops) / HBM bytes = {}",
                     p.mm_arithmetic_intensity, ai));
  if (!(p.latency_low > 0 && p.latency_low <= p.latency_high))
    fail(fmt::format("error band [{}, {}] is empty", p.latency_low, p.latency_high));
  if (p.bound_class.empty()) fail("no bound class");
  return out;
}

}  // namespace fidelity
