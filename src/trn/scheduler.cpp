#include "trn/scheduler.h"

#include <algorithm>
#include <string>

namespace trn {
namespace {

const char* engine_track_name(int track) {
  static const char* names[kEngineCount] = {"pe", "act", "dve", "pool", "sp"};
  return names[track];
}

bool touches_psum(const PendingOp& op) {
  return std::any_of(op.accesses.begin(), op.accesses.end(),
                     [](const Access& a) { return a.operand.buffer == BufferKind::Psum; });
}

}  // namespace

Scheduler::Scheduler(const ArchConfig& arch, TimelineWriter* timeline)
    : arch_(arch), timeline_(timeline), memory_(arch),
      dma_engine_lines_(2 * size_t(arch.dma_engines)), queues_(2 * size_t(std::max<uint32_t>(arch.dma_queues, 1))) {
  if (!timeline_) return;
  for (int track = 0; track < kEngineCount; ++track) timeline_->name_track(track, engine_track_name(track));
  static const char* classes[] = {"dma_io", "dma_spill"};
  const size_t per_class = queues_.size() / 2;
  for (size_t q = 0; q < queues_.size(); ++q)
    timeline_->name_track(queue_track(int(q)), classes[q / per_class] + std::to_string(q % per_class));
}

void Scheduler::declare(const AllocInfo& alloc) {
  if (alloc.buffer == BufferKind::Hbm) {
    hbm_traffic_[alloc.tensor_id].kernel_io = alloc.is_kernel_input || alloc.is_kernel_output;
    return;
  }
  memory_.declare(alloc);
}

int Scheduler::engine_track(Engine engine) const {
  switch (engine) {
    case Engine::Tensor: return kPe;
    case Engine::Scalar: return kAct;
    case Engine::Vector: return kDve;
    case Engine::GpSimd: return kPool;
    case Engine::Sync:
    case Engine::Dma: break;
  }
  return kSp;
}

int Scheduler::next_queue(QueueClass c) {
  const int per_class = int(io_queues());
  int& next = next_queue_[size_t(c)];
  int q = next;
  next = (next + 1) % per_class;
  return int(c) * per_class + q;
}

int Scheduler::statement_queue(uint64_t stream) {
  auto [it, added] = statement_queues_.try_emplace(stream, 0);
  if (!added) return it->second;
  // A new statement takes the IO queue with the least transfer time so far.
  for (int q = 1; q < int(io_queues()); ++q)
    if (queues_[size_t(q)].busy_ns < queues_[size_t(it->second)].busy_ns) it->second = q;
  return it->second;
}

// NC-v2: VectorE and GpSimd cannot access SBUF at the same time (ARCH2), so their instructions
// take turns on one timeline; each engine's active time is still counted apart.
EngineTimeline& Scheduler::engine_timeline(int track) {
  if (arch_.shared_engine_ports && track == kPool) return engines_[kDve];
  return engines_[track];
}

double Scheduler::Ready::arrival(const Input& in, int track, double semaphore_ns) {
  return in.at + (in.writer != track && in.writer != kNoWriter ? semaphore_ns : 0.0);
}

double Scheduler::Ready::on(int track, double semaphore_ns) const {
  double at = other;
  for (const Input& in : inputs) at = std::max(at, arrival(in, track, semaphore_ns));
  return at;
}

double Scheduler::memory_transfer(const MemoryTransfer& t) {
  DmaShape shape;
  shape.direction = t.kind == MemoryTransfer::Kind::SpillSave ? DmaDirection::ToHbm : DmaDirection::FromHbm;
  shape.bytes = t.bytes;
  shape.partitions = t.partitions;
  shape.descriptors = t.partitions;  // one contiguous run per partition row
  // A rematerialized load goes where loads go; spills have their own queue (qSpillReload).
  // Compiler-generated transfers belong to no statement: they go round robin over their class.
  int queue = next_queue(t.kind == MemoryTransfer::Kind::Reload ? QueueClass::Io : QueueClass::Spill);
  const char* name = t.kind == MemoryTransfer::Kind::Reload      ? "reload"
                     : t.kind == MemoryTransfer::Kind::SpillSave ? "spill_save"
                                                                 : "spill_reload";
  double end = schedule_dma(queue, dma_timing(shape, arch_), t.earliest, name, current_line_, current_in_order_);
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
void Scheduler::dependencies(const PendingOp& op, Ready& ready) {
  ready.other = 0;
  ready.inputs.clear();
  std::vector<TileKey> pinned;
  for (const Access& a : op.accesses)
    if (on_chip(a.operand.buffer)) pinned.push_back(a.key);
  auto emit = [this](const MemoryTransfer& t) { return memory_transfer(t); };
  // A DMA from HBM (a load): what it writes on chip is HBM data (MemoryModel::make_resident).
  const bool hbm_load = op.engine == Engine::Dma &&
                        std::any_of(op.accesses.begin(), op.accesses.end(), [](const Access& a) {
                          return a.read && a.operand.buffer == BufferKind::Hbm;
                        });
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      auto written = hbm_written_.find(a.operand.tensor_id);
      if (a.read && written != hbm_written_.end()) ready.other = std::max(ready.other, written->second);
      continue;
    }
    bool needs_contents = a.read || (a.write && !a.full_write);
    const bool partial_load = hbm_load && a.write && !a.read && !a.full_write;
    double space = memory_.make_resident(a.key, needs_contents, a.write, a.operand.bytes(), pinned,
                                         emit, partial_load);
    // Rewritten while still being read: a fresh buffer, no wait for the readers (WAR) or the
    // last writer (WAW), only for space.
    if (!add_hazards(op, a, *memory_.find(a.key), ready)) space = std::max(space, memory_.rename(a.key));
    if (a.write) ready.other = std::max(ready.other, space);
  }
}

