// Rule psum_accumulation: an accumulation of matmul results into an SBUF accumulator becomes
// accumulation in PSUM with one add at the end.
//
// Pattern (after psum_copies): a VectorE add `acc_sbuf += T` of a PSUM tile T that Tensor
// Engine instructions wrote, repeated (across iterations of an affine_range loop) into the same
// SBUF region. Lowered: the later iterations' matmuls accumulate into the first iteration's
// PSUM tile (PSUM accumulate is a near-memory read-add-write done by the Tensor Engine, ARCH2),
// and only the last add remains. Kernels write this as `acc_sbuf += nl.matmul(...)` inside an
// affine loop, or as an explicit tensor_tensor add of each PSUM result into SBUF.
//
// Legal when (each checked on the records):
//   - the PSUM tile fits one bank (2 KiB per partition, ARCH2) and at most 8 accumulation
//     groups are open at once (8 banks; ARCH2/ALLOC);
//   - nothing else reads or writes the accumulator, and nothing but Tensor Engine writes and
//     zero fills touch the PSUM tiles, between the adds;
//   - the adds are separated only by iterations of affine_range loops: a sequential_range,
//     static_range or Python range iteration boundary, or the end of the loop, closes the group
//     (the matmul tutorial's Opt 3 keeps its SBUF accumulation by making the K-block loop
//     sequential_range, MM; KOPT v5 does the same and the profile shows its 4,096 VectorE adds).
// Evidence: "associative accumulation such as psum += nc_matmul is allowed" in affine_range
// (LANG); the legacy compiler recognized PSUM accumulation by pattern and could lower
// `psum = psum + nc_matmul` to a VectorE add instead (ARCH2 v2.26.1, MM), i.e. the compiler
// moves accumulations between PSUM and VectorE; a public ladder step that accumulates in SBUF
// ran 29% faster on the device (issue 11). Not published: the compiler's exact pattern and
// its PSUM budget; this rule uses the documented bank count.
#include "lower/rules.h"

#include <deque>
#include <vector>

#include "lower/footprint.h"

namespace lower {
namespace {

struct Held {
  Record record;
  bool dropped = false;
};

struct Chain {
  trn::Operand acc;    // the SBUF accumulator region
  trn::Operand psum;   // the PSUM tile the group accumulates in
  uint64_t pending;    // position (in the held records) of the one add that remains
  size_t depth;        // loop depth where the group started
};

class PsumAccumulation : public Stage {
 public:
  PsumAccumulation(trn::TraceSink& next, Shared& shared) : Stage(Rule::PsumAccumulation, true, next, shared) {}

 private:
  // The add `acc += psum` this rule looks for; returns the PSUM operand index.
  int add_of_psum(const trn::InstructionInfo& inst) const {
    if (inst.opcode != Opcode::TensorTensor || inst.alu != trn::AluOp::Add || inst.engine == Engine::Tensor)
      return -1;
    if (inst.inputs.size() != 2 || inst.outputs.size() != 1) return -1;
    const trn::Operand& out = inst.outputs[0];
    if (out.buffer != BufferKind::Sbuf) return -1;
    for (int i = 0; i < 2; ++i) {
      const trn::Operand& psum = inst.inputs[size_t(i)];
      const trn::Operand& acc = inst.inputs[size_t(1 - i)];
      if (psum.buffer == BufferKind::Psum && acc == out && psum.partitions == acc.partitions &&
          psum.free_elements == acc.free_elements &&
          uint64_t(psum.free_elements) * psum.dtype_bytes <= options().psum_bank_bytes)
        return i;
    }
    return -1;
  }

  void on_record(const Record& r) override {
    if (r.kind == RecordKind::LoopBegin) loops_.push_back(r.loop.kind);
    if (r.kind == RecordKind::LoopIteration && !loops_.empty() && loops_.back() != trn::LoopKind::Affine)
      close_from(loops_.size());  // a group never spans iterations of a non-affine loop
    if (r.kind == RecordKind::LoopEnd) {
      close_from(loops_.size());
      if (!loops_.empty()) loops_.pop_back();
    }
    int psum_index = -1;
    if (r.kind == RecordKind::Instruction) {
      psum_index = add_of_psum(r.inst);
      if (psum_index >= 0 && extend(r, psum_index)) return release();
      for (size_t c = 0; c < chains_.size();)
        if (conflicts(chains_[c], r.inst)) close(c);
        else ++c;
      if (psum_index >= 0) open(r, psum_index);
    }
    if (chains_.empty() && held_.empty()) {
      ++base_;
      return emit(r);  // nothing open: pass through without a copy
    }
    hold(r);
    if (held_.size() > options().max_held_records && !chains_.empty()) close(0);
    release();
  }

  void flush() override {
    while (!chains_.empty()) close(0);
    release();
  }

