// Rule psum_copies: the PSUM<->SBUF copies the compiler inserts.
//
// The Tensor Engine reads SBUF only and writes PSUM only (ARCH2, ISA nc_matmul); DMA moves
// HBM<->SBUF and SBUF<->SBUF, not PSUM (ARCH2, DMAO); GpSimd cannot access PSUM (ARCH2). The trace records each instruction as the
// kernel wrote it, so a kernel may
//   - assign a Tensor Engine result into SBUF (`sbuf_tile[...] = nisa.nc_transpose(x)`, or
//     `acc_sbuf += nl.matmul(...)`): the instruction writes a fresh PSUM tile, then a copy
//     (or, for +=, a VectorE add) moves it into the SBUF destination;
//   - pass a PSUM tile where SBUF is needed (a PSUM transpose result as `stationary` or `moving`
//     of nc_matmul, `nl.store` of a PSUM tile, documented in LANG store, PSUM scores given to
//     nisa.affine_select, which runs on GpSimd): a copy to a fresh SBUF tile comes first and the
//     instruction reads it;
//   - DMA into a PSUM tile: the transfer lands in a fresh SBUF tile and a copy follows.
// A partition broadcast (`tile.broadcast_to((P, F))`) is such a case: LANG documents its result
// as a new SBUF tile made by a Tensor Engine matmul with a ones vector. A result wider than one
// PSUM bank goes through PSUM in bank-sized pieces (bank_pieces), each copied to SBUF. A
// broadcast that fits one bank stays in PSUM while its readers can read PSUM: VectorE and
// ScalarE read PSUM (ARCH2), at most one PSUM input per VectorE instruction (ISA tensor_tensor),
// and a tensor_tensor with one PSUM input costs N cycles instead of 2N (ISA). The copy is
// emitted only when a reader that cannot (TensorE, DMA, GpSimd, a second PSUM input, another
// slice of the tile) comes, just before it; if none comes, there is no copy. Evidence: the
// Mamba tutorial's VectorE time (trainium-measurements 1.7): v2 at seq 512 runs at 1.6 ms with
// VectorE 99.6% active, which its five 2N instructions per (tile, state) cannot fit, and v2's
// efficiency drops once the broadcast row is wider than a bank (seq 1024: 4.4 ms against v3's
// 3.3 ms with 512-column chunks).
// Evidence: LANG `nl.store` ("a PSUM tile ... gets an extra copy to SBUF first"); the public
// kernels that ran on the device with `sbuf[...] = nc_transpose(...)` (issue 11). What is not
// published: which engine runs the inserted copy (the cost model places PSUM-reading copies,
// trn::placed_engine) and whether the compiler reuses one PSUM tile for several copies (here
// each copy gets a fresh one-bank tile, fp32).
//
// This rule is legalization, not an optimization, so it also runs under
// @nki.compiler.skip_middle_end_transformations.
#include "lower/rules.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "lower/footprint.h"

namespace lower {
namespace {

bool pe(const trn::InstructionInfo& inst) { return inst.engine == Engine::Tensor; }
bool dma(const trn::InstructionInfo& inst) { return inst.engine == Engine::Dma; }
bool gpsimd(const trn::InstructionInfo& inst) { return inst.engine == Engine::GpSimd; }

class PsumCopies : public Stage {
 public:
  PsumCopies(trn::TraceSink& next, Shared& shared) : Stage(Rule::PsumCopies, false, next, shared) {}

 private:
  void on_record(const Record& r) override {
    if (r.kind != trn::RecordKind::Instruction) return emit(r);
    if (!deferred_.empty()) {
      Record routed = r;
      if (route_deferred(routed)) {
        if (!needs_copies(routed.inst)) return emit_changed(std::move(routed));
        return on_instruction(routed);
      }
    }
    if (!needs_copies(r.inst)) return emit(r);
    on_instruction(r);
  }

  // Broadcasts never read from SBUF need no copy.
  void flush() override { deferred_.clear(); }

