// NKI tensors as interpreter values: HBM tensors (kernel inputs/outputs, nl.shared_constant,
// reshape views), on-chip SBUF/PSUM tensors with block dims, and the tiles and index views of
// them. A view is a reference (storage + affine map), never a copy: an instruction reads the
// storage at the time it executes, and assignment through a view writes the storage.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "nki/lib/affine_view.h"
#include "nki/lib/index_expr.h"
#include "nki/value.h"
#include "tensor/array.h"
#include "tensor/ops.h"
#include "trn/trace.h"

namespace nki::lib {

struct TensorStorage {
  // C-contiguous values; in trace-only mode a 0-d shape-only placeholder that is never read
  // (not default-constructed: Array() allocates a buffer).
  tensor::Array data = tensor::Array::shape_only({}, tensor::DType::Float32);
  tensor::Shape shape;
  tensor::Strides strides;   // C-order, in elements
  tensor::DType dtype = tensor::DType::Float32;
  trn::BufferKind buffer = trn::BufferKind::Sbuf;
  uint32_t id = 0;
  int partition_axis = 0;    // number of leading block dims (on-chip); 0 for HBM
  std::string name;
  bool is_input = false;
  bool zero_initialized = false;
  bool written = false;  // an instruction wrote it (HBM: an output argument of a baremetal kernel)
  // Newer-API PSUM accumulation: regions (block, partition start, free offset) that a matmul
  // has written since allocation; the first matmul write overwrites, later ones accumulate.
  std::unordered_set<uint64_t> matmul_written;

  bool on_chip() const { return buffer != trn::BufferKind::Hbm; }
  int64_t blocks() const;
  int64_t partitions() const { return on_chip() ? shape[partition_axis] : 1; }
  int64_t free_elements() const;  // per partition, per block
};

// Creates storage (zero-filled with numerics, shape-only otherwise) and a fresh id.
std::shared_ptr<TensorStorage> new_storage(const tensor::Shape& shape, tensor::DType dtype,
                                           trn::BufferKind buffer, int partition_axis);

struct IndirectIndex;  // indirect_access.h

// What a loop_reduce result carries until it is assigned into its destination.
struct LoopReduceInfo {
  tensor::BinaryOp op;
  bool first_iteration = false;
};

struct NkiTensorObj : Object {
  static constexpr ObjType kType = ObjType::NkiTensor;
  std::shared_ptr<TensorStorage> storage;
  AffineView view;
  // Set on instruction results computed under a mask: only this region holds values, and only
  // this region is written when the result is assigned into a tensor.
  std::optional<MaskRegion> written;
  std::optional<LoopReduceInfo> loop_reduce;
  // The instruction that produced this fresh result tile (rules on where it may be assigned).
  std::optional<trn::Opcode> produced_by;
  std::optional<trn::Engine> produced_on;  // the engine of that instruction
  // The kernel left that engine to the compiler, which may place the instruction where its result
  // can go (a memset assigned into PSUM runs on VectorE).
  bool engine_left_to_compiler = false;
  // An HBM view indexed on its partition dim by an index tile (indirect DMA, indirect_access.h):
  // `view` is the access with that index at 0, the index tile adds its row at run time.
  std::shared_ptr<const IndirectIndex> indirect;

  NkiTensorObj(std::shared_ptr<TensorStorage> s, AffineView v) : storage(std::move(s)), view(std::move(v)) {}
  ObjType type() const override { return kType; }
  std::string type_name() const override { return "tensor"; }
  std::string repr() const override;
  bool truthy() const override;
  Value get_attr(Interpreter& in, std::string_view name) override;
  bool has_attr(std::string_view name) const override;
  Value get_item(Interpreter& in, const Value& index) override;
  void set_item(Interpreter& in, const Value& index, const Value& value) override;
  bool aug_set_item(Interpreter& in, BinOp op, const Value& index, const Value& value) override;
  std::optional<Value> inplace_op(Interpreter& in, BinOp op, const Value& value) override;
  std::optional<Value> binary_op(Interpreter& in, BinOp op, const Value& other, bool reflected) override;
  std::optional<Value> compare(Interpreter& in, CmpOp op, const Value& other, bool reflected) override;
  std::optional<Value> unary_op(Interpreter& in, UnOp op) override;
  std::optional<int64_t> length() const override;

  const tensor::Shape& shape() const { return view.shape; }
  tensor::DType dtype() const { return storage->dtype; }
  bool on_chip() const { return storage->on_chip(); }
  bool is_whole() const;  // the view is the whole storage
};

Value make_tensor(std::shared_ptr<TensorStorage> storage);
// Where the newer API's view methods may merge index ranges of views of `st` (tensor_views.h).
struct ViewLayout;
ViewLayout view_layout(const TensorStorage& st);
Value make_view(const NkiTensorObj& base, AffineView view);

// ---- indexing and access (tensor_access.cpp) ----------------------------------------------------
// view[index] for a subscript value (ints, slices, nl.ds, Ellipsis, None, index expressions).
AffineView index_view(const AffineView& view, const Value& index, bool on_chip);
// Numerics: the elements of `t` in `box` (a strided view of the storage, no copy).
tensor::Array read_region(const NkiTensorObj& t, const Box& box);
// Whether read_region(t, ...) is a view of the storage (writing it writes `t`); false for views
// whose axes are split into digits, whose regions are copies.
bool region_is_view(const NkiTensorObj& t);
// Numerics: writes `value` (of box shape) into `t` over `box`; `region` restricts the write to
// the elements where its residual predicate holds (box given in the predicate's index space).
void write_region(const NkiTensorObj& t, const Box& box, const tensor::Array& value,
                  const MaskRegion* region);
// The trace operand describing the access of `t` over `box`.
trn::Operand make_operand(const NkiTensorObj& t, const Box& box);
// The trace's name of a tensor's element format (a uint8 tile is u8, not the one-byte float8).
trn::ElemType trace_elem(tensor::DType d);
// The box of an operand of shape `shape` inside an iteration box over `space` (broadcast axes -> [0, 1)).
Box operand_box(const tensor::Shape& shape, const tensor::Shape& space, const Box& box);
// The same, written into `out` (reuses its storage).
void operand_box_into(const tensor::Shape& shape, const tensor::Shape& space, const Box& box, Box& out);

}  // namespace nki::lib
