#include "trn/scheduler.h"

#include <algorithm>

namespace trn {
namespace {

const char* track_name(int track) {
  static const char* names[kTrackCount] = {"pe",  "act",      "dve",       "pool",
                                           "sp",  "dma_load", "dma_store", "dma_spill"};
  return names[track];
}

bool is_dma_track(Track t) { return t >= kDmaLoad; }

bool on_chip(BufferKind b) { return b != BufferKind::Hbm; }

}  // namespace

Scheduler::Scheduler(const ArchConfig& arch, TimelineWriter* timeline)
    : arch_(arch), timeline_(timeline), memory_(arch) {
  if (timeline_)
    for (int track = 0; track < kTrackCount; ++track) timeline_->name_track(track, track_name(track));
}

void Scheduler::declare(const AllocInfo& alloc) {
  if (alloc.buffer == BufferKind::Hbm) {
    hbm_traffic_[alloc.tensor_id].kernel_io = alloc.is_kernel_input || alloc.is_kernel_output;
    return;
  }
  memory_.declare(alloc);
}

Track Scheduler::track_of(const PendingOp& op) const {
  switch (op.engine) {
    case Engine::Tensor: return kPe;
    case Engine::Scalar: return kAct;
    case Engine::Vector: return kDve;
    case Engine::GpSimd: return kPool;
    case Engine::Sync: return kSp;
    case Engine::Dma: break;
  }
  return op.opcode == Opcode::DmaStore ? kDmaStore : kDmaLoad;
}

double Scheduler::memory_transfer(const MemoryTransfer& t) {
  DmaShape shape;
  shape.bytes = t.bytes;
  shape.partitions = t.partitions;
  shape.contiguous_bytes = t.bytes / std::max<uint16_t>(t.partitions, 1);
  // A rematerialized load goes where loads go; spills have their own queue (qSpillReload).
  Track queue = t.kind == MemoryTransfer::Kind::Reload ? kDmaLoad : kDmaSpill;
  const char* name = t.kind == MemoryTransfer::Kind::Reload      ? "reload"
                     : t.kind == MemoryTransfer::Kind::SpillSave ? "spill_save"
                                                                 : "spill_reload";
  double end = schedule_dma(queue, dma_timing(shape, arch_), t.earliest, name, current_line_);
  switch (t.kind) {
    case MemoryTransfer::Kind::Reload:
      counters_.hbm_read_bytes += t.bytes;
      counters_.sbuf_write_bytes += t.bytes;
      break;
    case MemoryTransfer::Kind::SpillSave:
      counters_.spill_save_bytes += t.bytes;
      counters_.hbm_write_bytes += t.bytes;
      (t.buffer == BufferKind::Psum ? counters_.psum_read_bytes : counters_.sbuf_read_bytes) += t.bytes;
      break;
    case MemoryTransfer::Kind::SpillReload:
      counters_.spill_reload_bytes += t.bytes;
      counters_.hbm_read_bytes += t.bytes;
      (t.buffer == BufferKind::Psum ? counters_.psum_write_bytes : counters_.sbuf_write_bytes) += t.bytes;
      break;
  }
  return end;
}

// Earliest start allowed by data and space: inputs written (RAW), old contents read before they
// are overwritten (WAR), earlier writes done (WAW), the written space released, evicted inputs
// brought back. Reloads and spill saves are scheduled here, before the instruction.
double Scheduler::dependencies(const PendingOp& op) {
  std::vector<TileKey> pinned;
  for (const Access& a : op.accesses)
    if (on_chip(a.operand.buffer)) pinned.push_back(a.key);
  auto emit = [this](const MemoryTransfer& t) { return memory_transfer(t); };
  double ready = 0;
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      auto written = hbm_written_.find(a.operand.tensor_id);
      if (a.read && written != hbm_written_.end()) ready = std::max(ready, written->second);
      continue;
    }
    bool needs_contents = a.read || (a.write && !a.full_write);
    double space = memory_.make_resident(a.key, needs_contents, a.write, a.operand.bytes(), pinned, emit);
    const TileState& t = *memory_.find(a.key);
    if (a.read) ready = std::max(ready, t.ready);
    if (a.write) {
      ready = std::max({ready, space, t.last_read_end});
      bool pe_accumulate = op.engine == Engine::Tensor && op.accumulate;
      if (!pe_accumulate) ready = std::max(ready, t.ready);
    }
  }
  return ready;
}

double Scheduler::schedule_dma(Track queue, const DmaTiming& timing, double ready, const char* name,
                               uint32_t line) {
  // In-order issue per queue; the setup latency of queued transfers overlaps earlier data
  // movement, the data moves in order on the queue and in free fabric time.
  double issue = std::max(ready, free_at_[queue]);
  double earliest_data = std::max(issue + timing.setup_ns, data_end_[queue]);
  double data_start = fabric_.reserve(earliest_data, timing.fabric_ns);
  double end = data_start + timing.duration_ns;
  free_at_[queue] = issue;
  data_end_[queue] = end;
  busy_ns_[queue] += timing.duration_ns;
  end_ns_ = std::max(end_ns_, end);
  if (timeline_) timeline_->event(queue, name, data_start, timing.duration_ns, line);
  return end;
}

