// Internal to the simulator: times instructions on the engines and DMA queues in program order
// and keeps the profile counters. Simulator (simulator.cpp) feeds it after its look-ahead window.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "trn/arch_config.h"
#include "trn/cost_model.h"
#include "trn/engine_timeline.h"
#include "trn/resource_timeline.h"
#include "trn/memory_model.h"
#include "trn/profile.h"
#include "trn/timeline.h"
#include "trn/trace.h"

namespace trn {

inline bool on_chip(BufferKind b) { return b != BufferKind::Hbm; }

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
  // DMA: the stream of transfers it belongs to, which keeps one IO queue on Trn1
  // (ArchConfig::dma_queue_per_statement): the HBM tensor it reads or writes and the direction
  // (dma_stream_key).
  uint64_t dma_stream = 0;
  Opcode opcode = Opcode::Other;
  Engine engine = Engine::Vector;
  bool accumulate = false;
  // Loop context: the compiler keeps program order on each engine inside a sequential_range
  // (`in_order`), and reorders independent instructions of affine_range iterations only after
  // the last sequential iteration boundary (`epoch` counts those boundaries).
  bool in_order = false;
  uint32_t epoch = 0;
  PeCells pe_cells = 0;       // TensorE: the PE sub-arrays it occupies (trace.h), 0 = all; 0 on other engines
  bool fp32_passes = false;   // TensorE fp32: two passes, counted twice by the profiler
  double compute_ns = 0;
  double fixed_ns = 0;        // fixed cost paid when the instruction waits for its inputs
  uint16_t activation_func = 0;  // ScalarE function (0: identity, no table)
  bool table_switch = false;     // an activation whose function differs from the one before it
  bool flexible = false;      // may run on VectorE or ScalarE (compiler's choice)
  double alternate_ns = 0;    // its cost on the other of the two
  double alternate_fixed_ns = 0;
  DmaTiming dma;
  uint64_t flops = 0;
  std::vector<Access> accesses;
};

// Tracks (timeline rows): the compute engines, then the DMA queues (ArchConfig::dma_queues each
// for loads and stores, and for spills).
enum Track : int { kPe, kAct, kDve, kPool, kSp, kEngineCount };

class Scheduler {
 public:
  Scheduler(const ArchConfig& arch, TimelineWriter* timeline);
  void declare(const AllocInfo& alloc);
  // The tile state behind an operand (declares undeclared tiles; throws AllocationError).
  void touch(const Operand& op) { memory_.tile(op); }
  const TileState* tile(TileKey key) { return memory_.find(key); }
  // Takes the next instruction in program order into the reorder window (ArchConfig::
  // reorder_window) and, when the window is full, places the one that can start first
  // (scheduler_order.cpp).
  void run(PendingOp op);
  // Places everything still in the reorder window; call before summarize().
  void flush();
  Profile summarize() const;

 private:
  // When an instruction may start: the inputs it reads (with the engine that wrote each) and the
  // other constraints (space, WAR, WAW).
  struct Ready {
    double other = 0;
    struct Input {
      double at;
      int writer;
    };
    std::vector<Input> inputs;
    // When an input reaches an instruction on `track`: a result of another engine or of a DMA
    // queue arrives through a semaphore, one of the same engine in queue order (no semaphore).
    static double arrival(const Input& in, int track, double semaphore_ns);
    double on(int track, double semaphore_ns) const;  // for an instruction on `track`
    // Whether an instruction on `track` waits last on a compute engine matching `from` (called
    // with each input's writer track): an input of such an engine arrives no earlier than
    // everything else it waits for (inputs, space, WAR, WAW). Same-engine inputs arrive without
    // a semaphore, as `on` has them.
    template <class From>
    bool waits_on(int track, double semaphore_ns, From from) const {
      const double at = on(track, semaphore_ns);
      for (const Input& in : inputs)
        if (in.writer >= 0 && from(in.writer) && arrival(in, track, semaphore_ns) >= at) return true;
      return false;
    }
  };
  struct Queue {
    ResourceTimeline setups;  // the queue sets up one transfer at a time
    double last_setup = 0;    // start of the latest setup (program order in sequential loops)
    double floor = 0;         // no reordering before this (sequential loop iterations)
    double slot_end = 0;      // end of the fabric time of the queue's latest transfer
    double busy_ns = 0;
  };

