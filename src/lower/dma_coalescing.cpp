// Rule dma_coalescing: adjacent small transfers in the same direction become one transfer.
//
// Two or more loads (or stores) between the same HBM tensor and the same SBUF tile, each the
// previous one moved by a fixed step on both sides (the next partitions and the HBM rows after
// them, or further along the rows: contiguous or regularly strided regions), merge into one
// transfer when nothing in between depends on them: a load moves up to the first transfer's
// place, so nothing in between may write its HBM source or touch its SBUF destination; a store
// moves down to the last transfer's place, so nothing in between may write its SBUF source or
// touch its HBM destination. Only small transfers merge (less than 2 KiB per partition row, or
// fewer than 128 partitions): below 2 KiB a transfer is under the minimum recommended size
// (DMABW), and a transfer over few partitions uses few of the 16 DMA engines (DMAO: 8
// partitions per engine); each merged transfer also pays the ~1300 ns fixed cost once (DMABW).
// Transfers merge within straight-line code and across iterations of affine_range loops.
//
// Evidence: the compiler turns each load/store into DMA transfers and groups per-partition
// buffers (ARCH2); with @nki.compiler.skip_middle_end_transformations nothing merges (CS149
// vector_add_stream FREE_DIM=1000: 2 iterations, 6 transfers, §1.9), so the rule is off there.
// Against merging tiles that are not adjacent on chip: NAD V1 loads [128,128] tiles of one
// HBM row block into separate SBUF tiles, and V2 with one [128,1024] transfer per row is 1.36x
// faster with the same bytes (§1.3), so separate tiles are not merged (SBUF side must be one
// tile). Not published: whether the compiler merges at all when both sides are adjacent, and
// how far apart it looks (here a window of 64 records).
#include "lower/rules.h"

#include <optional>
#include <vector>

#include "lower/footprint.h"

namespace lower {
namespace {

enum class Axis : uint8_t { Across, Along };

struct Group {
  Record first, merged;
  uint32_t members = 1;
  Axis axis = Axis::Along;
  Shift sbuf_step;
  int64_t hbm_step = 0;
  size_t depth = 0;  // loop depth where it started
};

class DmaCoalescing : public Stage {
 public:
  DmaCoalescing(trn::TraceSink& next, Shared& shared) : Stage(Rule::DmaCoalescing, true, next, shared) {}

 private:
  static bool is_load(const trn::InstructionInfo& i) { return i.opcode == Opcode::DmaLoad; }
  static const trn::Operand& sbuf_side(const trn::InstructionInfo& i) { return is_load(i) ? i.outputs[0] : i.inputs[0]; }
  static const trn::Operand& hbm_side(const trn::InstructionInfo& i) { return is_load(i) ? i.inputs[0] : i.outputs[0]; }
  static trn::Operand& sbuf_side(trn::InstructionInfo& i) { return is_load(i) ? i.outputs[0] : i.inputs[0]; }
  static trn::Operand& hbm_side(trn::InstructionInfo& i) { return is_load(i) ? i.inputs[0] : i.outputs[0]; }

  bool candidate(const Record& r) const {
    if (r.kind != RecordKind::Instruction) return false;
    const auto& i = r.inst;
    if (i.opcode != Opcode::DmaLoad && i.opcode != Opcode::DmaStore) return false;
    if (i.inputs.size() != 1 || i.outputs.size() != 1) return false;
    const trn::Operand &s = sbuf_side(i), &h = hbm_side(i);
    if (s.buffer != BufferKind::Sbuf || h.buffer != BufferKind::Hbm) return false;
    return uint64_t(s.free_elements) * s.dtype_bytes < options().small_dma_row_bytes ||
           s.partitions < options().max_partitions;
  }

  void on_record(const Record& r) override {
    if (r.kind == RecordKind::LoopBegin || r.kind == RecordKind::LoopEnd ||
        (r.kind == RecordKind::LoopIteration && !continues(r))) {
      close();
      if (r.kind == RecordKind::LoopBegin) loops_.push_back(r.loop.kind);
      if (r.kind == RecordKind::LoopEnd && !loops_.empty()) loops_.pop_back();
      return emit(r);
    }
    if (group_) {
      if (candidate(r) && extend(r)) return;
      if (candidate(r) || conflicts(r)) close();
    }
    if (!group_ && candidate(r)) {
      group_ = Group{r, r, 1, Axis::Along, {}, 0, loops_.size()};
      return;
    }
    if (!group_) return emit(r);
    held_.push_back(r);
    if (held_.size() > options().dma_window_records) close();
  }

  void flush() override { close(); }