bool Scheduler::add_hazards(const PendingOp& op, const Access& a, const TileState& t, Ready& ready) const {
  const Region region = Region::of(a.operand);
  const bool pe_accumulate = op.engine == Engine::Tensor && op.accumulate;
  if (a.read) {
    Hazards::Write w = t.last_write(region);
    // A matmul accumulating into the region the previous matmul wrote waits the accumulation
    // turnaround after that one's streaming, not its result latency (ArchConfig): every TensorE
    // write is recorded at its streaming end plus pe_latency.
    if (pe_accumulate_access(op, a) && w.writer == kPe) w.at = accumulated_at(w.at);
    ready.inputs.push_back({w.at, w.writer});
  }
  if (!a.write) return true;
  const bool reads_it = std::any_of(op.accesses.begin(), op.accesses.end(),
                                    [&](const Access& o) { return o.key == a.key && o.read; });
  if (a.full_write && !reads_it && t.resident && t.last_read_end > 0) return false;
  ready.other = std::max(ready.other, t.last_read(region));
  if (!pe_accumulate) ready.other = std::max(ready.other, t.last_write(region).at);
  return true;
}

// The engine lines a transfer occupies: lines [0, dma_engines) for one shared path, and with
// ArchConfig::dma_directions [dma_engines, 2 dma_engines) for the to-HBM path (each direction has
// the engines' full rate there). Each engine moves its share of the transfer on its own, first-fit
// from `start` (DMAO: in order within a queue on an engine, the engines in parallel; the transfer
// completes when every engine has signalled), so the data is done when the last share is; returns
// when that share starts.
double Scheduler::place_on_engines(const DmaTiming& timing, bool from, bool to, double start) {
  if (!arch_.dma_engine_occupancy) return start;
  const uint32_t n = arch_.dma_engines;
  double last = start;
  for (auto [base, used] : {std::pair{0u, from}, std::pair{n, to}}) {
    if (!used) continue;
    for (uint32_t e = timing.first_engine; e < timing.first_engine + timing.engines && e < n; ++e) {
      const double at = dma_engine_lines_[base + e].reserve(start, timing.duration_ns);
      last = std::max(last, at);
    }
  }
  return last;
}

