// Rule hoist_loads: a load that an affine_range loop repeats unchanged runs once, and so does
// an elementwise tensor_tensor whose inputs the loop never changes (below).
//
// A DmaLoad in iteration i+1 of its innermost loop that reads exactly the HBM region iteration
// i read, into a fresh tile of the same shape (or into the very same SBUF region), is dropped;
// the later iteration reads the first iteration's tile (uses of the fresh tile are renamed).
// The tile then stays live across the loop, so whether it stays on chip is the simulator's
// memory model's decision: when SBUF is short, it is evicted and re-loaded from HBM at its next
// use (rematerialization, counted as HBM reads), which is what SBUF capacity allows.
//
// Legal when: the loop is affine_range (LANG: iterations independent; sequential_range is
// optimized conservatively); no store or DMA writes the HBM tensor in between; nothing writes
// the first tile after its load (an in-place update makes the next iteration load again).
//
// Evidence, and why only the innermost loop. The public measurements conflict:
//   - MM tutorial, Trn1 toolchain 2.20 (§1.1): the original tiled matmul, whose lhsT tile load
//     is invariant in n but sits inside the k loop, ran at the same HBM rate as the hoisted
//     Opt 1 for its as-written bytes (5.37 GB in 51.80 ms = 104 GB/s vs 4.36 GB in 42.96 ms =
//     101 GB/s): the compiler did not hoist across the k loop;
//   - KOPT v2 (Trn2, §1.2): HBM traffic as written (lhsT 16x), same structure;
//   - KOPT v4 (§1.2): source-level rhs reuse not realized: its rhs tiles of one N block are
//     2 x 64 x 2 KiB = 256 KiB per partition, more than the 224 KiB of a Trn2 partition, so they
//     cannot stay on chip (the memory model re-loads them; not a compiler rule);
//   - AccelOpt matmul baseline (§3.5): 7x extra reads with a nearly full SBUF (memory model);
//   - NAD V0 (Trn2, §1.3): lhsT read 3x where the source asks 8x; the Mamba v1 profile (§1.7)
//     warns that u and delta are reloaded ~7x where the source loads them 16x (invariant in the
//     state loop, inside the channel loop); a later toolchain ran the tiled matmul 2.5x faster
//     (§1.1 note).
// Hoisting out of the innermost enclosing affine loop only is consistent with the first four
// (static_range and Python loops do not count: they are unrolled before the compiler sees them).
// The last three are not explained by it: they need partial reuse across an outer loop (e.g.
// the outer loop unrolled and jammed by a small factor: 8 n-iterations in groups of 3 give
// V0's 3x exactly; a PSUM budget of 7 banks double-buffered would give 3 on Trn2), which this
// rule does not model: toolchain-dependent behaviour with no published description.
//
// Loop-invariant elementwise work. A tensor_tensor that iteration i+1 repeats on the same input
// tiles, into a fresh tile, is dropped the same way (its inputs unwritten in between). Evidence:
// the Mamba tutorial (trainium-measurements 1.7). v2 hoists delta and u out of the state loop
// by hand, which makes `delta * u` invariant in it; v1 recomputes it with the loads. The device's
// VectorE time drops from 2.15 ms (v1, 92% of 2.34 ms) to 1.60 ms (v2, 99.6% of 1.61 ms):
// 0.55 ms over 512 (tile, state) iterations = 1.07 us, one [128 x 512] fp32 tensor_tensor (2N =
// 0.91 us plus its fixed cost) per iteration, the page's "about 30 points" of reordering gain.
// Only tensor_tensor: tensor_scalar and activation may take an immediate from the loop variable,
// which the trace does not carry.
#include "lower/rules.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "lower/footprint.h"

namespace lower {
namespace {

struct Entry {
  Opcode opcode;
  trn::AluOp alu;
  std::vector<trn::Operand> srcs;  // a load's HBM region, or an elementwise instruction's inputs
  trn::Operand dst;
  bool fresh = false;       // dst is the whole of a tile allocated for this load
  int64_t iteration = 0;
  uint32_t ordinal = 0;     // its place among the hoistable instructions of its iteration
};

struct Frame {
  trn::LoopKind kind;
  int64_t iteration = 0;
  uint32_t ordinal = 0;  // hoistable instructions seen in the current iteration
  std::vector<Entry> entries;
  std::vector<uint32_t> renamed;  // fresh tiles renamed in this loop
};

class HoistLoads : public Stage {
 public:
  HoistLoads(trn::TraceSink& next, Shared& shared) : Stage(Rule::HoistLoads, true, next, shared) {}

 private:
  void on_record(const Record& in) override {
    // Copy the record only when a use of a renamed tile must change.
    std::optional<Record> copy;
    if (needs_rename(in)) {
      copy = in;
      rename(*copy);
    }
    const Record& r = copy ? *copy : in;
    const bool renamed = copy.has_value();
    switch (r.kind) {
      case RecordKind::Alloc:
        release_alloc();
        if (innermost_loop() && innermost_loop()->kind == trn::LoopKind::Affine && r.alloc.buffer == BufferKind::Sbuf) {
          held_alloc_ = r;
          return;
        }
        break;
      case RecordKind::LoopBegin:
        release_alloc();
        frames_.push_back({r.loop.kind, 0, {}, {}});
        break;
      case RecordKind::LoopIteration:
        release_alloc();
        if (!frames_.empty()) {
          frames_.back().iteration = r.loop.iteration;
          frames_.back().ordinal = 0;
        }
        break;
      case RecordKind::LoopEnd:
        release_alloc();
        if (!frames_.empty()) {
          for (uint32_t id : frames_.back().renamed) renames_.erase(id);
          frames_.pop_back();
        }
        break;
      case RecordKind::Instruction:
        if (instruction(r)) return;
        break;
      case RecordKind::Kernel:
        break;
    }
    release_alloc();
    if (renamed) emit_changed(r);
    else emit(r);
  }

