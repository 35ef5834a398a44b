// Rule loop_folding: consecutive iterations of an affine_range loop that issue the same tiny
// instructions on adjacent slices become one instruction per statement over the whole extent.
//
// "Loop vectorization" is the only published name of the compiler's middle-end transformations
// (LANG affine_range: "enables loop-level optimizations such as vectorization"); they are off
// under @nki.compiler.skip_middle_end_transformations, and then program order is what runs:
// CS149's vector_add_tiled with ROW_CHUNK=1 runs its 25,600 iterations at 1.46 us each (§1.9).
// Folding pays when an instruction's fixed cost dominates: compute engines need >= 128 elements
// per partition to be efficient (PERF Opt #5a), the static overhead of ~100 cycles shows when
// N << 128 (ARCH2), and an instruction costs the same on 1 or 128 partitions (ARCH2, PERF
// Opt #5b). A held-out public kernel whose inner loop of tiny instructions the compiler folds
// simulates 41.7x slower than the device without this rule (issue 11).
//
// When a loop folds (decided from the trace: loop records and operand offsets):
//   - the loop is affine_range (never sequential_range, static_range or Python range);
//   - its body issues an instruction, and every record of it is foldable: an SBUF/PSUM
//     allocation or a VectorE/ScalarE/GpSimd instruction on fewer than 128 elements per
//     partition; Tensor Engine instructions and DMAs never fold (a DMA keeps its per-transfer
//     cost: see foldable; until session 24 DMAs under 2 KiB per row folded too, and a kernel
//     simulated faster with 64- than with 512-column tiles);
//   - iterations issue the same records, each operand either a tile the iteration allocates,
//     the same region in every iteration (read only), or a region that moves by a fixed step:
//     by its own partition count (stacking across partitions) or along the partition rows
//     (stacking along the free axis), every operand of an instruction the same way;
//   - folding reorders iteration-major into statement-major order, so no statement of a later
//     iteration may touch what a later statement of an earlier iteration touches (at least one
//     writing), and no element is written by two iterations;
//   - a folded instruction stays within 128 partitions and 4K elements per partition (ARCH2).
// Iterations fold in chunks as large as those limits allow; the rest of the loop continues
// with the next chunk. Nested loops fold from the inside out (a folded inner loop leaves flat
// records to its parent). A tile of a later iteration that an instruction after the loop reads
// (kept in a Python list) is read as its part of the folded tile. Not modelled: stacking tiles
// of a block dimension, reductions across iterations (accumulations stay per iteration), folding
// matmuls, and the compiler's real cost heuristics (it may fold larger instructions too).
#include "lower/rules.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "lower/footprint.h"

namespace lower {
namespace {

enum class Axis : uint8_t { None, Across, Along };  // across partitions (rows), along the rows

struct Iteration {
  Record iter;  // its LoopIteration record (kept for iterations emitted unfolded)
  std::vector<Record> records;
};

// How one operand of the template moves from iteration to iteration.
struct Move {
  int fresh = -1;        // index of the template allocation it reads/writes, or -1
  bool invariant = false;
  Shift shift;           // per iteration (not fresh)
};

struct Chunk {
  std::vector<Iteration> iterations;       // [0] is the template
  std::vector<std::vector<Move>> moves;    // per record, per operand (inputs, then outputs)
  std::vector<Axis> axis;                  // per record (allocations: how the tile stacks)
  uint32_t capacity = 0;                   // iterations the plan allows
  bool planned = false;
};

struct Frame {
  Record begin;
  bool buffering = false;
  bool begin_emitted = false;
  bool in_iteration = false;
  Record iter;
  std::vector<Record> current;
  Chunk chunk;
};

bool is_loop_record(const Record& r) {
  return r.kind == RecordKind::LoopBegin || r.kind == RecordKind::LoopIteration || r.kind == RecordKind::LoopEnd;
}

template <class F>
void for_operands(const trn::InstructionInfo& inst, F f) {
  size_t o = 0;
  for (const auto& op : inst.inputs) f(o++, op, false);
  for (const auto& op : inst.outputs) f(o++, op, true);
}

const trn::Operand& operand(const trn::InstructionInfo& inst, size_t o) {
  return o < inst.inputs.size() ? inst.inputs[o] : inst.outputs[o - inst.inputs.size()];
}

trn::Operand& operand(trn::InstructionInfo& inst, size_t o) {
  return o < inst.inputs.size() ? inst.inputs[o] : inst.outputs[o - inst.inputs.size()];
}

bool same_alloc(const trn::AllocInfo& a, const trn::AllocInfo& b) {
  return a.buffer == b.buffer && a.blocks == b.blocks && a.partitions == b.partitions &&
         a.bytes_per_partition == b.bytes_per_partition && a.regions == b.regions &&
         a.zero_initialized == b.zero_initialized;
}

bool same_instruction(const trn::InstructionInfo& a, const trn::InstructionInfo& b) {
  return a.opcode == b.opcode && a.engine == b.engine && a.accumulate == b.accumulate &&
         a.engine_chosen_by_user == b.engine_chosen_by_user &&
         a.no_scalar_engine == b.no_scalar_engine && a.has_reduce == b.has_reduce &&
         a.alu == b.alu && a.activation_func == b.activation_func && a.flops == b.flops &&
         a.inputs.size() == b.inputs.size() && a.outputs.size() == b.outputs.size();
}

// Tensor id -> index of the allocation record among an iteration's records.
std::unordered_map<uint32_t, int> fresh_tiles(const std::vector<Record>& records) {
  std::unordered_map<uint32_t, int> fresh;
  for (size_t j = 0; j < records.size(); ++j)
    if (records[j].kind == RecordKind::Alloc) fresh[records[j].alloc.tensor_id] = int(j);
  return fresh;
}

class LoopFolding : public Stage {
 public:
  LoopFolding(trn::TraceSink& next, Shared& shared) : Stage(Rule::LoopFolding, true, next, shared) {}

