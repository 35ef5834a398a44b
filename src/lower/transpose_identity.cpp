// Rule transpose_identity: a Tensor Engine transpose runs as what it is, a matmul against an
// identity the compiler makes.
//
// `nisa.nc_transpose` on the Tensor Engine (and the transposes nl.matmul and nl.transpose issue)
// is "a matmul with an identity" (ARCH2: PF-transpose = matmul with identity; ISA nc_transpose),
// and the ISA's `nc_matmul(x, identity, is_moving_onezero=True, is_transpose=True)` is the same
// instruction spelt by the kernel, whose ones-and-zeros hint "may give 2x better performance when
// that operand is FP32" (ISA nc_matmul). The identity is ones and zeros whoever makes it, so the
// compiler's transpose streams like the hinted matmul: an fp32 transpose at 2x its bf16 cycles,
// not 4x. On NC-v3 ARCH3 publishes the same 2x for fp32 transposes ("transpose mode"). Without
// this rule the same transpose simulated 2x slower when spelt nc_transpose (the nki_api style of
// NKIBench: gqa_full 1.076x its bundled kernel, docs/simulator.md "Known errors").
//
// The record gains the identity as its moving operand (an SBUF tile of the data's element type,
// [P, P] for P partitions of data) and the ones-and-zeros flag; the identity is generated once per
// element type on GpSimd (an affine_select over a fresh tile, as nl.shared_identity_matrix's
// iota/select would), before the first transpose that needs it. Not published: how the compiler
// makes its identity (generated or a constant loaded by DMA) and whether it marks it; either way
// it is ones and zeros, which is what the flag says.
//
// Legalization-like (how the instruction runs, not an optimization): on under
// @nki.compiler.skip_middle_end_transformations too.
#include "lower/rules.h"

#include <map>
#include <utility>

namespace lower {
namespace {

class TransposeIdentity : public Stage {
 public:
  TransposeIdentity(trn::TraceSink& next, Shared& shared) : Stage(Rule::TransposeIdentity, false, next, shared) {}

 private:
  // A transpose the kernel did not give an identity: the data is its only input.
  static bool implicit_identity(const trn::InstructionInfo& inst) {
    return inst.engine == Engine::Tensor && inst.opcode == Opcode::Transpose && inst.inputs.size() == 1 &&
           inst.outputs.size() == 1 && inst.inputs[0].buffer != BufferKind::Hbm;
  }

  void on_record(const Record& r) override {
    if (r.kind != RecordKind::Instruction || !implicit_identity(r.inst)) return emit(r);
    const trn::Operand& data = r.inst.inputs[0];
    Record rewritten = r;
    rewritten.inst.inputs.push_back(identity(r, data));
    rewritten.inst.moving_onezero = true;
    if (rewritten.inst.matmul_moving_cols == 0) {
      // The matmul's shape: K = data partitions, M = data columns, N = the identity's columns.
      rewritten.inst.matmul_rows = data.partitions;
      rewritten.inst.matmul_stationary_cols = data.free_elements;
      rewritten.inst.matmul_moving_cols = data.partitions;
    }
    emit_changed(std::move(rewritten));
  }

  // The identity operand for `data` ([P, P] of its element type), made on first use.
  trn::Operand identity(const Record& r, const trn::Operand& data) {
    const std::pair<uint8_t, bool> type{data.dtype_bytes, data.fp32};
    auto it = identities_.find(type);
    if (it == identities_.end()) {
      const uint32_t id = new_tensor_id();
      Record alloc;
      alloc.kind = RecordKind::Alloc;
      alloc.line = r.line;
      alloc.alloc.tensor_id = id;
      alloc.alloc.buffer = BufferKind::Sbuf;
      alloc.alloc.partitions = kPartitions;
      alloc.alloc.bytes_per_partition = uint64_t(kPartitions) * data.dtype_bytes;
      alloc.alloc.name = "identity";
      emit_changed(std::move(alloc));
      it = identities_.emplace(type, id).first;
      Record make;
      make.kind = RecordKind::Instruction;
      make.line = r.line;
      make.inst.opcode = Opcode::Select;
      make.inst.engine = Engine::GpSimd;
      make.inst.outputs.push_back(operand(id, kPartitions, data));
      emit_changed(std::move(make));
    }
    return operand(it->second, data.partitions, data);
  }

  // [partitions, partitions] of the identity tile `id`, in the element type of `data`.
  static trn::Operand operand(uint32_t id, uint16_t partitions, const trn::Operand& data) {
    trn::Operand o;
    o.buffer = BufferKind::Sbuf;
    o.tensor_id = id;
    o.partitions = partitions;
    o.free_elements = partitions;
    o.dtype_bytes = data.dtype_bytes;
    o.fp32 = data.fp32;
    o.elem = data.elem;
    o.contiguous_bytes = uint32_t(partitions) * data.dtype_bytes;
    o.extent = partitions;
    return o;
  }

  static constexpr uint16_t kPartitions = 128;
  std::map<std::pair<uint8_t, bool>, uint32_t> identities_;  // element type -> identity tile
};

}  // namespace

std::unique_ptr<Stage> make_transpose_identity(trn::TraceSink& next, Shared& shared) {
  return std::make_unique<TransposeIdentity>(next, shared);
}

}  // namespace lower