  // An instruction of the reorder window, with when its inputs are ready once nothing earlier in
  // the window touches its tiles (then nothing placed before it can change that time).
  struct Waiting {
    PendingOp op;
    bool ready_known = false;
    double ready_at = 0;
  };
  // Streams that keep program order in the reorder window: the Tensor Engine's (its queue is held
  // by engine waits, pe_engine_wait_floor_) and each DMA queue's (in order within a queue, DMAO:
  // the transfers of one DMA statement when each statement keeps its queue; with round robin a
  // transfer takes its queue when it is placed, so placement order is queue order). The
  // compiler's choice among ready instructions is on VectorE, ScalarE and GpSimd, and the DMA
  // engines serve the queues round robin, so a ready transfer of another queue goes first.
  enum Lane : int { kLaneTensor, kLaneVector, kLaneScalar, kLaneGpSimd, kLaneDma, kLaneOther, kLaneCount };
  static int lane(const PendingOp& op);
  bool may_go_now(const Waiting& w, std::array<uint64_t, 3>& earlier, std::array<bool, kLaneCount>& held);
  bool conflicts_with_earlier(const PendingOp& op, const Access& a) const;
  // The next use of access `a`'s tile once `op` is placed (retire): the first of its users still
  // waiting in the reorder window, else the next use after the latest user in program order
  // placed so far. In program order that is `a.next_use`; an instruction placed before earlier
  // users of the same tile (disjoint regions) must not let the tile look dead or unused to them.
  std::pair<uint64_t, bool> next_use(const PendingOp& op, const Access& a);
  // An activation switching ScalarE's table that keeps ScalarE's program order (ArchConfig).
  bool switch_in_order(const PendingOp& op) const { return op.table_switch && arch_.act_table_switch_in_order; }
  // The earliest start its engine's order allows an instruction on `track` (sequential loops, the
  // held TensorE queue, a ScalarE table switch).
  double order_floor(const PendingOp& op, int track) const;
  double start_estimate(Waiting& w);
  void place_first_ready();
  void issue(const PendingOp& op);
  // The hazards of access `a` on tile `t` (RAW inputs, WAR and WAW times into `ready`); false
  // when `a` rewrites a tile still being read (it gets a fresh buffer and waits for neither).
  bool add_hazards(const PendingOp& op, const Access& a, const TileState& t, Ready& ready) const;
  // A matmul's access to the PSUM region it accumulates into.
  static bool pe_accumulate_access(const PendingOp& op, const Access& a) {
    return op.engine == Engine::Tensor && op.accumulate && a.read && a.write;
  }
  // When the next matmul may accumulate into a region that a matmul whose result is visible at
  // `result_at` (its streaming end plus pe_latency) accumulated into.
  double accumulated_at(double result_at) const {
    return result_at + (double(arch_.pe_accumulate_turnaround) - double(arch_.pe_latency)) / arch_.tensor_ghz;
  }
  void dependencies(const PendingOp& op, Ready& ready);
  double schedule_compute(const PendingOp& op, const Ready& ready, int& track);
  double place(int track, bool psum_port, double ready, double fixed_ns, double busy_ns, const char* name,
               PeCells pe_cells);
  // The start `place` would give, without placing.
  double fit(int track, bool psum_port, double ready, double fixed_ns, double busy_ns, PeCells pe_cells);
  double schedule_dma(int queue, const DmaTiming& timing, double ready, const char* name, uint32_t line,
                      bool in_order);
  double memory_transfer(const MemoryTransfer& transfer);
  void retire(const PendingOp& op, double end, int track);
  void count_bytes(const PendingOp& op);
  int engine_track(Engine engine) const;
  // Loads and stores share the IO queues (the profiler's qSyncIO<n>); spills have their own
  // (qSyncSpillReload<n>, qVectorSpillReload<n>).
  enum class QueueClass { Io, Spill };
  int next_queue(QueueClass c);  // round robin over the class's queues
  // The IO queue of a DMA statement (ArchConfig::dma_queue_per_statement), chosen when the
  // statement issues its first transfer.
  int statement_queue(uint64_t stream);
  int queue_track(int queue) const { return kEngineCount + queue; }
  size_t io_queues() const { return queues_.size() / 2; }  // queues per class
  EngineTimeline& engine_timeline(int track);