 private:
  // ---- the loop structure ----------------------------------------------------------------------
  void on_record(const Record& r) override {
    // A record naming a folded iteration's tile is taken as naming its part (copied only then:
    // every record of a trace passes here).
    if (names_folded_tile(r)) return on_record(renamed(r));
    if (r.kind == RecordKind::LoopBegin) {
      Frame f;
      f.begin = r;
      f.buffering = r.loop.kind == trn::LoopKind::Affine;
      frames_.push_back(std::move(f));
      if (!frames_.back().buffering) ensure_begin(frames_.size() - 1);
      return;
    }
    if (frames_.empty()) return emit(r);
    const size_t level = frames_.size() - 1;
    Frame& f = frames_.back();
    if (r.kind == RecordKind::LoopIteration) {
      if (f.buffering) end_iteration(level);
      if (!f.buffering) return deliver(level, r);  // (the iteration may have ended buffering)
      f.in_iteration = true;
      f.iter = r;
      return;
    }
    if (r.kind == RecordKind::LoopEnd) {
      if (f.buffering) {
        end_iteration(level);
        finish_chunk(level);
      }
      bool emitted = frames_.back().begin_emitted;
      frames_.pop_back();
      if (emitted) deliver(level, r);
      return;
    }
    if (!f.buffering || !f.in_iteration) return deliver(level, r);
    append(level, r);
  }

  void flush() override {
    if (!frames_.empty()) to_streaming(frames_.size() - 1);
  }

  // The output of the frame at `level`: its parent's current iteration, or downstream.
  void deliver(size_t level, const Record& r) {
    if (level == 0 || !frames_[level - 1].buffering) return emit(r);
    append(level - 1, r);
  }

  void append(size_t level, const Record& r) {
    Frame& f = frames_[level];
    f.current.push_back(r);
    if (is_loop_record(r) || !foldable(r) || f.current.size() > options().max_loop_body_records)
      to_streaming(level);
  }

  void ensure_begin(size_t level) {
    Frame& f = frames_[level];
    if (f.begin_emitted) return;
    f.begin_emitted = true;
    deliver(level, f.begin);
  }

  // The frame stops buffering (and so do the frames around it): what it holds goes out.
  void to_streaming(size_t level) {
    if (level > 0 && frames_[level - 1].buffering) to_streaming(level - 1);
    Frame& f = frames_[level];
    if (!f.buffering) return;
    ensure_begin(level);
    finish_chunk(level);
    f.buffering = false;
    if (f.in_iteration) deliver(level, f.iter);
    std::vector<Record> current = std::move(f.current);
    f.current.clear();
    for (const Record& r : current) deliver(level, r);
  }

  void end_iteration(size_t level) {
    Frame& f = frames_[level];
    if (!f.in_iteration) return;
    f.in_iteration = false;
    Iteration it{f.iter, std::move(f.current)};
    f.current.clear();
    add_iteration(level, std::move(it));
  }

