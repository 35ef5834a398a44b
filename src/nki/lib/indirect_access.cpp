#include "nki/lib/indirect_access.h"

#include <fmt/format.h>

#include "nki/lib/instruction.h"
#include "tensor/dtype.h"

namespace nki::lib {

namespace {

// The items of a subscript (a tuple's, or the single value).
std::vector<Value> subscript_items(const Value& index) {
  if (auto* t = index.as<TupleObj>()) return t->items;
  return {index};
}

int index_tile_position(const std::vector<Value>& items) {
  int at = -1;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].as<NkiTensorObj>()) {
      if (at >= 0)
        throw NkiError(ErrorKind::Rule, "err_indirect_indices_free_dim: a subscript takes one index tile, on the "
                                        "partition dim; dynamic indices are not allowed on a free dim");
      at = int(i);
    }
  return at;
}

[[noreturn]] void free_dim_error(std::string_view why) {
  throw NkiError(ErrorKind::Rule, fmt::format("err_indirect_indices_free_dim: {}; dynamic indices are only allowed on "
                                              "the partition/block dim (a [P, 1] index tile, with nl.arange, not "
                                              "nl.mgrid)", why));
}

// The partitions of an index tile, after its checks: SBUF, integer, [P, 1] (or [P]).
int64_t index_tile_partitions(const NkiTensorObj& tile) {
  if (tile.storage->buffer != trn::BufferKind::Sbuf)
    throw NkiError(ErrorKind::Rule, fmt::format("err_unsupported_memory: indirect indices must be in SBUF, got '{}'",
                                                trn::to_string(tile.storage->buffer)));
  if (!tensor::is_integer(tile.dtype()))
    throw NkiError(ErrorKind::Type, fmt::format("indirect indices must be an integer tile, got {}",
                                                tensor::name(tile.dtype())));
  const tensor::Shape& ts = tile.shape();
  if (ts.size() > 2 || (ts.size() == 2 && ts[1] != 1))
    free_dim_error(fmt::format("the index tile has shape {}", tensor::shape_str(ts)));
  return ts.empty() ? 1 : ts[0];
}

}  // namespace

NkiTensorObj IndirectIndex::row(const NkiTensorObj& t, int64_t v) const {
  NkiTensorObj r(t.storage, t.view);
  for (size_t d = 0; d < step.size(); ++d) r.view.base[d] += step[d] * v;
  return r;
}

std::optional<NkiTensorObj> indirect_view(const NkiTensorObj& t, const Value& index) {
  std::vector<Value> items = subscript_items(index);
  int at = index_tile_position(items);
  if (at < 0) return std::nullopt;
  if (t.on_chip())
    throw NkiError(ErrorKind::Rule, "indirect (dynamic) indexing by an index tile addresses an HBM tensor (the source "
                                    "of nl.load, the destination of nl.store or nisa.dma_copy), not an on-chip tile");
  if (t.indirect) throw NkiError(ErrorKind::Unsupported, "an indirect view cannot be indexed again; index the tensor once");
  if (t.view.split())
    throw NkiError(ErrorKind::Unsupported, "indirect indexing of a view split by // or % is not supported by accelopt");
  // The partition dim of an HBM view is its first dim that is not indexed by an integer.
  for (int i = 0; i < at; ++i) {
    auto e = to_index_expr(items[size_t(i)]);
    if (!e || e->ndim() != 0) free_dim_error("the index tile indexes a free dim of the view");
  }
  const NkiTensorObj& tile = *items[size_t(at)].as<NkiTensorObj>();
  const int64_t parts = index_tile_partitions(tile);
  // The other indices give the free dims: an index that varies along the partition axis (a
  // dense nl.mgrid grid) would make the address of a free element depend on the partition.
  for (size_t i = 0; i < items.size(); ++i) {
    auto* e = items[i].as<IndexExprObj>();
    if (!e || int(i) == at) continue;
    const IndexShape& s = e->expr.shape;
    if (s.size() > 2 || (s.size() == 2 && s[0] > 1))
      free_dim_error(fmt::format("the index of dim {} has shape {} (an nl.mgrid grid)", i, tensor::shape_str(
                                                                                           tensor::Shape(s.begin(), s.end()))));
  }
  IndexExpr placeholder;  // the tile's place in the advanced index space, its value added at run time
  placeholder.shape = {parts, 1};
  items[size_t(at)] = Value(std::make_shared<IndexExprObj>(placeholder));
  AffineView av = index_view(t.view, make_tuple(items), false);
  if (av.ndim() == 0 || av.shape[0] != parts) free_dim_error("the index tile does not give the view's first dim");
  NkiTensorObj idx = padded(tile, 2);
  if (idx.shape()[0] != parts || idx.shape()[1] != 1) free_dim_error("the index tile is not a [P, 1] tile");
  auto ix = std::make_shared<IndirectIndex>(IndirectIndex{std::move(idx), {}, t.view.shape[size_t(at)], at});
  for (int d = 0; d < t.view.storage_ndim(); ++d) ix->step.push_back(t.view.c(d, at));
  NkiTensorObj out(t.storage, std::move(av));
  out.indirect = std::move(ix);
  return out;
}