  // An iteration boundary the group may span: the next iteration of the affine loop it started in.
  bool continues(const Record& r) const {
    return group_ && loops_.size() == group_->depth && !loops_.empty() && loops_.back() == trn::LoopKind::Affine;
  }

  // A store group cannot move past a record that writes its SBUF source or touches its HBM
  // destination (loads are checked as each transfer joins).
  bool conflicts(const Record& r) const {
    if (r.kind != RecordKind::Instruction || is_load(group_->merged.inst)) return false;
    const trn::Operand &s = sbuf_side(group_->merged.inst), &h = hbm_side(group_->merged.inst);
    for (const auto& in : r.inst.inputs)
      if (may_overlap(in, h)) return true;
    for (const auto& out : r.inst.outputs)
      if (may_overlap(out, s) || may_overlap(out, h)) return true;
    return false;
  }

  bool extend(const Record& r) {
    Group& g = *group_;
    const auto &a = g.first.inst, &b = r.inst;
    if (a.opcode != b.opcode) return false;
    const trn::Operand &s0 = sbuf_side(a), &h0 = hbm_side(a), &s = sbuf_side(b), &h = hbm_side(b);
    if (!same_tile(s0, s) || !same_tile(h0, h) || !same_shape(s0, s) || !same_shape(h0, h)) return false;
    const Shift sbuf = shift_between(s0, s);
    const int64_t hbm = h.offset - h0.offset;
    if (g.members == 1) {
      if (!step(g, s0, h0, sbuf, hbm)) return false;
    } else if (!(sbuf == g.sbuf_step.times(g.members)) || hbm != g.hbm_step * g.members) {
      return false;
    }
    const uint32_t n = g.members + 1;
    if (g.axis == Axis::Across && uint64_t(s0.partitions) * n > options().max_partitions) return false;
    if (g.axis == Axis::Along && h0.partitions > 1 &&
        uint64_t(g.hbm_step) * (n - 1) + row_extent(h0) > uint64_t(h0.row_stride))
      return false;
    if (is_load(b))
      for (const Record& held : held_)
        if (held.kind == RecordKind::Instruction) {
          for (const auto& in : held.inst.inputs)
            if (may_overlap(in, s)) return false;
          for (const auto& out : held.inst.outputs)
            if (may_overlap(out, s) || may_overlap(out, h)) return false;
        }
    g.members = n;
    Record merged = g.first;
    if (g.axis == Axis::Across) {
      sbuf_side(merged.inst) = stack_across_rows(s0, s0.partitions, n);
      hbm_side(merged.inst) = stack_across_rows(h0, g.hbm_step, n);
    } else {
      sbuf_side(merged.inst) = stack_along_rows(s0, g.sbuf_step.elements, n);
      hbm_side(merged.inst) = stack_along_rows(h0, g.hbm_step, n);
    }
    g.merged = std::move(merged);
    return true;
  }

  // The step between the first two transfers: the next partitions with the HBM rows after
  // them, or further along the rows on both sides, without overlap.
  static bool step(Group& g, const trn::Operand& s0, const trn::Operand& h0, Shift sbuf, int64_t hbm) {
    if (sbuf.partitions == int64_t(s0.partitions) && sbuf.elements == 0) {
      bool rows_continue = h0.partitions <= 1 ? hbm > 0 : hbm == int64_t(h0.partitions) * h0.row_stride;
      if (!rows_continue) return false;
      g.axis = Axis::Across;
    } else if (sbuf.partitions == 0 && sbuf.elements >= int64_t(row_extent(s0)) && hbm >= int64_t(row_extent(h0))) {
      if (h0.partitions > 1 && hbm + int64_t(row_extent(h0)) > h0.row_stride) return false;
      g.axis = Axis::Along;
    } else {
      return false;
    }
    g.sbuf_step = sbuf;
    g.hbm_step = hbm;
    return true;
  }

  void close() {
    if (!group_) return;
    // A merged load sits at the first transfer's place, a merged store at the last one's; a
    // transfer nothing joined stays where it was.
    const bool load = is_load(group_->merged.inst) || group_->members == 1;
    if (!load)
      for (const Record& r : held_) emit(r);
    if (group_->members > 1) {
      emit_changed(group_->merged);
      count_removed(group_->members - 1);
    } else {
      emit(group_->merged);
    }
    if (load)
      for (const Record& r : held_) emit(r);
    held_.clear();
    group_.reset();
  }

  std::optional<Group> group_;
  std::vector<Record> held_;
  std::vector<trn::LoopKind> loops_;
};

}  // namespace

std::unique_ptr<Stage> make_dma_coalescing(trn::TraceSink& next, Shared& shared) {
  return std::make_unique<DmaCoalescing>(next, shared);
}

}  // namespace lower