  // ---- chunks of matching iterations -----------------------------------------------------------
  void add_iteration(size_t level, Iteration it) {
    Chunk& c = frames_[level].chunk;
    if (!c.iterations.empty()) {
      if (!matches(c, it)) finish_chunk(level);
      else if (c.iterations.size() == 1 && !plan(c, it)) {
        // The statements cannot stack (a block index moves, a region is rewritten...): no later
        // iteration will fold either.
        frames_[level].chunk.iterations.push_back(std::move(it));
        return to_streaming(level);
      }
    }
    Chunk& chunk = frames_[level].chunk;
    chunk.iterations.push_back(std::move(it));
    if (chunk.planned && chunk.iterations.size() >= chunk.capacity) finish_chunk(level);
  }

  void finish_chunk(size_t level) {
    Chunk chunk = std::move(frames_[level].chunk);
    frames_[level].chunk = Chunk();
    if (chunk.iterations.empty()) return;
    const uint32_t g = uint32_t(chunk.iterations.size());
    if (g >= 2 && chunk.planned && independent(chunk, g)) {
      for (size_t j = 0; j < chunk.iterations[0].records.size(); ++j) deliver(level, folded(chunk, j, g));
      return;
    }
    ensure_begin(level);
    for (Iteration& it : chunk.iterations) {
      deliver(level, it.iter);
      for (const Record& r : it.records) deliver(level, r);
    }
  }

  // A record that may be part of a folded body.
  bool foldable(const Record& r) const {
    if (r.kind == RecordKind::Alloc)
      return r.alloc.buffer != BufferKind::Hbm && !r.alloc.is_kernel_input && !r.alloc.is_kernel_output;
    if (r.kind != RecordKind::Instruction) return false;
    const auto& inst = r.inst;
    // A DMA never folds, so neither does a loop that issues one: vectorization is published for
    // instructions (LANG), and a small transfer keeps its per-transfer cost (DMABW ~1300 ns,
    // < 256 B per partition "severely overhead-bound"); the device profile of NAD V0/V1 keeps one
    // transfer per [128, 128] bf16 tile (256 B rows) inside the loops, and V2's row loads are
    // 1.36x faster with the same bytes (trainium-measurements 1.3). Adjacent transfers into one
    // tile are dma_coalescing's question, not this rule's.
    if (inst.engine == Engine::Dma) return false;
    if (inst.engine != Engine::Vector && inst.engine != Engine::Scalar && inst.engine != Engine::GpSimd)
      return false;
    for (const auto* ops : {&inst.inputs, &inst.outputs})
      for (const auto& op : *ops)
        if (op.free_elements >= options().tiny_free_elements) return false;
    return !inst.outputs.empty();
  }

  // Iteration `it` issues the template's records, each operand moved by k times its step.
  bool matches(Chunk& c, const Iteration& it) const {
    const auto& tmpl = c.iterations[0].records;
    if (tmpl.size() != it.records.size()) return false;
    const auto fresh0 = fresh_tiles(tmpl), fresh = fresh_tiles(it.records);
    const int64_t k = int64_t(c.iterations.size());
    for (size_t j = 0; j < tmpl.size(); ++j) {
      const Record &a = tmpl[j], &b = it.records[j];
      if (a.kind != b.kind) return false;
      if (a.kind == RecordKind::Alloc) {
        if (!same_alloc(a.alloc, b.alloc)) return false;
        continue;
      }
      if (!same_instruction(a.inst, b.inst)) return false;
      bool ok = true;
      for_operands(a.inst, [&](size_t o, const trn::Operand& x, bool) {
        const trn::Operand& y = operand(b.inst, o);
        if (!ok || !same_shape(x, y)) return void(ok = false);
        auto fx = fresh0.find(x.tensor_id), fy = fresh.find(y.tensor_id);
        const bool x_fresh = fx != fresh0.end() && x.buffer != BufferKind::Hbm;
        const bool y_fresh = fy != fresh.end() && y.buffer != BufferKind::Hbm;
        if (x_fresh || y_fresh) {
          ok = x_fresh && y_fresh && fx->second == fy->second && x.block == y.block &&
               x.partition_start == y.partition_start && x.offset == y.offset;
          return;
        }
        if (x.tensor_id != y.tensor_id || x.block != y.block) return void(ok = false);
        Shift s = shift_between(x, y);
        if (k == 1) return;
        ok = c.moves[j][o].shift.times(k) == s;
      });
      if (!ok) return false;
    }
    return true;
  }