double Scheduler::reserve_data(const DmaTiming& timing, double earliest) {
  // Each direction has the engines' full rate (dma_directions; else one path for both); an
  // SBUF-to-SBUF or HBM-to-HBM copy reads and writes through both paths, at the first time both
  // have room. Then each of its engines moves its share when that engine is free (one transfer at
  // a time each).
  const bool from = !arch_.dma_directions || timing.direction != DmaDirection::ToHbm;
  const bool to = arch_.dma_directions && timing.direction != DmaDirection::FromHbm;
  double start = earliest;
  for (bool moved = true; moved;) {
    moved = false;
    for (auto [path, used] : {std::pair{&fabric_, from}, std::pair{&fabric_to_hbm_, to}}) {
      const double fit = used ? path->first_fit(start, timing.fabric_ns) : start;
      if (fit != start) start = fit, moved = true;
    }
  }
  if (from) fabric_.occupy(start, timing.fabric_ns);
  if (to) fabric_to_hbm_.occupy(start, timing.fabric_ns);
  start = place_on_engines(timing, from, to, start);
  if (!arch_.dma_directions) return start;
  // The HBM bandwidth (both directions together) is a capacity served in its own first-fit order:
  // the data ends no earlier than its bytes' turn there. Tying the HBM time to the path's start
  // would leave gaps between the transfers of one direction (its 272 B/ns against 410) that no
  // transfer of the other direction fits into.
  if (timing.hbm_ns <= 0) return start;
  const double hbm_end = hbm_.reserve(earliest, timing.hbm_ns) + timing.hbm_ns;
  return std::max(start, hbm_end - timing.fabric_ns);
}

double Scheduler::schedule_dma(int queue, const DmaTiming& timing, double ready, const char* name,
                               uint32_t line, bool in_order) {
  // A queue sets up one transfer at a time (the fixed cost), overlapped with the data of the
  // transfers before it; the data moves in free fabric time. Like a compute engine, a queue takes
  // transfers in program order inside sequential loops and lets the compiler move independent
  // transfers of affine_range iterations into earlier free setup slots.
  Queue& q = queues_[size_t(queue)];
  const double floor = in_order ? q.last_setup : q.floor;
  double earliest = std::max(ready, floor);
  double setup_start = q.setups.reserve(earliest, timing.setup_ns);
  q.last_setup = std::max(q.last_setup, setup_start);
  // The data moves in free fabric time, first-fit (a transfer that is ready early may use a gap
  // before one placed earlier).
  const double data_ready = setup_start + timing.setup_ns;
  double data_start = reserve_data(timing, data_ready);
  double end = data_start + timing.duration_ns;
  // The DMA engines serve their queues round robin (DMAO): a transfer that waits for the data of
  // transfers of other queues placed before it moves its own data alternately with theirs, so it
  // waits behind at most as much of theirs as it moves itself, not behind all of them. Its wait
  // behind its own queue's previous transfer is kept whole (in order within a queue). The fabric
  // still counts its bytes where first-fit put them, so the transfers after it wait for the
  // capacity it used; the ones already placed keep their ends (early by at most its data time).
  const double behind_own = std::max(data_ready, q.slot_end);
  q.slot_end = std::max(q.slot_end, data_start + timing.fabric_ns);
  const double behind_others = data_start - behind_own;
  if (arch_.dma_round_robin && behind_others > timing.fabric_ns) end -= behind_others - timing.fabric_ns;
  q.busy_ns += timing.duration_ns;
  const std::string_view kind(name);
  const bool spill = kind == "spill_save" || kind == "spill_reload";
  (spill ? dma_spill_ns_ : kind == "dma_store" ? dma_store_ns_ : dma_load_ns_) += timing.duration_ns;
  // Data moves in the fabric time first-fit gave it (the profile's DMA active time, the end of
  // the run); its consumers see it at `end`.
  dma_active_.add(data_start, data_start + timing.duration_ns);
  end_ns_ = std::max({end_ns_, end, data_start + timing.duration_ns});
  if (timeline_) timeline_->event(queue_track(queue), name, end - timing.duration_ns, timing.duration_ns, line);
  return end;
}

// An engine keeps program order inside a sequential_range (and reorders affine_range iterations
// only after the last sequential iteration boundary). The Tensor Engine's queue is held by a wait
// on another compute engine (schedule_compute). An activation that switches ScalarE's function
// table starts after every ScalarE instruction before it in program order: the compiler does not
// move a table load ahead of the engine's earlier work. Evidence: rmsnorm_matmul (Trn1 profile) idles
// its PE ~18% (0.796 ms busy, the profile's hardware_flops at the fp32 rate, in a 0.971 ms run):
// each row tile's square and rsqrt switch tables, so the next tile's normalization waits behind
// this tile's PSUM copies, which wait for the matmuls; gqa_full's exp uses one table throughout,
// and the device overlaps the next row's softmax with this row's P.V chain (docs/simulator.md).
double Scheduler::order_floor(const PendingOp& op, int track) const {
  double at = op.in_order || (track == kAct && switch_in_order(op)) ? last_start_[size_t(track)]
                                                                      : order_floor_[size_t(track)];
  if (track == kPe) at = std::max(at, pe_engine_wait_floor_);
  return at;
}

