// The NeuronCore performance simulator: consumes the instruction trace of one kernel run and
// produces its neuron-profile summary (docs/simulator.md describes the model).
//
//   trn::Simulator sim(trn::arch_config("trn1"));
//   run_kernel(..., sim);          // any TraceSink producer; records arrive in program order
//   sim.finish();
//   const trn::Profile& p = sim.profile();
//
// Engines run their own instruction streams in order and asynchronously: an instruction starts
// when its engine is free, its inputs are written, and the space it writes is released; DMA
// queues run in parallel and share the core's DMA bandwidth. On-chip memory is modelled by
// MemoryModel (liveness, spill, reload). Memory stays bounded: records are simulated after a
// fixed look-ahead window, which is also how far the allocator sees future uses.
// Not thread-safe; one Simulator per kernel run. Examples: tests/unit/trn/simulator_test.cpp and
// the golden traces in tests/golden/trn/.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "trn/arch_config.h"
#include "trn/memory_model.h"  // AllocationError
#include "trn/profile.h"
#include "trn/trace.h"

namespace trn {

struct SimOptions {
  std::string timeline_path;     // Chrome trace JSON written here when non-empty
  size_t lookahead = 1 << 16;    // instructions buffered before simulation (allocator look-ahead)
  // Sensitivity probe: the instruction at this program position (0-based, counting instructions
  // the simulator times) costs `probe_factor` times its modelled time (streaming, fixed cost, or
  // a DMA's setup and data time). Used to check that a cheaper instruction never makes a kernel
  // slower (tests/unit/fidelity/monotonic_cost_test.cpp).
  uint64_t probe_instruction = UINT64_MAX;
  double probe_factor = 1.0;
  // Also run the trace on a core with unbounded SBUF; the latency that saves is what SBUF space
  // costs this kernel (Profile::sbuf_space_wait_ms). Off: the field stays unknown.
  bool price_sbuf_space = true;
};

class Simulator : public TraceSink {
 public:
  // Throws std::runtime_error when options.timeline_path cannot be created.
  explicit Simulator(const ArchConfig& arch, SimOptions options = {});
  ~Simulator() override;
  // Throws AllocationError for a tile that can never fit, std::invalid_argument for a malformed
  // record (e.g. an instruction with no operands on a DMA queue).
  void consume(const Record& record) override;
  void finish() override;
  // Valid after finish().
  const Profile& profile() const;

 private:
  void consume_here(const Record& record);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

Profile simulate(const std::vector<Record>& records, const ArchConfig& arch,
                 const SimOptions& options = {});

}  // namespace trn
