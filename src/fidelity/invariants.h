// Invariants that must hold on the simulated profile of any well-formed kernel, whoever wrote it
// (issue 11, held-out robustness): the profile's fields agree with each other and with the
// traffic of the trace that was simulated, and the latency is not absurd against the kernel's
// roofline. tests/unit/fidelity/corpus_invariants_test.cpp checks them on every corpus kernel.
#pragma once

#include <string>
#include <vector>

#include "trn/arch_config.h"
#include "trn/profile.h"
#include "trn/trace.h"

namespace fidelity {

// What the (lowered) trace asks for, independent of the simulator's timing.
struct TraceFacts {
  uint64_t dma_hbm_read = 0, dma_hbm_write = 0;  // bytes the trace's DMAs move from / to HBM
  uint64_t dma_to_chip = 0, dma_from_chip = 0;   // bytes the trace's DMAs write / read on chip
  uint64_t dma_bytes = 0;                        // every DMA byte (SBUF to SBUF included)
  uint64_t dma_on_chip = 0;                      // bytes of DMAs from and to on-chip memory
  uint64_t dma_transfers = 0;
  uint64_t instructions = 0;
  // The roofline, ns: each resource at its documented peak, nothing else (a lower bound).
  double dma_ns = 0, pe_ns = 0, act_ns = 0, dve_ns = 0, pool_ns = 0;
  double roofline_ns() const;
  // Every fixed cost paid one after another: a DMA's per-transfer cost, a compute instruction's
  // static overhead and a semaphore wait (the worst case of a fully dependent chain).
  double serial_fixed_ns = 0;
};

TraceFacts trace_facts(const std::vector<trn::Record>& lowered, const trn::ArchConfig& arch);

// Every invariant the profile breaks, one line each ("" when it holds them all): fractions in
// [0, 1]; HFU no more than the Tensor Engine's active share; busy time of an engine no more than
// the latency; HBM bytes at least the trace's DMA bytes and at most those plus spill; transposes
// inside the hardware FLOPs; arithmetic intensity by its definition; a band around the latency.
std::vector<std::string> profile_violations(const trn::Profile& p, const TraceFacts& facts);

}  // namespace fidelity