// Places `busy_ns` of streaming on an engine no earlier than `ready + fixed_ns`. The fixed cost
// is a latency the engine spends on the waiting instruction (active time, ARCH2's static and
// access overheads), but it occupies nothing: independent instructions of other iterations may
// stream meanwhile (the compiler interleaves them, "partly hidden by ILP"), and then it is hidden.
double Scheduler::place(int track, bool psum_port, double ready, double fixed_ns, double busy_ns,
                        const char* name, PeCells pe_cells) {
  EngineTimeline& engine = engine_timeline(track);
  const double start = fit(track, psum_port, ready, fixed_ns, busy_ns, pe_cells);
  if (psum_port) psum_port_.occupy(start, busy_ns);
  // The part of the fixed cost not hidden behind earlier streaming on this engine (on the PE
  // cells it uses).
  double exposed_from = std::max({ready, start - fixed_ns, engine.busy_end_before(pe_cells, start)});
  engine.occupy(pe_cells, start, busy_ns);
  const double active_from = std::min(exposed_from, start);
  active_[size_t(track)].add(active_from, start + busy_ns);
  if (timeline_) {
    // The exposed fixed cost is active time too (the profile's engine_busy_ms): drawn as its own
    // event so that a track's events add up to its engine's busy time.
    if (active_from < start) timeline_->event(track, "fixed cost", active_from, start - active_from, current_line_);
    timeline_->event(track, name, start, busy_ns, current_line_);
  }
  return start;
}

// Where `place` would put it, without placing (the PSUM port too, when it needs it).
double Scheduler::fit(int track, bool psum_port, double ready, double fixed_ns, double busy_ns, PeCells pe_cells) {
  EngineTimeline& engine = engine_timeline(track);
  double start = engine.first_fit(pe_cells, ready + fixed_ns, busy_ns);
  if (psum_port) {
    // Find a slot free on both the engine and the PSUM port.
    for (double port = psum_port_.first_fit(start, busy_ns); port != start;
         port = psum_port_.first_fit(start, busy_ns))
      start = engine.first_fit(pe_cells, port, busy_ns);
  }
  return start;
}

double Scheduler::schedule_compute(const PendingOp& op, const Ready& ready, int& track) {
  track = engine_track(op.engine);
  Engine engine = op.engine;
  double busy = op.compute_ns, fixed = op.fixed_ns;
  if (op.flexible) {
    // The compiler balances the work it assigns: the engine with less work so far, counting
    // this instruction, takes it.
    Engine other = engine == Engine::Vector ? Engine::Scalar : Engine::Vector;
    int other_track = engine_track(other);
    double here = assigned_ns_[size_t(track)] + busy + fixed;
    double there = assigned_ns_[size_t(other_track)] + op.alternate_ns + op.alternate_fixed_ns;
    if (there < here) track = other_track, engine = other, busy = op.alternate_ns, fixed = op.alternate_fixed_ns;
  }
  double order = order_floor(op, track);
  double table_end = 0;
  if (track == kAct && op.activation_func != 0 && op.activation_func != act_table_) {
    // A function other than the loaded one: ScalarE loads its table first (ArchConfig). The load
    // needs no data, so it runs as soon as ScalarE is free, while the inputs are still arriving.
    const double load_ns = arch_.act_table_load_cycles / arch_.scalar_ghz;
    // Not before the instructions using the previous table are done with it.
    table_end = place(track, false, std::max(order, act_table_used_until_), 0, load_ns, "act_table_load", 0) + load_ns;
    assigned_ns_[size_t(track)] += load_ns;
    act_table_ = op.activation_func;
  }
  const bool psum_port = arch_.shared_engine_ports && (track == kAct || track == kDve) && touches_psum(op);
  // The fixed cost overlaps the table load, as it overlaps an earlier instruction's streaming.
  double at = std::max({ready.on(track, arch_.semaphore_ns), order, table_end - fixed});
  double start = place(track, psum_port, at, fixed, busy, to_string(op.opcode), op.pe_cells);
  last_start_[size_t(track)] = std::max(last_start_[size_t(track)], start);
  // A TensorE instruction that waits for a result of another compute engine (a transpose's
  // PSUM copy, a VectorE-scaled operand) holds the Tensor Engine's queue: the PE instructions
  // after it in program order, of this or a later affine_range iteration, do not start before
  // it. Instructions waiting on DMA do not hold it (the compiler orders matmuls by when their
  // loads arrive). Evidence: transpose_example v0 (trn2) loses ~194 us to its
  // transpose -> copy -> matmul chain on the device (docs/simulator.md).
  if (track == kPe && ready.waits_on(track, arch_.semaphore_ns, [](int writer) { return writer != kPe; }))
    pe_engine_wait_floor_ = std::max(pe_engine_wait_floor_, start);
  if (track == kAct && op.activation_func != 0) act_table_used_until_ = std::max(act_table_used_until_, start + busy);
  assigned_ns_[size_t(track)] += busy + fixed;
  // Dependents see the result after the engine's pipeline latency; the engine itself moves on.
  double result = start + busy + result_latency_ns(engine, arch_);
  end_ns_ = std::max(end_ns_, result);
  return result;
}