  void on_instruction(const Record& r) {
    Record inst = r;
    for (auto& in : inst.inst.inputs)
      if (in.buffer == BufferKind::Psum) in = copy_to_sbuf(r, in);
    if (gpsimd(r.inst)) return emit_changed(std::move(inst));  // its PSUM inputs now read SBUF copies
    if (dma(r.inst)) {
      // A DMA into PSUM lands in SBUF, then a copy moves it.
      std::vector<Record> after;
      for (auto& out : inst.inst.outputs)
        if (out.buffer == BufferKind::Psum) out = sbuf_landing(r, out, after);
      emit_changed(std::move(inst));
      for (auto& a : after) emit_changed(std::move(a));
      return;
    }
    if (r.inst.outputs.size() != 1 || r.inst.outputs[0].buffer != BufferKind::Sbuf)
      return emit_changed(std::move(inst));
    // A Tensor Engine result bound for SBUF: through PSUM, one bank at a time.
    const std::vector<Record> pieces = bank_pieces(inst);
    if (r.inst.opcode == Opcode::Broadcast && pieces.size() == 1 && !r.inst.accumulate) {
      // Stays in PSUM; the copy waits for a reader that needs SBUF.
      Record pe_part = inst;
      std::vector<Record> after;
      pe_part.inst.outputs[0] = psum_result(inst, inst.inst.outputs[0], after);
      emit_changed(std::move(pe_part));
      deferred_[tile(inst.inst.outputs[0])] = {inst.inst.outputs[0], after.front().inst.inputs[0], after.front()};
      return;
    }
    for (const Record& piece : pieces) {
      Record pe_part = piece;
      std::vector<Record> after;
      pe_part.inst.outputs[0] = psum_result(piece, piece.inst.outputs[0], after);
      pe_part.inst.accumulate = false;  // the PE writes a fresh PSUM tile; the add accumulates
      emit_changed(std::move(pe_part));
      for (auto& a : after) emit_changed(std::move(a));
    }
  }

  // A result wider than a PSUM bank (2 KiB of fp32 per partition, ARCH2) is computed in
  // bank-sized pieces when the instruction is elementwise along the rows (a partition broadcast
  // is a matmul with a ones row, ARCH2, one matmul per 512 columns); a matmul's moving side is
  // already limited to one bank.
  std::vector<Record> bank_pieces(const Record& r) const {
    const trn::Operand& out = r.inst.outputs[0];
    const uint32_t bank = options().psum_bank_bytes / 4;
    bool elementwise = true;
    for (const auto& in : r.inst.inputs) elementwise &= in.free_elements == out.free_elements;
    if (out.free_elements <= bank || !elementwise) return {r};
    std::vector<Record> pieces;
    for (uint32_t start = 0; start < out.free_elements; start += bank) {
      const uint32_t n = std::min(bank, out.free_elements - start);
      Record p = r;
      for (auto* ops : {&p.inst.inputs, &p.inst.outputs})
        for (auto& op : *ops) op = slice_along_rows(op, start, n);
      p.inst.flops = r.inst.flops * n / out.free_elements;
      if (p.inst.matmul_moving_cols) p.inst.matmul_moving_cols = n;
      if (p.inst.matmul_stationary_cols == out.free_elements) p.inst.matmul_stationary_cols = n;
      pieces.push_back(std::move(p));
    }
    return pieces;
  }

  // Reads of a broadcast still in PSUM: the reader takes the PSUM tile where it can, else the
  // copy is emitted first. A write to the tile ends the deferral (after the copy, unless the
  // write replaces the whole broadcast). Returns whether `r` was changed.
  bool route_deferred(Record& r) {
    const bool reads_psum = r.inst.engine == Engine::Vector || r.inst.engine == Engine::Scalar;
    int psum_inputs = 0;
    for (const auto& in : r.inst.inputs) psum_inputs += in.buffer == BufferKind::Psum;
    bool changed = false;
    for (auto& in : r.inst.inputs) {
      auto it = in.buffer == BufferKind::Sbuf ? deferred_.find(tile(in)) : deferred_.end();
      if (it == deferred_.end()) continue;
      if (reads_psum && psum_inputs == 0 && same_access(in, it->second.sbuf)) {
        in = it->second.psum;
        ++psum_inputs;
        changed = true;
      } else {
        release(it, true);
      }
    }
    for (const auto& out : r.inst.outputs) {
      auto it = out.buffer == BufferKind::Sbuf ? deferred_.find(tile(out)) : deferred_.end();
      if (it != deferred_.end()) release(it, !same_access(out, it->second.sbuf));
    }
    return changed;
  }

  struct Deferred {
    trn::Operand sbuf;  // where the kernel put the broadcast
    trn::Operand psum;  // where it is
    Record copy;        // PSUM -> SBUF, emitted if a reader needs SBUF
  };

  void release(std::unordered_map<uint64_t, Deferred>::iterator it, bool copy) {
    if (copy) emit_changed(std::move(it->second.copy));
    deferred_.erase(it);
  }

  static bool same_access(const trn::Operand& a, const trn::Operand& b) {
    return a.block == b.block && a.partition_start == b.partition_start && a.partitions == b.partitions &&
           a.free_elements == b.free_elements && a.offset == b.offset && a.dtype_bytes == b.dtype_bytes;
  }

  // By SBUF tile: a block of a block-dimension tensor is a tile of its own, so a kernel that keeps
  // its tiles as blocks of one buffer (`tmp[i, 1] = broadcast; tmp[i, 2] = tmp[i, 1] * x`) defers
  // the copy like one that names each tile (the legacy_grid mamba after chunking its rows
  // simulated 1.834 ms against 1.566 ms, a copy per broadcast more, before).
  static uint64_t tile(const trn::Operand& o) { return (uint64_t(o.tensor_id) << 32) | o.block; }
  std::unordered_map<uint64_t, Deferred> deferred_;