  // ---- the plan: how each statement stacks --------------------------------------------------
  // Decides, from the template and the second iteration, how every operand moves and along
  // which axis each statement stacks; false when they cannot stack.
  bool plan(Chunk& c, const Iteration& second) {
    const auto& tmpl = c.iterations[0].records;
    // Allocations alone are no instructions to fold (a Python loop filling a list of PSUM
    // accumulators: one 16 KiB tile for eight banks would be no gain and no bank's tile).
    if (std::none_of(tmpl.begin(), tmpl.end(), [](const Record& r) { return r.kind == RecordKind::Instruction; }))
      return false;
    const auto fresh0 = fresh_tiles(tmpl);
    const std::vector<bool> across = needs_across(tmpl, second, fresh0);
    c.moves.assign(tmpl.size(), {});
    c.axis.assign(tmpl.size(), Axis::None);
    uint64_t capacity = options().max_fold_iterations;
    auto limit = [&](uint64_t per_iteration, uint64_t max) {
      capacity = std::min<uint64_t>(capacity, per_iteration ? max / per_iteration : capacity);
    };
    for (size_t j = 0; j < tmpl.size(); ++j) {
      const Record& r = tmpl[j];
      if (r.kind != RecordKind::Instruction) continue;
      const auto& inst = r.inst;
      auto& moves = c.moves[j];
      moves.resize(inst.inputs.size() + inst.outputs.size());
      Axis axis = Axis::None;
      bool ok = true;
      auto agree = [&](Axis a) {
        if (a == Axis::None) return;
        if (axis != Axis::None && axis != a) ok = false;
        axis = a;
      };
      for_operands(inst, [&](size_t o, const trn::Operand& x, bool write) {
        Move& m = moves[o];
        auto f = fresh0.find(x.tensor_id);
        if (f != fresh0.end() && on_chip(x)) {
          m.fresh = f->second;
          const trn::AllocInfo& a = tmpl[size_t(m.fresh)].alloc;
          // Only whole fresh tiles stack (the folded tile is their concatenation).
          if (x.partition_start != 0 || x.offset != 0 || x.partitions != a.partitions || x.block != 0 ||
              uint64_t(x.free_elements) * x.dtype_bytes != a.bytes_per_partition || run_elements(x) != x.free_elements)
            ok = false;
          agree(c.axis[size_t(m.fresh)]);
          return;
        }
        m.shift = shift_between(x, operand(second.records[j].inst, o));
        m.invariant = m.shift.zero();
        if (m.invariant) {
          if (write) ok = false;  // every iteration writes the same region
          return;
        }
        if (!on_chip(x)) return;  // HBM follows the SBUF side (below)
        if (m.shift.partitions == int64_t(x.partitions) && m.shift.elements == 0) agree(Axis::Across);
        else if (m.shift.partitions == 0 && m.shift.elements > 0) agree(Axis::Along);
        else ok = false;
      });
      if (!ok || (across[j] && axis == Axis::Along)) return false;
      // A statement on fresh tiles only: across partitions when it or a statement sharing its
      // tiles needs it, or when it is a DMA whose HBM rows continue; else along the rows.
      if (axis == Axis::None) axis = across[j] || continues_rows(inst, moves) ? Axis::Across : Axis::Along;
      c.axis[j] = axis;
      for_operands(inst, [&](size_t o, const trn::Operand& x, bool) {
        const Move& m = moves[o];
        if (m.fresh >= 0) {
          Axis& fa = c.axis[size_t(m.fresh)];
          if (fa != Axis::None && fa != axis) ok = false;
          fa = axis;
          return;
        }
        if (m.invariant) {
          if (axis == Axis::Across) ok = false;  // would need other partitions' copies
          return;
        }
        if (axis == Axis::Across) {
          if (on_chip(x)) limit(x.partitions, options().max_partitions);
          // HBM rows continue where the previous iteration's rows end.
          else if (!(x.partitions <= 1 ? m.shift.elements > 0 : m.shift.elements == int64_t(x.partitions) * x.row_stride))
            ok = false;
        } else {
          if (m.shift.elements <= 0) return void(ok = false);
          if (on_chip(x)) limit(x.free_elements, options().max_fold_free_elements);
          // HBM rows grow along themselves, within their row stride.
          else if (x.partitions > 1 && uint64_t(m.shift.elements) + row_extent(x) > uint64_t(x.row_stride))
            ok = false;
          else if (x.partitions > 1)
            capacity = std::min<uint64_t>(capacity, (uint64_t(x.row_stride) - row_extent(x)) / uint64_t(m.shift.elements) + 1);
        }
      });
      if (!ok) return false;
    }
    // Fresh tiles stack like the statements that use them.
    for (size_t j = 0; j < tmpl.size(); ++j) {
      if (tmpl[j].kind != RecordKind::Alloc) continue;
      const trn::AllocInfo& a = tmpl[j].alloc;
      if (c.axis[j] == Axis::Across) limit(a.partitions, options().max_partitions);
      else limit(a.bytes_per_partition / std::max<uint64_t>(1, dtype_of(tmpl, int(j))), options().max_fold_free_elements);
    }
    c.capacity = uint32_t(std::max<uint64_t>(capacity, 1));
    c.planned = c.capacity >= 2;
    return c.planned;
  }