void Scheduler::retire(const PendingOp& op, double end, int track) {
  const bool from_hbm = std::any_of(op.accesses.begin(), op.accesses.end(), [](const Access& a) {
    return a.read && a.operand.buffer == BufferKind::Hbm;
  });
  const bool pure_load = op.engine == Engine::Dma && from_hbm;
  const int writer = op.engine == Engine::Dma ? kDmaWriter : track;
  for (const Access& a : op.accesses) {
    if (!on_chip(a.operand.buffer)) {
      if (a.write) hbm_written_[a.operand.tensor_id] = end;
      continue;
    }
    TileState& t = *const_cast<TileState*>(memory_.find(a.key));
    const Region region = Region::of(a.operand);
    if (!t.hazards && !t.covers(a.operand) && !a.full_write) {
      // First access to part of the tile: from now on hazards are tracked by region.
      t.hazards = std::make_unique<Hazards>();
      if (t.writer != kNoWriter || t.ready > 0) t.hazards->add_write(Region{}, t.ready, t.writer, true);
      if (t.last_read_end > 0) t.hazards->add_read(Region{}, t.last_read_end);
    }
    if (a.read) {
      // A matmul's read of the PSUM region it accumulates into ends with the accumulation
      // turnaround (ArchConfig::pe_accumulate_turnaround), not after its result latency: the
      // next matmul into the region waits for it (WAR) as it waits for the write (RAW, add_hazards).
      const double read_end = pe_accumulate_access(op, a) ? accumulated_at(end) : end;
      t.last_read_end = std::max(t.last_read_end, read_end);
      if (t.hazards) t.hazards->add_read(region, read_end);
    }
    if (!a.write) continue;
    if (a.full_write) t.hazards.reset();
    else if (t.hazards) t.hazards->add_write(region, end, writer, false);
    if (a.full_write) {
      t.last_read_end = 0;
      t.content_bytes = 0;
      t.clean = true;
    }
    if (end >= t.ready) {
      t.writer = writer;
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
    if (later_in_op) continue;
    const auto [next, reads] = next_use(op, a);
    memory_.set_next_use(a.key, next, reads);
  }
}

std::pair<uint64_t, bool> Scheduler::next_use(const PendingOp& op, const Access& a) {
  auto waiting = tile_users_.find(a.key);
  auto latest = latest_use_.find(a.key);
  LatestUse mine{op.pos, a.next_use, a.next_reads};
  if (latest != latest_use_.end() && latest->second.pos > op.pos) mine = latest->second;
  if (waiting == tile_users_.end()) {
    if (latest != latest_use_.end()) latest_use_.erase(latest);
    return {mine.next_use, mine.next_reads};
  }
  latest_use_[a.key] = mine;
  const uint64_t first = waiting->second.front();
  // Whether that user needs the contents is its own access's business: assume it does unless it
  // is the one program order names next.
  return {first, first == mine.next_use ? mine.next_reads : true};
}

// neuron-profile counts (SCHEMA, checked against the recorded profiles, docs/simulator.md): a DMA
// counts every byte it moves; a compute instruction counts the bytes of one partition of each
// SBUF/PSUM operand; an fp32 TensorE instruction runs as two passes and is counted twice; a
// TensorE transpose also reads its identity (once: a kernel that passes the identity itself, as
// nc_matmul(..., is_transpose=True) does, has it among the operands already); PSUM accumulation
// is not a PSUM read.
void Scheduler::count_bytes(const PendingOp& op) {
  const bool dma = op.engine == Engine::Dma;
  const uint64_t passes = op.fp32_passes ? arch_.fp32_passes : 1;
  int sbuf_reads = 0;
  for (const Access& a : op.accesses) sbuf_reads += a.read && !a.write && a.operand.buffer == BufferKind::Sbuf;
  const bool implicit_identity = op.opcode == Opcode::Transpose && sbuf_reads == 1;
  for (const Access& a : op.accesses) {
    const Operand& o = a.operand;
    const uint64_t bytes = dma ? o.bytes() : uint64_t(o.free_elements) * o.dtype_bytes * passes;
    const bool read = a.read && !(op.engine == Engine::Tensor && a.write);
    switch (o.buffer) {
      case BufferKind::Hbm: {
        if (a.read) counters_.hbm_read_bytes += o.bytes();
        if (a.write) counters_.hbm_write_bytes += o.bytes();
        HbmTraffic& t = hbm_traffic_[o.tensor_id];
        (a.read ? t.read : t.written) += o.bytes();
        break;
      }
      case BufferKind::Sbuf:
        if (read) counters_.sbuf_read_bytes += bytes;
        if (a.write) counters_.sbuf_write_bytes += bytes;
        if (implicit_identity && read) counters_.sbuf_read_bytes += uint64_t(o.partitions) * o.dtype_bytes * passes;
        break;
      case BufferKind::Psum:
        if (read) counters_.psum_read_bytes += bytes;
        if (a.write) counters_.psum_write_bytes += bytes;
        break;
    }
  }
}

void Scheduler::issue(const PendingOp& op) {
  current_line_ = op.line;
  current_in_order_ = op.in_order;
  if (op.epoch != epoch_) {
    // A new iteration of a sequential loop: nothing after it moves before what came before.
    epoch_ = op.epoch;
    order_floor_ = last_start_;
    for (Queue& q : queues_) q.floor = q.last_setup;
  }
  dependencies(op, scratch_ready_);
  double end = 0;
  int track = -1;
  if (op.engine == Engine::Dma) {
    double ready = scratch_ready_.on(-1, 0);
    const int queue = arch_.dma_queue_per_statement ? statement_queue(op.dma_stream) : next_queue(QueueClass::Io);
    end = schedule_dma(queue, op.dma, ready, to_string(op.opcode), op.line, op.in_order);
  } else {
    end = schedule_compute(op, scratch_ready_, track);
  }
  retire(op, end, track);
  count_bytes(op);
  counters_.hardware_flops += op.flops;
  if (op.opcode == Opcode::Transpose) counters_.transpose_flops += op.flops;
  counters_.instructions += 1;
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
    p.tensor_engine_active_time_percent = active_[kPe].total() / end_ns_;
    p.scalar_engine_active_time_percent = active_[kAct].total() / end_ns_;
    p.vector_engine_active_time_percent = active_[kDve].total() / end_ns_;
    p.gpsimd_engine_active_time_percent = active_[kPool].total() / end_ns_;
    p.dma_active_time_percent = dma_active_.total() / end_ns_;
  }
  for (int track = 0; track < kEngineCount; ++track)
    if (active_[size_t(track)].total() > 0)
      p.engine_busy_ms[engine_track_name(track)] = active_[size_t(track)].total() * 1e-6;
  if (dma_load_ns_ > 0) p.engine_busy_ms["dma_load"] = dma_load_ns_ * 1e-6;
  if (dma_store_ns_ > 0) p.engine_busy_ms["dma_store"] = dma_store_ns_ * 1e-6;
  if (dma_spill_ns_ > 0) p.engine_busy_ms["dma_spill"] = dma_spill_ns_ * 1e-6;
  // The DMA capacity busiest over the run (the from-HBM path alone without dma_directions).
  const double dma_busy = std::max({fabric_.busy_ns(), fabric_to_hbm_.busy_ns(), hbm_.busy_ns()});
  if (dma_busy > 0) p.engine_busy_ms["dma"] = dma_busy * 1e-6;
  return p;
}

}  // namespace trn
