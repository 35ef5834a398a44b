// The order in which the scheduler places instructions: the compiler's instruction scheduler
// orders each engine's stream by readiness (docs/simulator.md "Dependences and program order").
//
// Placing instructions strictly in program order, each first-fit into the idle time of its
// engine, never moves an instruction already placed: an instruction that waits for another
// engine takes its slot, and an independent instruction after it in program order that is ready
// earlier can only use the idle gap before it if it fits whole. A little less latency somewhere
// could then shrink a gap below an instruction's length and serialize two iterations (adamw:
// 1.19x -> 1.43x from a 100 ns shorter fixed cost). A list scheduler does what a device compiler
// does instead: of the instructions it may reorder, it places the one that can start first.
#include <algorithm>
#include <array>
#include <limits>

#include "trn/scheduler.h"

namespace trn {

int Scheduler::lane(const PendingOp& op) {
  switch (op.engine) {
    case Engine::Tensor: return kLaneTensor;
    case Engine::Vector: return kLaneVector;
    case Engine::Scalar: return kLaneScalar;
    case Engine::GpSimd: return kLaneGpSimd;
    case Engine::Dma: return kLaneDma;
    case Engine::Sync: break;
  }
  return kLaneOther;
}

// Whether `op` conflicts with an earlier instruction still waiting on the tile of its access `a`: one
// of them writes a region of the tile the other accesses. Accesses of disjoint regions (the columns
// `t[:, i:i + 1]` of one tile written and read by different iterations) or reads only do not
// order the two: dependences are tracked by region (trn/hazards.h), as the compiler tracks them
// by address range, so a kernel that keeps per-iteration values as columns of one tile runs like
// one that gives each iteration a tile of its own (tests/unit/fidelity/spelling_pairs_test.cpp).
bool Scheduler::conflicts_with_earlier(const PendingOp& op, const Access& a) const {
  const Region mine = Region::of(a.operand);
  for (const Waiting& w : reorder_) {
    if (w.op.pos >= op.pos) break;
    for (const Access& b : w.op.accesses)
      if (b.key == a.key && (a.write || b.write) && mine.overlaps(Region::of(b.operand))) return true;
  }
  return false;
}

// Whether an instruction of the window may be placed before the earlier ones still waiting:
// it conflicts with none of their accesses to the tiles it touches (so its inputs and its WAR/WAW
// times stay as program order gives them; Scheduler::next_use keeps each tile's next use), it is
// in the same sequential-loop iteration as the earliest one
// (nothing moves before the start of the current iteration), its engine's stream is not one that
// keeps program order, and moving it costs no spill or reload: the compiler's scheduler works
// inside the allocation it has made, so an instruction that needs an evicted tile back, or space
// that the earlier waiting instructions (`earlier`: bytes per partition they will take, to which
// this instruction's are added) would then not find free, waits for its turn.
bool Scheduler::may_go_now(const Waiting& w, std::array<uint64_t, 3>& earlier, std::array<bool, kLaneCount>& held) {
  const PendingOp& op = w.op;
  std::array<uint64_t, 3> takes{};
  bool evicted = false;
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) continue;
    const TileState* t = memory_.find(a.key);
    if (!t || t->resident) continue;
    evicted |= t->evicted;
    takes[size_t(a.operand.buffer)] += t->bytes_per_partition;
  }
  bool fits = !evicted;
  for (BufferKind b : {BufferKind::Sbuf, BufferKind::Psum}) {
    earlier[size_t(b)] += takes[size_t(b)];
    fits = fits && earlier[size_t(b)] <= memory_.free_bytes(b);
  }
  const int l = lane(op);
  const bool was_held = held[size_t(l)];
  // An activation that switches ScalarE's function table passes no earlier ScalarE instruction
  // (ArchConfig::act_table_switch_in_order).
  const bool table_switch = l == kLaneScalar && switch_in_order(op);
  if (op.pos == reorder_.front().op.pos) return true;
  if (!fits || was_held || op.epoch != reorder_.front().op.epoch) return false;
  const bool ordered = op.in_order || l == kLaneTensor || l == kLaneOther || table_switch;
  if (ordered && lane_users_[size_t(l)].front() != op.pos) return false;
  if (l == kLaneDma && arch_.dma_queue_per_statement && queue_users_.at(op.dma_stream).front() != op.pos) return false;
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      for (const auto& [pos, writes] : hbm_users_.at(a.operand.tensor_id))
        if (pos < op.pos && (writes || a.write)) return false;
      continue;
    }
    auto it = tile_users_.find(a.key);
    if (it != tile_users_.end() && it->second.front() != op.pos && conflicts_with_earlier(op, a)) return false;
  }
  return true;
}