  // Statements that must stack across partitions: a per-partition scalar operand (of
  // tensor_scalar or activation) that changes with the iteration cannot become a row of values,
  // so the statement, and every statement sharing a fresh tile with it, stacks across.
  static std::vector<bool> needs_across(const std::vector<Record>& tmpl, const Iteration& second,
                                        const std::unordered_map<uint32_t, int>& fresh) {
    std::vector<int> group(tmpl.size());
    for (size_t j = 0; j < group.size(); ++j) group[j] = int(j);
    auto find = [&](int j) {
      while (group[size_t(j)] != j) j = group[size_t(j)] = group[size_t(group[size_t(j)])];
      return j;
    };
    std::vector<bool> marked(tmpl.size(), false);
    for (size_t j = 0; j < tmpl.size(); ++j) {
      if (tmpl[j].kind != RecordKind::Instruction) continue;
      const auto& inst = tmpl[j].inst;
      bool scalar_moves = false;
      for_operands(inst, [&](size_t o, const trn::Operand& x, bool write) {
        auto f = fresh.find(x.tensor_id);
        const bool is_fresh = f != fresh.end() && on_chip(x);
        if (is_fresh) group[size_t(find(int(j)))] = find(f->second);
        const bool scalar = !write && o >= 1 && x.free_elements == 1 &&
                            (inst.opcode == Opcode::TensorScalar || inst.opcode == Opcode::Activation);
        if (scalar && (is_fresh || !shift_between(x, operand(second.records[j].inst, o)).zero())) scalar_moves = true;
      });
      if (scalar_moves) marked[j] = true;
    }
    std::vector<bool> root_marked(tmpl.size(), false);
    for (size_t j = 0; j < tmpl.size(); ++j)
      if (marked[j]) root_marked[size_t(find(int(j)))] = true;
    std::vector<bool> out(tmpl.size());
    for (size_t j = 0; j < tmpl.size(); ++j) out[j] = root_marked[size_t(find(int(j)))];
    return out;
  }

  // A DMA whose HBM rows (more than one) continue, iteration after iteration, right after the
  // previous iteration's rows.
  static bool continues_rows(const trn::InstructionInfo& inst, const std::vector<Move>& moves) {
    if (inst.engine != Engine::Dma) return false;
    bool rows = false;
    for_operands(inst, [&](size_t o, const trn::Operand& x, bool) {
      if (!on_chip(x) && x.partitions > 1 && moves[o].shift.elements == int64_t(x.partitions) * x.row_stride)
        rows = true;
    });
    return rows;
  }

  // Element size of a fresh tile (from an operand that uses it).
  static uint64_t dtype_of(const std::vector<Record>& records, int alloc_index) {
    const uint32_t id = records[size_t(alloc_index)].alloc.tensor_id;
    for (const Record& r : records)
      if (r.kind == RecordKind::Instruction)
        for (const auto* ops : {&r.inst.inputs, &r.inst.outputs})
          for (const auto& op : *ops)
            if (op.tensor_id == id && on_chip(op)) return op.dtype_bytes;
    return 4;
  }