NkiTensorObj indirect_access_pattern(const NkiTensorObj& t, AffineView pattern, const Value& vector_offset,
                                     int64_t indirect_dim) {
  auto* tile = vector_offset.as<NkiTensorObj>();
  if (!tile) throw NkiError(ErrorKind::Type, "tensor.ap: vector_offset must be an SBUF index tile");
  if (t.on_chip())
    throw NkiError(ErrorKind::Rule, "tensor.ap: vector_offset (indirect DMA) addresses an HBM tensor, not an on-chip tile");
  const int64_t parts = index_tile_partitions(*tile);
  if (indirect_dim != 0) free_dim_error(fmt::format("indirect_dim={} is not the partition dim", indirect_dim));
  if (pattern.ndim() == 0 || pattern.shape[0] != parts)
    free_dim_error(fmt::format("the pattern's first (partition) count is not the index tile's {} partitions", parts));
  // The index gives each partition's row: the pattern's partition step is replaced by it.
  for (int d = 0; d < pattern.storage_ndim(); ++d) pattern.c(d, 0) = 0;
  const TensorStorage& st = *t.storage;
  auto ix = std::make_shared<IndirectIndex>(IndirectIndex{padded(*tile, 2), {}, st.shape[0], 0});
  ix->step.assign(size_t(st.shape.size()), 0);
  ix->step[0] = 1;  // one index unit is one row: offset + idx[p] * prod(shape[1:])
  NkiTensorObj out(t.storage, std::move(pattern));
  out.indirect = std::move(ix);
  return out;
}

void refuse_indirect_assignment(const NkiTensorObj& t, const Value& index) {
  if (index_tile_position(subscript_items(index)) < 0) return;
  throw NkiError(ErrorKind::Rule, "err_copy_dynamic_indirect_indices_not_natively_supported: an assignment copy with "
                                  "indices read from a tile; use nl.store(dst[idx[i_p, 0], i_f], value=...) or "
                                  "nisa.dma_copy for a scatter");
}

// ---- the DMA side (Instruction) -------------------------------------------------------------------

namespace {

// Row i of a value array (all its rows when it broadcasts along them).
tensor::Array row_of(const tensor::Array& a, int64_t i) {
  if (a.ndim() == 0) return a;
  tensor::Shape s = a.shape();
  if (s[0] == 1) return a;
  s[0] = 1;
  return a.view(s, a.strides(), a.offset() + i * a.strides()[0]);
}

}  // namespace

void Instruction::check_indirect_allowed() const {
  if (opcode_ == trn::Opcode::DmaTranspose)
    throw NkiError(ErrorKind::Rule, fmt::format("err_indirect_indices_are_not_supported_with_nki_api: {} takes no "
                                                "indirect indices; gather with nl.load, then transpose", api_));
  if (opcode_ != trn::Opcode::DmaLoad && opcode_ != trn::Opcode::DmaStore && opcode_ != trn::Opcode::DmaCopy)
    throw NkiError(ErrorKind::Rule, fmt::format("a view indexed by an index tile is moved by DMA only (nl.load, "
                                                "nl.store, nisa.dma_copy), not by {}", api_));
}