  const ArchConfig& arch_;
  TimelineWriter* timeline_;
  MemoryModel memory_;
  // The DMA capacity of the core: one for all transfers, or with ArchConfig::dma_directions the
  // from-HBM path (fabric_), the to-HBM path (fabric_to_hbm_) and the HBM bandwidth they share.
  ResourceTimeline fabric_, fabric_to_hbm_, hbm_;
  // Each DMA engine, one transfer at a time (ArchConfig::dma_engine_occupancy); a second set for
  // the to-HBM path with ArchConfig::dma_directions.
  std::vector<ResourceTimeline> dma_engine_lines_;
  // Places the transfer's share on each of its engines at or after `start`; returns the latest
  // share's start (the data is done one duration after it).
  double place_on_engines(const DmaTiming& timing, bool from, bool to, double start);
  // Reserves a transfer's data time on the capacities it uses, at the first time all are free.
  double reserve_data(const DmaTiming& timing, double earliest);
  IntervalUnion dma_active_;
  std::array<EngineTimeline, kEngineCount> engines_;
  ResourceTimeline psum_port_;  // NC-v2: VectorE and ScalarE take turns on PSUM
  std::array<IntervalUnion, kEngineCount> active_;  // active time per engine (SCHEMA)
  std::array<double, kEngineCount> assigned_ns_{};  // work given to each compute engine
  std::array<double, kEngineCount> last_start_{};   // start of the last instruction placed
  std::array<double, kEngineCount> order_floor_{};  // no reordering before this (sequential loops)
  // TensorE issues in order behind a wait on another compute engine (docs/simulator.md).
  double pe_engine_wait_floor_ = 0;
  uint32_t epoch_ = 0;
  uint16_t act_table_ = 0;  // the ScalarE function whose table is loaded
  uint16_t program_table_ = 0;  // the function of the last activation in program order
  double act_table_used_until_ = 0;  // end of the last activation that used a table
  std::vector<Queue> queues_;                       // IO queues, then spill queues
  std::array<int, 2> next_queue_{};
  std::unordered_map<uint64_t, int> statement_queues_;  // DMA stream -> IO queue
  double dma_load_ns_ = 0, dma_store_ns_ = 0, dma_spill_ns_ = 0;  // data time by direction
  Ready scratch_ready_;
  std::deque<Waiting> reorder_;  // program order
  // Positions of the window's instructions per tile and per lane, in program order.
  std::unordered_map<TileKey, std::deque<uint64_t>> tile_users_;
  // Per tile with waiting users: the placed user latest in program order, and its next use.
  struct LatestUse {
    uint64_t pos, next_use;
    bool next_reads;
  };
  std::unordered_map<TileKey, LatestUse> latest_use_;
  std::array<std::deque<uint64_t>, kLaneCount> lane_users_;
  std::unordered_map<uint64_t, std::deque<uint64_t>> queue_users_;  // per DMA stream
  // Waiting accesses per HBM tensor (position, whether it writes): a read may pass a read.
  std::unordered_map<uint32_t, std::deque<std::pair<uint64_t, bool>>> hbm_users_;
  // HBM traffic per tensor, to classify private intermediates as spill at the end.
  struct HbmTraffic {
    bool kernel_io = false;  // declared as a kernel input or output
    uint64_t read = 0, written = 0;
  };
  std::unordered_map<uint32_t, HbmTraffic> hbm_traffic_;
  std::unordered_map<uint32_t, double> hbm_written_; // HBM tensor id -> last write end
  double end_ns_ = 0;
  uint32_t current_line_ = 0;
  bool current_in_order_ = false;
  Profile counters_;
};

}  // namespace trn