double Scheduler::schedule_compute(const PendingOp& op, double ready) {
  Track track = track_of(op);
  Engine engine = op.engine;
  double busy = op.compute_ns;
  if (op.flexible) {
    // The compiler balances the work it assigns: the engine with less work so far, counting
    // this instruction, takes it.
    Engine other = engine == Engine::Vector ? Engine::Scalar : Engine::Vector;
    Track other_track = other == Engine::Vector ? kDve : kAct;
    double here = assigned_ns_[track] + busy + result_latency_ns(engine, arch_);
    double there = assigned_ns_[other_track] + op.alternate_ns + result_latency_ns(other, arch_);
    if (there < here) track = other_track, engine = other, busy = op.alternate_ns;
  }
  // First fit on the engine: independent instructions fill idle time (see ResourceTimeline).
  double start = engines_[track].reserve(ready, busy);
  double end = start + busy;
  assigned_ns_[track] += busy + result_latency_ns(engine, arch_);
  // Dependents see the result after the engine's pipeline latency; the engine itself moves on.
  double result = end + result_latency_ns(engine, arch_);
  busy_ns_[track] += busy;
  end_ns_ = std::max(end_ns_, result);
  if (timeline_) timeline_->event(track, to_string(op.opcode), start, busy, op.line);
  return result;
}

void Scheduler::retire(const PendingOp& op, double end) {
  const bool from_hbm = std::any_of(op.accesses.begin(), op.accesses.end(), [](const Access& a) {
    return a.read && a.operand.buffer == BufferKind::Hbm;
  });
  const bool pure_load = op.engine == Engine::Dma && from_hbm;
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      if (a.write) hbm_written_[a.operand.tensor_id] = end;
      continue;
    }
    TileState& t = *const_cast<TileState*>(memory_.find(a.key));
    if (a.read) t.last_read_end = std::max(t.last_read_end, end);
    if (!a.write) continue;
    if (a.full_write) {
      t.last_read_end = 0;
      t.content_bytes = 0;
      t.clean = true;
    }
    t.ready = std::max(t.ready, end);
    t.clean = t.clean && pure_load && !op.accumulate;
    uint64_t tile_bytes = t.bytes_per_partition * t.partitions;
    t.content_bytes = std::min(tile_bytes, t.content_bytes + a.operand.bytes());
  }
  // The last access of a tile in this instruction carries its next use.
  for (size_t idx = op.accesses.size(); idx-- > 0;) {
    const Access& a = op.accesses[idx];
    if (!on_chip(a.operand.buffer)) continue;
    bool later_in_op = false;
    for (size_t j = idx + 1; j < op.accesses.size(); ++j) later_in_op |= op.accesses[j].key == a.key;
    if (!later_in_op) memory_.set_next_use(a.key, a.next_use, a.next_reads);
  }
}

void Scheduler::count_bytes(const PendingOp& op) {
  for (const Access& a : op.accesses) {
    uint64_t bytes = a.operand.bytes();
    switch (a.operand.buffer) {
      case BufferKind::Hbm: {
        if (a.read) counters_.hbm_read_bytes += bytes;
        if (a.write) counters_.hbm_write_bytes += bytes;
        HbmTraffic& t = hbm_traffic_[a.operand.tensor_id];
        (a.read ? t.read : t.written) += bytes;
        break;
      }
      case BufferKind::Sbuf:
        if (a.read) counters_.sbuf_read_bytes += bytes;
        if (a.write) counters_.sbuf_write_bytes += bytes;
        break;
      case BufferKind::Psum:
        if (a.read) counters_.psum_read_bytes += bytes;
        if (a.write) counters_.psum_write_bytes += bytes;
        break;
    }
  }
}

void Scheduler::run(const PendingOp& op) {
  current_line_ = op.line;
  double ready = dependencies(op);
  Track track = track_of(op);
  double end = is_dma_track(track) ? schedule_dma(track, op.dma, ready, to_string(op.opcode), op.line)
                                   : schedule_compute(op, ready);
  retire(op, end);
  count_bytes(op);
  counters_.hardware_flops += op.flops;
  if (op.opcode == Opcode::Transpose) counters_.transpose_flops += op.flops;
  counters_.instructions += 1;
  // Queues issue in order, so no later transfer starts before the earliest queue issue time.
  double horizon = -1;
  for (Track queue : {kDmaLoad, kDmaStore, kDmaSpill})
    if (busy_ns_[queue] > 0) horizon = horizon < 0 ? free_at_[queue] : std::min(horizon, free_at_[queue]);
  if (horizon > 0) fabric_.advance_horizon(horizon);
}

Profile Scheduler::summarize() const {
  Profile p = counters_;
  // A private HBM tensor the kernel writes and reads back (a scratch buffer, neither input nor
  // output) holds intermediates, which is what the profiler reports as spill traffic.
  for (const auto& [id, t] : hbm_traffic_) {
    if (t.kernel_io || t.read == 0 || t.written == 0) continue;
    p.spill_save_bytes += t.written;
    p.spill_reload_bytes += t.read;
  }
  p.arch = arch_.name;
  const double seconds = end_ns_ * 1e-9;
  p.latency = end_ns_ * 1e-6;
  p.peak_flops_bandwidth_ratio = arch_.tensor_peak_flops() / arch_.profiler_hbm_bytes_per_s;
  uint64_t hbm = p.hbm_read_bytes + p.hbm_write_bytes;
  p.mm_arithmetic_intensity = hbm ? double(p.hardware_flops - p.transpose_flops) / double(hbm) : 0;
  if (seconds > 0) {
    p.hfu_estimated_percent = double(p.hardware_flops) / (arch_.tensor_peak_flops() * seconds);
    p.scalar_engine_active_time_percent = busy_ns_[kAct] / end_ns_;
    p.vector_engine_active_time_percent = busy_ns_[kDve] / end_ns_;
    p.gpsimd_engine_active_time_percent = busy_ns_[kPool] / end_ns_;
  }
  for (int track = 0; track < kTrackCount; ++track)
    if (busy_ns_[track] > 0) p.engine_busy_ms[track_name(track)] = busy_ns_[track] * 1e-6;
  if (fabric_.busy_ns() > 0) p.engine_busy_ms["dma"] = fabric_.busy_ns() * 1e-6;
  return p;
}

}  // namespace trn
