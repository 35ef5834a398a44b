// Internal to the simulator: times instructions on the engines and DMA queues in program order
// and keeps the profile counters. Simulator (simulator.cpp) feeds it after its look-ahead window.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "trn/arch_config.h"
#include "trn/cost_model.h"
#include "trn/resource_timeline.h"
#include "trn/memory_model.h"
#include "trn/profile.h"
#include "trn/timeline.h"
#include "trn/trace.h"

namespace trn {

// One operand access of a buffered instruction, with what the look-ahead knows of its future.
struct Access {
  TileKey key = 0;
  Operand operand;
  bool read = false, write = false;
  bool full_write = false;      // overwrites the whole tile (its old contents are dead)
  uint64_t next_use = kNeverUsed;
  bool next_reads = false;      // the next access needs the contents this one leaves
};

struct PendingOp {
  uint64_t pos = 0;
  uint32_t line = 0;
  Opcode opcode = Opcode::Other;
  Engine engine = Engine::Vector;
  bool accumulate = false;
  double compute_ns = 0;
  bool flexible = false;      // may run on VectorE or ScalarE (compiler's choice)
  double alternate_ns = 0;    // its cost on the other of the two
  DmaTiming dma;
  uint64_t flops = 0;
  std::vector<Access> accesses;
};

// Tracks (timeline rows). DMA queues follow the compute engines.
enum Track : int { kPe, kAct, kDve, kPool, kSp, kDmaLoad, kDmaStore, kDmaSpill, kTrackCount };

class Scheduler {
 public:
  Scheduler(const ArchConfig& arch, TimelineWriter* timeline);
  void declare(const AllocInfo& alloc);
  // The tile state behind an operand (declares undeclared tiles; throws AllocationError).
  void touch(const Operand& op) { memory_.tile(op); }
  const TileState* tile(TileKey key) { return memory_.find(key); }
  void run(const PendingOp& op);
  Profile summarize() const;

 private:
  double dependencies(const PendingOp& op);
  double schedule_compute(const PendingOp& op, double ready);
  double schedule_dma(Track queue, const DmaTiming& timing, double ready, const char* name,
                      uint32_t line);
  double memory_transfer(const MemoryTransfer& transfer);
  void retire(const PendingOp& op, double end);
  void count_bytes(const PendingOp& op);
  Track track_of(const PendingOp& op) const;

  const ArchConfig& arch_;
  TimelineWriter* timeline_;
  MemoryModel memory_;
  ResourceTimeline fabric_;
  std::array<double, kTrackCount> free_at_{};   // DMA queues: last issue
  std::array<double, kTrackCount> data_end_{};  // DMA queues: end of the last transfer
  std::array<double, kTrackCount> busy_ns_{};
  std::array<double, kTrackCount> active_until_{};
  std::array<double, kTrackCount> assigned_ns_{};   // work given to each compute engine
  std::array<ResourceTimeline, kTrackCount> engines_;  // compute engines: occupancy in time
  // HBM traffic per tensor, to classify private intermediates as spill at the end.
  struct HbmTraffic {
    bool kernel_io = false;  // declared as a kernel input or output
    uint64_t read = 0, written = 0;
  };
  std::unordered_map<uint32_t, HbmTraffic> hbm_traffic_;
  std::unordered_map<uint32_t, double> hbm_written_; // HBM tensor id -> last write end
  double end_ns_ = 0;
  uint32_t current_line_ = 0;
  Profile counters_;
};

}  // namespace trn
