#include "trn/simulator.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "trn/error_band.h"
#include "trn/scheduler.h"

namespace trn {

namespace {

// SBUF bytes per partition of the core that prices SBUF space: more than any trace's tiles.
constexpr uint32_t kUnboundedSbufBytes = 1u << 30;

}  // namespace

struct Simulator::Impl {
  Impl(const ArchConfig& a, SimOptions o)
      : arch(a), options(std::move(o)),
        timeline(options.timeline_path.empty() ? nullptr
                                               : std::make_unique<TimelineWriter>(options.timeline_path)),
        scheduler(a, timeline.get()) {
    if (options.lookahead == 0) options.lookahead = 1;
    if (options.price_sbuf_space) {
      unbounded_arch.sbuf_bytes_per_partition = kUnboundedSbufBytes;
      SimOptions twin = options;
      twin.timeline_path.clear();
      twin.price_sbuf_space = false;
      unbounded_sbuf = std::make_unique<Simulator>(unbounded_arch, std::move(twin));
    }
  }

  void add_instruction(const Record& r);
  void link(PendingOp& op, size_t access_idx);
  void drain(size_t keep);

  const ArchConfig& arch;
  SimOptions options;
  std::unique_ptr<TimelineWriter> timeline;
  Scheduler scheduler;
  std::deque<PendingOp> window;
  uint64_t next_pos = 0;  // program position of the next instruction
  // Latest buffered access of each tile: (program position, access index).
  std::unordered_map<TileKey, std::pair<uint64_t, uint32_t>> last_access;
  bool finished = false;
  Profile result;
  // The PSUM tensor whose nl.zeros allocation was the last record, or whose block fills are the
  // records since it, if any (see consume()).
  std::optional<uint32_t> zeroed_psum;
  // SBUF tensors whose tiles are several units of residency (AllocInfo::regions): tensor id ->
  // (regions per tile, bytes per partition of a region).
  std::unordered_map<uint32_t, std::pair<uint32_t, uint64_t>> regions;
  // Appends the access of `operand` to `op`, one per region of its tile it touches.
  void add_access(PendingOp& op, const InstructionInfo& inst, const Operand& operand, bool is_output);
  // Kinds of the loops the next instruction is in (innermost last), and the number of sequential
  // iteration boundaries so far (PendingOp::in_order, PendingOp::epoch).
  std::vector<LoopKind> loops;
  uint32_t epoch = 0;
  bool program_order = false;  // @skip_middle_end_transformations: no reordering at all
  // The same trace on a core whose SBUF never runs out (SimOptions::price_sbuf_space).
  ArchConfig unbounded_arch = arch;
  std::unique_ptr<Simulator> unbounded_sbuf;
};

namespace {

// The fill that nl.zeros(..., buffer=nl.psum) emits right after the allocation. PSUM zeros are
// the documented way to start a matmul accumulation group (ARCH2, MM: zeros + `+=` in an
// affine_range): the compiler lowers them to the first matmul overwriting the bank, so no
// memset runs on the device.
bool is_psum_zero_fill(const Record& r, uint32_t tensor_id) {
  const InstructionInfo& inst = r.inst;
  if (inst.opcode != Opcode::Memset || inst.nonzero_fill || !inst.inputs.empty() || inst.outputs.empty()) return false;
  return std::all_of(inst.outputs.begin(), inst.outputs.end(), [&](const Operand& o) {
    return o.buffer == BufferKind::Psum && o.tensor_id == tensor_id;
  });
}

bool covers_tile(const Operand& op, const TileState& t) {
  return op.partitions >= t.partitions &&
         uint64_t(op.free_elements) * op.dtype_bytes >= t.bytes_per_partition;
}

void check_operands(const Record& r) {
  const auto& inst = r.inst;
  if (inst.engine == Engine::Dma && inst.inputs.empty() && inst.outputs.empty())
    throw std::invalid_argument(
        fmt::format("record {} (line {}): {} on a DMA queue has no operands", r.seq, r.line,
                    to_string(inst.opcode)));
}

// The stream a DMA belongs to (PendingOp::dma_stream): the HBM tensor it reads (loads) or writes
// (stores) and the direction; an on-chip copy is its own stream per source line. Two statements
// that load the same tensor (a loop's tail chunk issued apart) are one stream, as one statement
// in a loop is.
uint64_t dma_stream_key(const InstructionInfo& inst, uint32_t line) {
  for (const Operand& in : inst.inputs)
    if (in.buffer == BufferKind::Hbm) return uint64_t(in.tensor_id) << 2 | 1;
  for (const Operand& out : inst.outputs)
    if (out.buffer == BufferKind::Hbm) return uint64_t(out.tensor_id) << 2 | 2;
  return uint64_t(line) << 2 | 3;
}

}  // namespace

// Connects this access to the previous buffered access of the same tile, so that the allocator
// knows each tile's next use when it simulates the earlier instruction.
void Simulator::Impl::link(PendingOp& op, size_t access_idx) {
  Access& a = op.accesses[access_idx];
  auto it = last_access.find(a.key);
  if (it != last_access.end() && it->second.first >= window.front().pos &&
      it->second.first < op.pos) {
    PendingOp& prev = window[it->second.first - window.front().pos];
    Access& before = prev.accesses[it->second.second];
    before.next_use = op.pos;
    before.next_reads = a.read || (a.write && !a.full_write);
    // Earlier accesses of the tile in that instruction share its next use.
    for (Access& other : prev.accesses)
      if (other.key == a.key) other.next_use = before.next_use, other.next_reads = before.next_reads;
  }
  last_access[a.key] = {op.pos, uint32_t(access_idx)};
}

void Simulator::Impl::add_instruction(const Record& r) {
  check_operands(r);
  // Copy the record (it carries operand vectors) only when the compiler's placement changes
  // its engine.
  InstructionInfo placed;
  const bool moved = placed_engine(r.inst) != r.inst.engine;
  if (moved) placed = r.inst, placed.engine = placed_engine(r.inst);
  const InstructionInfo& inst = moved ? placed : r.inst;
  PendingOp op;
  op.pos = next_pos++;
  op.line = r.line;
  op.opcode = inst.opcode;
  op.engine = inst.engine;
  op.accumulate = inst.accumulate;
  op.pe_cells = inst.engine == Engine::Tensor ? inst.pe_cells : 0;
  op.in_order = program_order || (!loops.empty() && loops.back() == LoopKind::Sequential);
  op.epoch = epoch;
  if (inst.engine == Engine::Dma) {
    op.dma = dma_timing(dma_shape(inst), arch);
    op.dma_stream = arch.dma_queue_per_tensor ? dma_stream_key(inst, r.line) : r.line;
  } else {
    op.compute_ns = instruction_ns(inst, arch);
    op.fixed_ns = fixed_overhead_ns(inst, arch);
    if (double s = small_static_ns(inst, arch); s > 0) op.compute_ns += s, op.fixed_ns -= s;
    if (inst.opcode == Opcode::Activation) op.activation_func = inst.activation_func;
  }
  op.fp32_passes = inst.engine == Engine::Tensor &&
                   std::any_of(inst.inputs.begin(), inst.inputs.end(), [](const Operand& o) { return o.fp32; });
  op.flexible = engine_is_flexible(inst);
  if (op.flexible) {
    InstructionInfo other = inst;
    other.engine = inst.engine == Engine::Vector ? Engine::Scalar : Engine::Vector;
    op.alternate_ns = instruction_ns(other, arch);
    op.alternate_fixed_ns = fixed_overhead_ns(other, arch);
    if (double s = small_static_ns(other, arch); s > 0) op.alternate_ns += s, op.alternate_fixed_ns -= s;
  }
  if (op.pos == options.probe_instruction) {
    const double f = options.probe_factor;
    op.compute_ns *= f, op.fixed_ns *= f, op.alternate_ns *= f, op.alternate_fixed_ns *= f;
    op.dma.setup_ns *= f, op.dma.duration_ns *= f, op.dma.fabric_ns *= f, op.dma.hbm_ns *= f;
  }
  op.flops = hardware_flops(inst, arch);
  op.accesses.reserve(inst.inputs.size() + inst.outputs.size());
  for (const auto& operand : inst.inputs) add_access(op, inst, operand, false);
  for (const auto& operand : inst.outputs) add_access(op, inst, operand, true);
  window.push_back(std::move(op));
  PendingOp& stored = window.back();
  for (size_t idx = 0; idx < stored.accesses.size(); ++idx)
    if (stored.accesses[idx].operand.buffer != BufferKind::Hbm) link(stored, idx);
  drain(options.lookahead);
}

void Simulator::Impl::add_access(PendingOp& op, const InstructionInfo& inst, const Operand& operand,
                                 bool is_output) {
  auto add = [&](const Operand& part) {
    Access a;
    a.key = tile_key(part.tensor_id, part.block);
    a.operand = part;
    a.read = !is_output || inst.accumulate;
    a.write = is_output;
    if (part.buffer != BufferKind::Hbm) {
      scheduler.touch(part);
      a.full_write = is_output && !inst.accumulate && covers_tile(part, *scheduler.tile(a.key));
    }
    op.accesses.push_back(a);
  };
  auto it = operand.buffer == BufferKind::Sbuf ? regions.find(operand.tensor_id) : regions.end();
  if (it == regions.end()) return add(operand);
  // A [128, KT, N] tile is KT units of residency, as the same data in a block-dimension tensor
  // [KT, par 128, N] is (the compiler's allocation unit is what the program accesses, not how it
  // spelled the buffer): the part of the access in each region is an access of that region's
  // tile, at its offset within the region (bytes, so that a differently typed view still maps).
  const auto [count, region] = it->second;
  const uint64_t db = std::max<uint8_t>(operand.dtype_bytes, 1);
  const uint64_t start = uint64_t(std::max<int64_t>(operand.offset, 0)) * db;
  const uint64_t extent = uint64_t(operand.extent ? operand.extent : operand.free_elements) * db;
  const uint64_t first = std::min<uint64_t>(start / region, count - 1);
  const uint64_t last = std::min<uint64_t>((start + std::max<uint64_t>(extent, 1) - 1) / region, count - 1);
  for (uint64_t r = first; r <= last; ++r) {
    Operand part = operand;
    part.block = operand.block * count + uint32_t(r);
    const uint64_t lo = std::max(start, r * region), hi = std::min(start + extent, (r + 1) * region);
    const uint64_t span = hi > lo ? hi - lo : db;
    part.offset = int64_t((lo - r * region) / db);
    part.extent = uint32_t(span / db);
    if (first != last) {
      // The elements of the access that fall in this region, in proportion to its span.
      part.free_elements = uint32_t(std::max<uint64_t>(1, (uint64_t(operand.free_elements) * span + extent / 2) / extent));
      if (part.pitch >= part.extent) part.pitch = 0;
      part.contiguous_bytes = std::min<uint32_t>(part.contiguous_bytes, uint32_t(span));
    }
    add(part);
  }
}

void Simulator::Impl::drain(size_t keep) {
  while (window.size() > keep) {
    PendingOp& op = window.front();
    // Forget accesses with no later buffered access of their tile (keeps the map window-sized).
    for (size_t idx = 0; idx < op.accesses.size(); ++idx) {
      auto it = last_access.find(op.accesses[idx].key);
      if (it != last_access.end() && it->second.first == op.pos && it->second.second == idx)
        last_access.erase(it);
    }
    scheduler.run(std::move(op));
    window.pop_front();
  }
}

Simulator::Simulator(const ArchConfig& arch, SimOptions options)
    : impl_(std::make_unique<Impl>(arch, std::move(options))) {}

Simulator::~Simulator() = default;

void Simulator::consume(const Record& record) {
  if (impl_->finished) throw std::logic_error("Simulator::consume after finish");
  consume_here(record);
  if (impl_->unbounded_sbuf) impl_->unbounded_sbuf->consume(record);
}

void Simulator::consume_here(const Record& record) {
  switch (record.kind) {
    case RecordKind::Alloc:
      try {
        impl_->scheduler.declare(record.alloc);
      } catch (const AllocationError& e) {
        // Give the allocation's source line to a caller that has no interpreter location.
        if (e.line || !record.line) throw;
        throw AllocationError(e.what(), record.line);
      }
      if (record.alloc.buffer == BufferKind::Sbuf && record.alloc.regions > 1)
        impl_->regions[record.alloc.tensor_id] = {record.alloc.regions,
                                                  record.alloc.bytes_per_partition / record.alloc.regions};
      else
        impl_->regions.erase(record.alloc.tensor_id);
      impl_->zeroed_psum.reset();
      if (record.alloc.zero_initialized && record.alloc.buffer == BufferKind::Psum)
        impl_->zeroed_psum = record.alloc.tensor_id;
      break;
    case RecordKind::Instruction: {
      // nl.zeros emits one fill per block of the tensor (one tile each), one after the other:
      // every block is an accumulation group's bank, so none of them runs (until session 23 only
      // the first block's was skipped: a [4, par 128, 512] PSUM accumulator cost three VectorE
      // memsets that four [128, 512] ones did not).
      const bool skip = impl_->zeroed_psum && is_psum_zero_fill(record, *impl_->zeroed_psum);
      if (!skip) {
        impl_->zeroed_psum.reset();
        impl_->add_instruction(record);
      }
      break;
    }
    // Dependences come from the operands; loops only say where the compiler may reorder.
    case RecordKind::LoopBegin:
      impl_->loops.push_back(record.loop.kind);
      break;
    case RecordKind::LoopIteration:
      if (record.loop.kind == LoopKind::Sequential) ++impl_->epoch;
      break;
    case RecordKind::LoopEnd:
      if (!impl_->loops.empty()) impl_->loops.pop_back();
      break;
    case RecordKind::Kernel:
      // skip_middle_end_transformations: program order is what runs on every engine.
      impl_->program_order = record.kernel.skip_middle_end_transformations;
      break;
  }
}

void Simulator::finish() {
  if (impl_->finished) return;
  impl_->drain(0);
  impl_->scheduler.flush();
  impl_->finished = true;
  impl_->result = impl_->scheduler.summarize();
  if (impl_->unbounded_sbuf) {
    // What SBUF space costs: the latency more space would save (a greedy list schedule is not
    // monotonic, so a run with more space may be slightly slower; that costs nothing).
    impl_->unbounded_sbuf->finish();
    impl_->result.sbuf_space_wait_ms =
        std::max(0.0, impl_->result.latency - impl_->unbounded_sbuf->profile().latency);
  }
  apply_error_band(impl_->result);  // the suite's residuals for this kind of kernel (error_band.h)
  if (impl_->timeline) impl_->timeline->close();
}

const Profile& Simulator::profile() const {
  if (!impl_->finished) throw std::logic_error("Simulator::profile before finish");
  return impl_->result;
}

Profile simulate(const std::vector<Record>& records, const ArchConfig& arch,
                 const SimOptions& options) {
  Simulator sim(arch, options);
  for (const Record& r : records) sim.consume(r);
  sim.finish();
  return sim.profile();
}

}  // namespace trn
