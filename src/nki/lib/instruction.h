// Building one hardware instruction: operands, mask, numerics over the active region, and the
// trace record. Every nl.* / nisa.* API is written as
//
//   Instruction ins("nl.add", trn::Opcode::TensorTensor, trn::Engine::Vector, space, mask);
//   tensor::Array a = ins.input(x), b = ins.input(y);       // bounds-checked over the mask box
//   tensor::Array r; if (ins.computing()) r = tensor::binary(...);
//   return ins.result(dtype, trn::BufferKind::Sbuf, r);      // fresh tile (or ins.output_to(dst))
//
// The instruction's iteration space is its output shape; the mask restricts it to a box (plus
// an element test for multi-axis constraints), and operands are read only over that box.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "nki/lib/kernel_context.h"
#include "nki/lib/nki_tensor.h"

namespace nki::lib {

class Instruction {
 public:
  Instruction(std::string_view api, trn::Opcode op, trn::Engine engine, tensor::Shape space,
              std::shared_ptr<const Predicate> mask);

  bool computing() const { return ctx_.numerics && !region_.box.empty(); }
  const tensor::Shape& space() const { return space_; }
  const Box& box() const { return region_.box; }
  const MaskRegion& region() const { return region_; }
  // The trace fields of the instruction (nullptr when not tracing).
  trn::InstructionInfo* info() { return record_ ? &record_->inst : nullptr; }

  // Restricts the instruction to a region already computed (assignment of a masked result).
  void restrict_to(const MaskRegion& region) { region_ = region; }
  // An instruction whose engine the API fixes (nisa.affine_select runs on GpSimd) may still be
  // given a PSUM input: the compiler copies it to SBUF first (the fused-attention tutorial passes
  // the PSUM scores), so only outputs are held to the engine's reach. The trace keeps the PSUM
  // operand as written.
  void psum_inputs_copied_by_compiler() { psum_inputs_copied_ = true; }
  // nisa.dma_copy(oob_mode=nisa.oob_mode.skip): an out-of-bounds indirect index skips its row
  // instead of raising.
  void skip_out_of_bounds_indices() { oob_skip_ = true; }

  // Adds `t` (shape broadcastable to the space after padding with trailing unit axes) as an
  // input; returns its elements over the active region (empty when not computing).
  tensor::Array input(const NkiTensorObj& t);
  // An input whose index space is not the instruction's (matmul operands, reduce inputs):
  // the caller gives the region of `t` that is read.
  tensor::Array input_box(const NkiTensorObj& t, const Box& box);
  // Output into a fresh tile of the space's shape; `values` has the box's shape.
  Value result(tensor::DType dtype, trn::BufferKind buffer, const tensor::Array& values);
  // Output into a fresh tile whose shape differs from the iteration space (reductions):
  // `box` is the region of `shape` that `values` covers.
  Value result_shaped(const tensor::Shape& shape, const Box& box, tensor::DType dtype, trn::BufferKind buffer,
                      const tensor::Array& values);
  // Output into an existing view (destination-first API, accumulate=...).
  void output_to(const NkiTensorObj& dst, const tensor::Array& values, bool accumulate);

 private:
  // GpSimd has no path to PSUM (nki-language.md, trainium-performance.md): a compile error.
  void check_engine_reaches(trn::BufferKind buffer) const;

  // Indirect DMA (indirect_access.cpp): views indexed by an index tile, one row per partition.
  struct IndexedRow {
    NkiTensorObj row;  // the view with the partition's index applied
    Box box;           // that partition's part of the instruction box
  };
  void check_indirect_allowed() const;
  // Traces the access (and the index tile read), checks each index; the rows to move.
  std::vector<IndexedRow> indirect_rows(const NkiTensorObj& t, const Box& box, bool written);
  tensor::Array input_indirect(const NkiTensorObj& t, const Box& box);
  void output_indirect(const NkiTensorObj& dst, const tensor::Array& values, bool accumulate);

  std::string_view api_;
  trn::Opcode opcode_;
  trn::Engine engine_;
  KernelContext& ctx_;
  tensor::Shape space_;
  MaskRegion region_;
  trn::Record* record_ = nullptr;
  bool psum_inputs_copied_ = false;
  bool oob_skip_ = false;
};

// An array value for "no numerics" (trace-only mode): shape-only, so no buffer is allocated.
inline tensor::Array no_values() {
  static const tensor::Array empty = tensor::Array::shape_only({}, tensor::DType::Float32);
  return empty;
}

// ---- argument helpers shared by the modules -------------------------------------------------------
// An on-chip tile argument (SBUF/PSUM view whose dim 0 is the partition dim); Rule errors otherwise.
NkiTensorObj& tile_arg(const Value& v, std::string_view api, std::string_view what);
// An HBM tensor or view argument.
NkiTensorObj& hbm_arg(const Value& v, std::string_view api, std::string_view what);
// A scalar operand: Python number or numpy scalar; nullopt for anything else.
std::optional<double> scalar_arg(const Value& v);
// Operand shapes of an element-wise op, partition-aligned: lower-rank shapes are padded with
// trailing 1s, then numpy broadcasting applies.
tensor::Shape partition_broadcast(const tensor::Shape& a, const tensor::Shape& b, std::string_view api);
// Partition dim <= 128 of an on-chip tile shape.
void check_partition_limit(const tensor::Shape& shape, std::string_view api);
// A view of `t` padded with trailing unit axes to `rank` dims.
NkiTensorObj padded(const NkiTensorObj& t, int rank);
// `padded(t, rank)` without the copy when `t` already has `rank` dims or more (the common case
// on the hot path: copying a tensor object copies its view vectors and bumps the storage count).
class PaddedRef {
 public:
  PaddedRef(const NkiTensorObj& t, int rank) : ptr_(&t) {
    if (t.view.ndim() < rank) ptr_ = &owned_.emplace(padded(t, rank));
  }
  PaddedRef(const PaddedRef&) = delete;
  PaddedRef& operator=(const PaddedRef&) = delete;
  const NkiTensorObj& operator*() const { return *ptr_; }
  const NkiTensorObj* operator->() const { return ptr_; }

 private:
  std::optional<NkiTensorObj> owned_;
  const NkiTensorObj* ptr_;
};
// The dtype argument (None -> dflt).
tensor::DType dtype_arg(const Value& v, tensor::DType dflt, std::string_view api);

}  // namespace nki::lib