  void flush() override { release_alloc(); }

  void release_alloc() {
    if (held_alloc_) emit(*held_alloc_);
    held_alloc_.reset();
  }

  bool needs_rename(const Record& r) const {
    if (renames_.empty() || r.kind != RecordKind::Instruction) return false;
    for (const auto* ops : {&r.inst.inputs, &r.inst.outputs})
      for (const auto& op : *ops)
        if (op.buffer == BufferKind::Sbuf && renames_.count(op.tensor_id)) return true;
    return false;
  }

  // Uses of renamed fresh tiles read the first iteration's tile.
  void rename(Record& r) const {
    for (auto* ops : {&r.inst.inputs, &r.inst.outputs})
      for (auto& op : *ops)
        if (op.buffer == BufferKind::Sbuf)
          if (auto it = renames_.find(op.tensor_id); it != renames_.end()) op.tensor_id = it->second;
  }

  static bool is_load(const trn::InstructionInfo& inst) {
    return inst.opcode == Opcode::DmaLoad && inst.inputs.size() == 1 && inst.outputs.size() == 1 &&
           inst.inputs[0].buffer == BufferKind::Hbm && inst.outputs[0].buffer == BufferKind::Sbuf;
  }

  // An elementwise instruction whose result depends on its SBUF input tiles only: tensor_tensor
  // carries no immediate (a tensor_scalar or activation may take its scalar from the loop
  // variable, which the trace does not record), so an identical one reads identical data.
  static bool is_pure_elementwise(const trn::InstructionInfo& inst) {
    if (inst.opcode != Opcode::TensorTensor || inst.accumulate || inst.outputs.size() != 1 ||
        inst.outputs[0].buffer != BufferKind::Sbuf)
      return false;
    return std::all_of(inst.inputs.begin(), inst.inputs.end(),
                       [](const trn::Operand& o) { return o.buffer == BufferKind::Sbuf; });
  }

  // The innermost loop the compiler sees: static_range and Python loops are unrolled when the
  // kernel is traced, so they are straight-line code inside it.
  Frame* innermost_loop() {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->kind != trn::LoopKind::Static && it->kind != trn::LoopKind::Python) return &*it;
    return nullptr;
  }

  static bool hoistable(const trn::InstructionInfo& inst) { return is_load(inst) || is_pure_elementwise(inst); }

  static bool same_work(const Entry& e, const trn::InstructionInfo& inst) {
    return e.opcode == inst.opcode && e.alu == inst.alu && e.srcs == inst.inputs;
  }

  // True when the instruction was dropped.
  bool instruction(const Record& r) {
    invalidate(r.inst);
    Frame* target = innermost_loop();
    if (!hoistable(r.inst) || !target || target->kind != trn::LoopKind::Affine) return false;
    Frame& f = *target;
    const uint32_t ordinal = f.ordinal++;
    const trn::Operand& dst = r.inst.outputs[0];
    const bool fresh = held_alloc_ && held_alloc_->alloc.tensor_id == dst.tensor_id && dst.block == 0 &&
                       dst.partitions == held_alloc_->alloc.partitions &&
                       uint64_t(dst.free_elements) * dst.dtype_bytes == held_alloc_->alloc.bytes_per_partition;
    for (Entry& e : f.entries) {
      // Only the statement that repeats itself: the same place in an earlier iteration. Another
      // statement's earlier load of the region (a window sliding by one tile per iteration)
      // is not reused: no publication shows the compiler forwarding across statements.
      if (!same_work(e, r.inst) || e.iteration >= f.iteration || e.ordinal != ordinal) continue;
      if (fresh && e.fresh && same_shape(e.dst, dst)) {
        renames_[dst.tensor_id] = e.dst.tensor_id;
        f.renamed.push_back(dst.tensor_id);
        held_alloc_.reset();
        count_removed(2);
        return true;
      }
      if (!fresh && e.dst == dst) {
        count_removed();
        return true;
      }
    }
    // A first load of this region in this loop (or one that changed): later iterations may reuse it.
    std::erase_if(f.entries, [&](const Entry& e) { return same_work(e, r.inst) && e.ordinal == ordinal; });
    f.entries.push_back({r.inst.opcode, r.inst.alu, r.inst.inputs, dst, fresh, f.iteration, ordinal});
    return false;
  }

  // Writes end the reuse of what they overwrite: the HBM source, an input tile, or the result.
  // (The same work into the same place keeps its entry: it is the repeat.)
  void invalidate(const trn::InstructionInfo& inst) {
    const bool repeatable = hoistable(inst);
    for (const auto& out : inst.outputs)
      for (Frame& f : frames_)
        std::erase_if(f.entries, [&](const Entry& e) {
          for (const auto& src : e.srcs) {
            if (out.buffer == BufferKind::Hbm && out.tensor_id == src.tensor_id) return true;
            if (out.buffer != BufferKind::Hbm && src.buffer != BufferKind::Hbm && may_overlap(out, src)) return true;
          }
          if (out.buffer == BufferKind::Hbm) return false;
          if (repeatable && same_work(e, inst)) return false;
          return may_overlap(out, e.dst);
        });
  }

  std::vector<Frame> frames_;
  std::optional<Record> held_alloc_;
  std::unordered_map<uint32_t, uint32_t> renames_;
};

}  // namespace

std::unique_ptr<Stage> make_hoist_loads(trn::TraceSink& next, Shared& shared) {
  return std::make_unique<HoistLoads>(next, shared);
}

}  // namespace lower