std::vector<Instruction::IndexedRow> Instruction::indirect_rows(const NkiTensorObj& t, const Box& box, bool written) {
  const IndirectIndex& ix = *t.indirect;
  const Box ibox{{box.lo[0], 0}, {box.hi[0], 1}};
  if (record_) {
    // The HBM side: one row per partition, nowhere known before the run. The DMA also reads the
    // index tile (so it waits for the instruction that wrote it).
    trn::Operand op = make_operand(t, box);
    op.indirect = true;
    op.row_stride = 0;
    (written ? record_->inst.outputs : record_->inst.inputs).push_back(op);
    record_->inst.inputs.push_back(make_operand(ix.index, ibox));
  }
  std::vector<IndexedRow> rows;
  if (!ctx_.numerics) {
    t.view.check_bounds(t.storage->shape, box, api_);  // the rest of the access, at index 0
    return rows;
  }
  tensor::Array values = read_region(ix.index, ibox);
  for (int64_t p = box.lo[0]; p < box.hi[0]; ++p) {
    const double raw = values.get({p - box.lo[0], 0});
    const int64_t v = int64_t(raw);
    if (v < 0 || v >= ix.extent) {
      if (oob_skip_) continue;
      throw NkiError(ErrorKind::Index,
                     fmt::format("indirect index {} (partition {} of the index tile) is out of bounds for dim {} of "
                                 "size {} ({}); an out-of-bounds indirect DMA raises on the hardware, "
                                 "nisa.dma_copy(oob_mode=nisa.oob_mode.skip) skips it",
                                 v, p, ix.dim, ix.extent, api_));
    }
    Box rb = box;
    rb.lo[0] = p;
    rb.hi[0] = p + 1;
    NkiTensorObj row = ix.row(t, v);
    row.view.check_bounds(row.storage->shape, rb, api_);
    rows.push_back(IndexedRow{std::move(row), rb});
  }
  return rows;
}

tensor::Array Instruction::input_indirect(const NkiTensorObj& t, const Box& box) {
  check_indirect_allowed();
  ctx_.note_format(t.storage->dtype, api_);
  if (box.empty()) return no_values();
  std::vector<IndexedRow> rows = indirect_rows(t, box, false);
  if (!ctx_.numerics) return no_values();
  // Rows an out-of-bounds index skipped stay zero (a fresh tile's contents).
  tensor::Array out = tensor::Array::zeros(box.shape(), t.storage->dtype);
  for (const IndexedRow& r : rows) {
    tensor::Array dst = row_of(out, r.box.lo[0] - box.lo[0]);
    tensor::assign(dst, read_region(r.row, r.box));
  }
  return out;
}

void Instruction::output_indirect(const NkiTensorObj& dst, const tensor::Array& values, bool accumulate) {
  check_indirect_allowed();
  ctx_.note_format(dst.storage->dtype, api_);
  if (dst.view.shape != space_)
    throw NkiError(ErrorKind::Value, fmt::format("destination of shape {} does not match the result shape {} ({})",
                                                 tensor::shape_str(dst.shape()), tensor::shape_str(space_), api_));
  dst.storage->written = true;
  const Box& box = region_.box;
  if (!box.empty()) {
    std::vector<IndexedRow> rows = indirect_rows(dst, box, true);
    if (record_) record_->inst.accumulate = record_->inst.accumulate || accumulate;
    // In partition order, one row at a time: a repeated index keeps the last partition's row
    // (numpy fancy assignment), or adds every partition's row when accumulating (np.add.at).
    if (computing()) {
      tensor::Array all = tensor::broadcast_to(values, box.shape());
      for (const IndexedRow& r : rows) {
        tensor::Array v = row_of(all, r.box.lo[0] - box.lo[0]);
        if (accumulate) {
          tensor::Array old = read_region(r.row, r.box);
          v = tensor::binary(tensor::BinaryOp::Add, old, v, tensor::DType::Float32, r.row.dtype());
        }
        write_region(r.row, r.box, v, &region_);
      }
    }
  }
  ctx_.end_instruction(nullptr, nullptr);
}

}  // namespace nki::lib
