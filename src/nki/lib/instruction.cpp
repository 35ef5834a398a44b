#include "nki/lib/instruction.h"

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "trn/tile_limits.h"

namespace nki::lib {

Instruction::Instruction(std::string_view api, trn::Opcode op, trn::Engine engine, tensor::Shape space,
                         std::shared_ptr<const Predicate> mask)
    : api_(api), opcode_(op), engine_(engine), ctx_(KernelContext::current()), space_(std::move(space)),
      region_(mask_region(mask.get(), space_)) {
  record_ = ctx_.begin_instruction(op, engine);
  if (record_) record_->line = current_line(ctx_);
}

tensor::Array Instruction::input(const NkiTensorObj& t) {
  PaddedRef src(t, int(space_.size()));
  const tensor::Shape& shape = src->view.shape;
  if (shape.size() != space_.size())
    throw NkiError(ErrorKind::Value, fmt::format("operand of shape {} does not fit the instruction shape {} ({})",
                                                 tensor::shape_str(shape), tensor::shape_str(space_), api_));
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] != space_[k] && shape[k] != 1)
      throw NkiError(ErrorKind::Value, fmt::format("operand of shape {} does not match the instruction shape {} ({})",
                                                   tensor::shape_str(shape), tensor::shape_str(space_), api_));
  // Boxes are inline (no allocation), so a local is cheaper than a thread_local (TLS lookup).
  Box box;
  operand_box_into(shape, space_, region_.box, box);
  return input_box(*src, box);
}

void Instruction::check_engine_reaches(trn::BufferKind buffer) const {
  if (engine_ == trn::Engine::GpSimd && buffer == trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, fmt::format("the GpSimd engine cannot access PSUM ({}); run it on the Vector or "
                                                "Scalar engine, or copy the tile to SBUF first", api_));
}

tensor::Array Instruction::input_box(const NkiTensorObj& t, const Box& box) {
  if (t.indirect) return input_indirect(t, box);
  if (!(psum_inputs_copied_ && t.storage->buffer == trn::BufferKind::Psum)) check_engine_reaches(t.storage->buffer);
  ctx_.note_format(t.storage->dtype, api_);
  if (box.empty()) return no_values();
  t.view.check_bounds(t.storage->shape, box, api_);
  if (record_) record_->inst.inputs.push_back(make_operand(t, box));
  if (!ctx_.numerics) return no_values();
  return read_region(t, box);
}

Value Instruction::result(tensor::DType dtype, trn::BufferKind buffer, const tensor::Array& values) {
  check_partition_limit(space_, api_);
  check_engine_reaches(buffer);
  ctx_.note_format(dtype, api_);
  int64_t free_bytes = tensor::itemsize(dtype);
  for (size_t k = 1; k < space_.size(); ++k) free_bytes *= space_[k];
  if (buffer == trn::BufferKind::Psum && free_bytes > trn::limits::psum_bank_bytes)
    throw NkiError(ErrorKind::Rule, fmt::format("PSUM tile of shape {} needs {} bytes per partition, more than "
                                                "the 2 KiB of a PSUM bank ({})",
                                                tensor::shape_str(space_), free_bytes, api_));
  auto storage = new_storage(space_, dtype, buffer, 0);
  auto obj = std::make_shared<NkiTensorObj>(storage, AffineView::whole(space_));
  obj->produced_by = opcode_;
  obj->produced_on = engine_;
  if (computing()) write_region(*obj, region_.box, values, &region_);
  bool masked = region_.residual || !region_.box.covers(space_);
  if (masked) obj->written = region_;
  if (record_) record_->inst.outputs.push_back(make_operand(*obj, region_.box));
  ctx_.end_instruction(obj.get(), storage.get());
  return Value(obj);
}

Value Instruction::result_shaped(const tensor::Shape& shape, const Box& box, tensor::DType dtype,
                                 trn::BufferKind buffer, const tensor::Array& values) {
  check_partition_limit(shape, api_);
  check_engine_reaches(buffer);
  ctx_.note_format(dtype, api_);
  auto storage = new_storage(shape, dtype, buffer, 0);
  auto obj = std::make_shared<NkiTensorObj>(storage, AffineView::whole(shape));
  obj->produced_by = opcode_;
  obj->produced_on = engine_;
  if (computing()) write_region(*obj, box, values, nullptr);
  if (!box.covers(shape)) {
    MaskRegion written;
    written.box = box;
    written.space_ndim = int(shape.size());
    obj->written = written;
  }
  if (record_) record_->inst.outputs.push_back(make_operand(*obj, box));
  ctx_.end_instruction(obj.get(), storage.get());
  return Value(obj);
}

void Instruction::output_to(const NkiTensorObj& dst, const tensor::Array& values, bool accumulate) {
  PaddedRef padref(dst, int(space_.size()));
  const NkiTensorObj& pad = *padref;
  if (pad.indirect) return output_indirect(pad, values, accumulate);
  check_engine_reaches(pad.storage->buffer);
  ctx_.note_format(pad.storage->dtype, api_);
  if (pad.view.shape != space_)
    throw NkiError(ErrorKind::Value, fmt::format("destination of shape {} does not match the result shape {} ({})",
                                                 tensor::shape_str(dst.shape()), tensor::shape_str(space_), api_));
  pad.view.check_bounds(pad.storage->shape, region_.box, api_);
  pad.storage->written = true;
  if (computing()) {
    if (accumulate) {
      tensor::Array old = read_region(pad, region_.box);
      write_region(pad, region_.box,
                   tensor::binary(tensor::BinaryOp::Add, old, values, tensor::DType::Float32, pad.dtype()),
                   &region_);
    } else {
      write_region(pad, region_.box, values, &region_);
    }
  }
  if (record_) {
    record_->inst.outputs.push_back(make_operand(pad, region_.box));
    record_->inst.accumulate = record_->inst.accumulate || accumulate;
  }
  ctx_.end_instruction(nullptr, nullptr);
}