  // Something other than the group's own matmuls and add touches its tiles.
  static bool conflicts(const Chain& c, const trn::InstructionInfo& inst) {
    for (const auto& op : inst.inputs)
      if (may_overlap(op, c.acc) || same_tile(op, c.psum)) return true;
    // Tensor Engine writes and zero fills of the PSUM tile may be part of the next round
    // (extend() decides); they come after the pending add either way.
    const bool fill = inst.opcode == Opcode::Memset && inst.inputs.empty() && !inst.nonzero_fill;
    for (const auto& op : inst.outputs) {
      if (may_overlap(op, c.acc)) return true;
      if (same_tile(op, c.psum) && inst.engine != Engine::Tensor && !fill) return true;
    }
    return false;
  }

  void open(const Record& r, int psum_index) {
    if (chains_.size() >= options().psum_banks) close(0);
    Chain c;
    c.acc = r.inst.outputs[0];
    c.psum = r.inst.inputs[size_t(psum_index)];
    c.pending = base_ + held_.size();
    c.depth = loops_.size();
    chains_.push_back(c);
  }

  // `r` adds another PSUM result into an open group's accumulator: its matmuls accumulate into
  // the group's PSUM tile instead, and the previous add goes.
  bool extend(const Record& r, int psum_index) {
    const trn::Operand& acc = r.inst.outputs[0];
    const trn::Operand& psum = r.inst.inputs[size_t(psum_index)];
    size_t match = chains_.size();
    for (size_t c = 0; c < chains_.size(); ++c)
      if (chains_[c].acc == acc && same_shape(chains_[c].psum, psum)) match = c;
    if (match == chains_.size()) return false;
    std::vector<size_t> writes, fills, allocs;
    if (!movable_writes(chains_[match], psum, writes, fills, allocs)) return false;
    for (size_t c = chains_.size(); c-- > 0;)
      if (c != match && conflicts(chains_[c], r.inst)) {
        close(c);
        if (c < match) --match;
      }
    {
      Chain& chain = chains_[match];
      for (size_t idx : writes) {
        Record& w = held_[idx].record;
        for (auto& out : w.inst.outputs)
          if (same_tile(out, psum)) out = chain.psum;
        w.inst.accumulate = true;
        mark(w);
      }
      for (size_t idx : fills) held_[idx].dropped = true;
      for (size_t idx : allocs) held_[idx].dropped = true;
      count_removed(fills.size() + allocs.size() + 1);
      held_[chain.pending - base_].dropped = true;
      Record add = r;
      add.inst.inputs[size_t(psum_index)] = chain.psum;
      if (!same_tile(psum, chain.psum)) mark(add);
      chain.pending = base_ + held_.size();
      hold(add);
      return true;
    }
    return false;
  }

  // The held records after the group's pending add that write `psum`: Tensor Engine writes
  // (they will accumulate into the group's tile), zero fills and the allocation of a fresh
  // `psum` tile (both dropped). Anything else touching `psum` makes the add not movable.
  bool movable_writes(const Chain& chain, const trn::Operand& psum, std::vector<size_t>& writes,
                      std::vector<size_t>& fills, std::vector<size_t>& allocs) const {
    for (size_t idx = chain.pending - base_ + 1; idx < held_.size(); ++idx) {
      const Held& h = held_[idx];
      if (h.dropped) continue;
      const Record& rec = h.record;
      if (rec.kind == RecordKind::Alloc) {
        if (rec.alloc.buffer == psum.buffer && rec.alloc.tensor_id == psum.tensor_id &&
            psum.tensor_id != chain.psum.tensor_id)
          allocs.push_back(idx);
        continue;
      }
      if (rec.kind != RecordKind::Instruction) continue;
      for (const auto& in : rec.inst.inputs)
        if (same_tile(in, psum)) return false;
      bool writes_psum = false;
      for (const auto& out : rec.inst.outputs) writes_psum |= same_tile(out, psum);
      if (!writes_psum) continue;
      if (rec.inst.engine == Engine::Tensor && rec.inst.outputs.size() == 1 &&
          same_shape(rec.inst.outputs[0], chain.psum) && rec.inst.outputs[0].offset == psum.offset)
        writes.push_back(idx);
      else if (rec.inst.opcode == Opcode::Memset && rec.inst.inputs.empty() && !rec.inst.nonzero_fill)
        fills.push_back(idx);
      else
        return false;
    }
    return !writes.empty();
  }

  void close(size_t c) { chains_.erase(chains_.begin() + long(c)); }

  void close_from(size_t depth) {
    for (size_t c = 0; c < chains_.size();)
      if (chains_[c].depth >= depth) close(c);
      else ++c;
  }

  void hold(const Record& r) { held_.push_back({r, false}); }

  // Emits the held records that no open group can still change.
  void release() {
    uint64_t keep_from = base_ + held_.size();
    for (const Chain& c : chains_) keep_from = std::min(keep_from, c.pending);
    while (base_ < keep_from) {
      if (!held_.front().dropped) emit(held_.front().record);
      held_.pop_front();
      ++base_;
    }
  }

  std::vector<trn::LoopKind> loops_;
  std::vector<Chain> chains_;
  std::deque<Held> held_;
  uint64_t base_ = 0;  // position of held_.front()
};

}  // namespace

std::unique_ptr<Stage> make_psum_accumulation(trn::TraceSink& next, Shared& shared) {
  return std::make_unique<PsumAccumulation>(next, shared);
}

}  // namespace lower