  static bool needs_copies(const trn::InstructionInfo& inst) {
    if (gpsimd(inst)) {
      for (const auto& in : inst.inputs)
        if (in.buffer == BufferKind::Psum) return true;
      return false;
    }
    if (!pe(inst) && !dma(inst)) return false;
    for (const auto& in : inst.inputs)
      if (in.buffer == BufferKind::Psum) return true;
    for (const auto& out : inst.outputs)
      if (out.buffer == (pe(inst) ? BufferKind::Sbuf : BufferKind::Psum)) return true;
    return false;
  }

  // The SBUF tile a DMA writes instead of a PSUM destination, with the copy into it appended.
  trn::Operand sbuf_landing(const Record& r, const trn::Operand& psum, std::vector<Record>& after) {
    Record a = alloc(BufferKind::Sbuf, psum, psum.dtype_bytes, r.line, r.seq);
    trn::Operand landing = whole_tile(a, psum, psum.dtype_bytes, psum.fp32);
    emit_changed(a);
    after.push_back(instruction(Opcode::TensorCopy, r, {landing}, {psum}));
    return landing;
  }

  Record alloc(BufferKind buffer, const trn::Operand& like, uint8_t dtype_bytes, uint32_t line, uint64_t seq) {
    Record a;
    a.kind = trn::RecordKind::Alloc;
    a.seq = seq;
    a.line = line;
    a.alloc.tensor_id = new_tensor_id();
    a.alloc.buffer = buffer;
    a.alloc.partitions = like.partitions;
    a.alloc.bytes_per_partition = uint64_t(like.free_elements) * dtype_bytes;
    a.alloc.name = buffer == BufferKind::Psum ? "psum_result" : "sbuf_copy";
    return a;
  }

  // A whole fresh tile of `like`'s shape.
  static trn::Operand whole_tile(const Record& a, const trn::Operand& like, uint8_t dtype_bytes, bool fp32) {
    trn::Operand op;
    op.buffer = a.alloc.buffer;
    op.tensor_id = a.alloc.tensor_id;
    op.partitions = like.partitions;
    op.free_elements = like.free_elements;
    op.dtype_bytes = dtype_bytes;
    op.fp32 = fp32;
    // The format of `like` when it has the same one (a PSUM copy of a bf16 tile is bf16).
    op.elem = dtype_bytes == like.dtype_bytes && fp32 == like.fp32 ? like.elem
              : fp32 && dtype_bytes == 4                          ? trn::ElemType::F32
                                                                  : trn::ElemType::Unset;
    op.contiguous_bytes = like.free_elements * dtype_bytes;
    op.descriptors = like.partitions;
    op.extent = like.free_elements;
    return op;
  }

  static Record instruction(Opcode opcode, const Record& from, std::vector<trn::Operand> in,
                            std::vector<trn::Operand> out) {
    Record r;
    r.kind = trn::RecordKind::Instruction;
    r.seq = from.seq;
    r.line = from.line;
    r.inst.opcode = opcode;
    r.inst.engine = Engine::Vector;  // the compiler's choice (see trn::placed_engine)
    r.inst.inputs = std::move(in);
    r.inst.outputs = std::move(out);
    return r;
  }

  // Emits an SBUF copy of a PSUM operand and returns the operand to read instead.
  trn::Operand copy_to_sbuf(const Record& r, const trn::Operand& psum) {
    Record a = alloc(BufferKind::Sbuf, psum, psum.dtype_bytes, r.line, r.seq);
    trn::Operand copy = whole_tile(a, psum, psum.dtype_bytes, psum.fp32);
    emit_changed(a);
    emit_changed(instruction(Opcode::TensorCopy, r, {psum}, {copy}));
    return copy;
  }

  // The PSUM tile a Tensor Engine result goes to, with the copy (or add) into the SBUF
  // destination appended to `after`.
  trn::Operand psum_result(const Record& r, const trn::Operand& sbuf, std::vector<Record>& after) {
    Record a = alloc(BufferKind::Psum, sbuf, 4, r.line, r.seq);
    trn::Operand psum = whole_tile(a, sbuf, 4, true);
    emit_changed(a);
    if (r.inst.accumulate) {
      Record add = instruction(Opcode::TensorTensor, r, {sbuf, psum}, {sbuf});
      add.inst.accumulate = true;
      add.inst.alu = trn::AluOp::Add;
      add.inst.flops = uint64_t(sbuf.partitions) * sbuf.free_elements;
      after.push_back(std::move(add));
    } else {
      after.push_back(instruction(Opcode::TensorCopy, r, {psum}, {sbuf}));
    }
    return psum;
  }
};

}  // namespace

std::unique_ptr<Stage> make_psum_copies(trn::TraceSink& next, Shared& shared) {
  return std::make_unique<PsumCopies>(next, shared);
}

}  // namespace lower