// When the instruction would start streaming if it were placed now: its inputs (fixed once
// may_go_now holds), its engine's order floors and the engine's free time. For a DMA, when its
// source is ready.
double Scheduler::start_estimate(Waiting& w) {
  const PendingOp& op = w.op;
  const int track = op.engine == Engine::Dma ? -1 : engine_track(op.engine);
  if (!w.ready_known) {
    Ready& ready = scratch_ready_;
    ready.other = 0;
    ready.inputs.clear();
    for (const Access& a : op.accesses) {
      if (!on_chip(a.operand.buffer)) {
        auto written = hbm_written_.find(a.operand.tensor_id);
        if (a.read && written != hbm_written_.end()) ready.other = std::max(ready.other, written->second);
        continue;
      }
      if (const TileState* t = memory_.find(a.key)) add_hazards(op, a, *t, ready);
    }
    w.ready_at = track < 0 ? ready.on(-1, 0) : ready.on(track, arch_.semaphore_ns);
    w.ready_known = true;
  }
  if (track < 0) return w.ready_at;
  return engine_timeline(track).first_fit(op.pe_cells, std::max(w.ready_at, order_floor(op, track)), op.compute_ns);
}

void Scheduler::place_first_ready() {
  size_t best = 0;
  double best_start = std::numeric_limits<double>::infinity();
  std::array<uint64_t, 3> takes{};  // space the instructions so far will take, per buffer kind
  std::array<bool, kLaneCount> held{};  // lanes held by an earlier waiting instruction
  for (size_t idx = 0; idx < reorder_.size(); ++idx) {
    Waiting& w = reorder_[idx];
    if (!may_go_now(w, takes, held)) continue;
    double start = start_estimate(w);
    if (start < best_start) best = idx, best_start = start;  // ties: program order
  }
  PendingOp op = std::move(reorder_[best].op);
  reorder_.erase(reorder_.begin() + long(best));
  // It leaves the waiting users of each of its tiles (it may have passed earlier ones whose
  // accesses it does not conflict with), and its lane's.
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      auto hbm = hbm_users_.find(a.operand.tensor_id);
      if (hbm == hbm_users_.end()) continue;  // a repeated tensor
      auto& users = hbm->second;
      users.erase(std::remove_if(users.begin(), users.end(), [&](const auto& u) { return u.first == op.pos; }),
                  users.end());
      if (users.empty()) hbm_users_.erase(hbm);
      continue;
    }
    auto it = tile_users_.find(a.key);
    if (it == tile_users_.end()) continue;  // a repeated tile
    auto user = std::find(it->second.begin(), it->second.end(), op.pos);
    if (user == it->second.end()) continue;  // a repeated tile
    it->second.erase(user);
    if (it->second.empty()) tile_users_.erase(it);
  }
  auto& users = lane_users_[size_t(lane(op))];
  users.erase(std::find(users.begin(), users.end(), op.pos));
  if (lane(op) == kLaneDma && arch_.dma_queue_per_statement) {
    auto queue = queue_users_.find(op.dma_stream);
    queue->second.pop_front();  // it was the first waiting transfer of its queue
    if (queue->second.empty()) queue_users_.erase(queue);
  }
  issue(op);
}

void Scheduler::run(PendingOp op) {
  if (op.engine == Engine::Scalar && op.activation_func != 0) {
    op.table_switch = op.activation_func != program_table_;
    program_table_ = op.activation_func;
  }
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      hbm_users_[a.operand.tensor_id].emplace_back(op.pos, a.write);
      continue;
    }
    auto& users = tile_users_[a.key];
    if (users.empty() || users.back() != op.pos) users.push_back(op.pos);
  }
  lane_users_[size_t(lane(op))].push_back(op.pos);
  if (lane(op) == kLaneDma && arch_.dma_queue_per_statement) queue_users_[op.dma_stream].push_back(op.pos);
  reorder_.push_back({std::move(op), false, 0});
  while (reorder_.size() >= std::max<uint32_t>(arch_.reorder_window, 1)) place_first_ready();
}

void Scheduler::flush() {
  while (!reorder_.empty()) place_first_ready();
}

}  // namespace trn