  // No statement of a later iteration touches what a statement at or after it in an earlier
  // iteration touches (one of them writing): statement-major order then computes the same.
  bool independent(const Chunk& c, uint32_t g) const {
    struct Ref {
      size_t j, o;
      const trn::Operand* op;
      Shift step;
      bool write;
    };
    std::vector<Ref> refs;
    const auto& tmpl = c.iterations[0].records;
    for (size_t j = 0; j < tmpl.size(); ++j) {
      if (tmpl[j].kind != RecordKind::Instruction) continue;
      for_operands(tmpl[j].inst, [&](size_t o, const trn::Operand& x, bool write) {
        if (c.moves[j][o].fresh < 0) refs.push_back({j, o, &x, c.moves[j][o].shift, write});
      });
    }
    for (const Ref& x : refs)
      for (const Ref& y : refs) {
        // x in iteration k, y in a later iteration k + m, y's statement not after x's.
        if (y.j > x.j || !(x.write || y.write) || !same_tile(*x.op, *y.op)) continue;
        if (x.step == y.step) {
          for (uint32_t m = 1; m < g; ++m)
            if (may_overlap(*x.op, *y.op, y.step.times(m))) return false;
          continue;
        }
        for (uint32_t k = 0; k < g; ++k)
          for (uint32_t k2 = k + 1; k2 < g; ++k2) {
            Shift s{y.step.partitions * k2 - x.step.partitions * k, y.step.elements * k2 - x.step.elements * k};
            if (may_overlap(*x.op, *y.op, s)) return false;
          }
      }
    return true;
  }

  // The template's record j over g iterations.
  Record folded(const Chunk& c, size_t j, uint32_t g) {
    Record r = c.iterations[0].records[j];
    const Axis axis = c.axis[j];
    if (r.kind == RecordKind::Alloc) {
      // The later iterations' tiles are parts of the template's now: an instruction after the loop
      // that reads one (a tile kept in a Python list) reads that part.
      for (uint32_t k = 1; k < g; ++k)
        folded_tiles_[c.iterations[k].records[j].alloc.tensor_id] =
            FoldedTile{r.alloc.tensor_id, axis == Axis::Across, k, r.alloc.partitions, r.alloc.bytes_per_partition};
      if (axis == Axis::Across) r.alloc.partitions = uint16_t(r.alloc.partitions * g);
      else r.alloc.bytes_per_partition *= g;
    } else {
      for_operands(c.iterations[0].records[j].inst, [&](size_t o, const trn::Operand& x, bool) {
        const Move& m = c.moves[j][o];
        trn::Operand& out = operand(r.inst, o);
        if (m.invariant) return;
        if (m.fresh >= 0) {
          out = axis == Axis::Across ? stack_across_rows(x, x.partitions, g) : stack_along_rows(x, x.free_elements, g);
          return;
        }
        out = axis == Axis::Across ? stack_across_rows(x, m.shift.elements, g) : stack_along_rows(x, m.shift.elements, g);
      });
      r.inst.flops *= g;
    }
    mark(r);
    count_removed(g - 1);
    return r;
  }

  bool names_folded_tile(const Record& r) const {
    if (folded_tiles_.empty() || r.kind != RecordKind::Instruction) return false;
    for (const auto* ops : {&r.inst.inputs, &r.inst.outputs})
      for (const auto& op : *ops)
        if (on_chip(op) && folded_tiles_.count(op.tensor_id)) return true;
    return false;
  }

  // A record whose operands name a tile that was folded into another, naming its part instead.
  Record renamed(const Record& in) const {
    Record r = in;
    for (auto* ops : {&r.inst.inputs, &r.inst.outputs})
      for (auto& op : *ops) {
        auto it = folded_tiles_.find(op.tensor_id);
        if (it == folded_tiles_.end() || !on_chip(op)) continue;
        const FoldedTile& f = it->second;
        op.tensor_id = f.into;
        if (f.across) op.partition_start = uint16_t(op.partition_start + f.part * f.partitions);
        else op.offset += int64_t(f.part * f.bytes_per_partition / std::max<uint32_t>(1, op.dtype_bytes));
      }
    return r;
  }

  // A tile allocated by a folded iteration: part `part` of tile `into`, stacked across partitions
  // (`partitions` per part) or along the rows (`bytes_per_partition` per part).
  struct FoldedTile {
    uint32_t into = 0;
    bool across = false;
    uint32_t part = 0;
    uint32_t partitions = 0;
    uint64_t bytes_per_partition = 0;
  };
  std::unordered_map<uint32_t, FoldedTile> folded_tiles_;
  std::vector<Frame> frames_;
};

}  // namespace

std::unique_ptr<Stage> make_loop_folding(trn::TraceSink& next, Shared& shared) {
  return std::make_unique<LoopFolding>(next, shared);
}

}  // namespace lower