// ---- argument helpers -----------------------------------------------------------------------------
NkiTensorObj& tile_arg(const Value& v, std::string_view api, std::string_view what) {
  auto* t = v.as<NkiTensorObj>();
  if (!t) {
    // A comparison of index grids (`i * 128 + ip >= jf`) is a mask predicate, not data: it selects
    // through mask= or nisa.affine_select, never as a tile operand.
    std::string hint = v.type_name() == "Predicate"
                           ? " (a comparison of index grids is a mask predicate: pass it as mask=, or select with "
                             "nisa.affine_select(pred, on_true_tile, on_false_value))"
                           : "";
    throw NkiError(ErrorKind::Type,
                   fmt::format("{} of {} must be an on-chip tile, got {}{}", what, api, v.type_name(), hint));
  }
  if (!t->on_chip())
    throw NkiError(ErrorKind::Rule, fmt::format("err_unsupported_memory: expected {} of {} to be in 'sbuf|psum', "
                                                "got 'hbm'", what, api));
  const TensorStorage& st = *t->storage;
  const AffineView& view = t->view;
  // Over the internal axes (the digits of a view indexed with // and %): the first view axis
  // owns the first `lead` of them.
  int axes = view.axes(), lead = view.split() ? view.parts[0] : 1;
  auto extent = [&](int k) { return view.split() ? view.digits[size_t(k)] : view.shape[size_t(k)]; };
  bool block_free = true;
  for (int d = 0; d < st.partition_axis; ++d)
    for (int k = 0; k < axes; ++k)
      if (view.c(d, k) != 0 && extent(k) > 1) block_free = false;
  // The partition dim must be walked by the first view axis alone. And the tile's first dim must be
  // the partition dim: a view whose first dim walks a free dim while an integer fixed the partition
  // (`w[k]` on a (KT, 128, N) load, whose partitions are the KT rows) has its data in one partition,
  // not spread over the first dim's (two outside authors' first drafts ran here as 128-partition
  // matmul operands).
  bool partition_first = true, lead_walks_partition = false;
  int64_t lead_extent = 1;
  for (int k = 0; k < axes; ++k) {
    const bool walks_partition = view.c(st.partition_axis, k) != 0 && extent(k) > 1;
    if (k >= lead) {
      if (walks_partition) partition_first = false;
      continue;
    }
    lead_extent *= extent(k);
    lead_walks_partition |= walks_partition;
  }
  if (view.ndim() >= 2 && lead_extent > 1 && !lead_walks_partition)
    throw NkiError(ErrorKind::Rule, fmt::format("err_failed_to_infer_tile_from_local_tensor: {} of {} (shape {}) is "
                                                "not a tile: an integer index fixed the partition dimension of its "
                                                "tensor (shape {}), so its first dimension is a free one; lay the data "
                                                "out with the partition dimension first",
                                                what, api, tensor::shape_str(view.shape), tensor::shape_str(st.shape)));
  if (!block_free || !partition_first || view.ndim() == 0)
    throw NkiError(ErrorKind::Rule, fmt::format("err_failed_to_infer_tile_from_local_tensor: {} of {} (shape {}) is "
                                                "not a tile; index the block dimensions away so that the partition "
                                                "dimension comes first", what, api, tensor::shape_str(view.shape)));
  check_partition_limit(view.shape, api);
  return *t;
}

NkiTensorObj& hbm_arg(const Value& v, std::string_view api, std::string_view what) {
  auto* t = v.as<NkiTensorObj>();
  if (!t)
    throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be an HBM tensor, got {}", what, api, v.type_name()));
  if (t->on_chip())
    throw NkiError(ErrorKind::Rule, fmt::format("err_unsupported_memory: expected {} of {} to be in 'hbm', got '{}'",
                                                what, api, trn::to_string(t->storage->buffer)));
  return *t;
}

std::optional<double> scalar_arg(const Value& v) {
  if (v.is_number()) return v.as_float();
  if (auto* a = v.as<NdArrayObj>(); a && a->array.size() == 1 && a->array.has_data()) return a->array.item();
  return std::nullopt;
}

tensor::Shape partition_broadcast(const tensor::Shape& a, const tensor::Shape& b, std::string_view api) {
  tensor::Shape x = a, y = b;
  while (x.size() < y.size()) x.push_back(1);
  while (y.size() < x.size()) y.push_back(1);
  tensor::Shape out(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k] != y[k] && x[k] != 1 && y[k] != 1)
      throw NkiError(ErrorKind::Value, fmt::format("operands of shapes {} and {} cannot be broadcast together ({})",
                                                   tensor::shape_str(a), tensor::shape_str(b), api));
    out[k] = x[k] == 1 ? y[k] : x[k];
  }
  return out;
}

void check_partition_limit(const tensor::Shape& shape, std::string_view api) {
  if (!shape.empty() && shape[0] > trn::limits::pmax)
    throw NkiError(ErrorKind::Rule, fmt::format("partition dimension {} exceeds the 128 partitions of SBUF ({})",
                                                shape[0], api));
}

NkiTensorObj padded(const NkiTensorObj& t, int rank) {
  NkiTensorObj p = t;
  while (p.view.ndim() < rank) p.view = p.view.with_unit_axis(p.view.ndim());
  return p;
}

tensor::DType dtype_arg(const Value& v, tensor::DType dflt, std::string_view api) {
  if (v.is_none()) return dflt;
  auto d = to_dtype(v, api);
  return d ? *d : dflt;
}

}  // namespace nki::lib
