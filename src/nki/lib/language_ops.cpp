#include "nki/lib/language_ops.h"

#include <array>

#include <fmt/format.h>

#include "nki/lib/alu_ops.h"
#include "nki/lib/array_value.h"
#include "nki/lib/index_expr.h"
#include "nki/lib/instruction.h"
#include "trn/unary_engine.h"

namespace nki::lib {

using tensor::DType;

std::optional<tensor::BinaryOp> binop_to_alu(BinOp op) {
  switch (op) {
    case BinOp::Add: return tensor::BinaryOp::Add;
    case BinOp::Sub: return tensor::BinaryOp::Sub;
    case BinOp::Mul: return tensor::BinaryOp::Mul;
    case BinOp::Div: return tensor::BinaryOp::Div;
    case BinOp::Pow: return tensor::BinaryOp::Pow;
    case BinOp::Mod: return tensor::BinaryOp::Mod;
    case BinOp::FloorDiv: return tensor::BinaryOp::FloorDiv;
    case BinOp::LShift: return tensor::BinaryOp::LShift;
    case BinOp::RShift: return tensor::BinaryOp::RShift;
    case BinOp::BitAnd: return tensor::BinaryOp::BitAnd;
    case BinOp::BitOr: return tensor::BinaryOp::BitOr;
    case BinOp::BitXor: return tensor::BinaryOp::BitXor;
    case BinOp::MatMul: return std::nullopt;
  }
  return std::nullopt;
}

namespace {

bool is_predicate_op(tensor::BinaryOp op) {
  using B = tensor::BinaryOp;
  return op == B::Eq || op == B::Ne || op == B::Lt || op == B::Le || op == B::Gt || op == B::Ge ||
         op == B::LogicalAnd || op == B::LogicalOr || op == B::LogicalXor;
}

// dtype of a scalar operand under NKI promotion: typed numpy scalars keep theirs, Python
// scalars are weak (bool -> uint8, int -> int32, float -> float32).
DType scalar_dtype(const Value& v) {
  if (auto* a = v.as<NdArrayObj>()) return a->array.dtype();
  if (v.is_bool()) return DType::UInt8;
  if (v.is_int()) return DType::Int32;
  return DType::Float32;
}

tensor::Array scalar_array(double v, bool integer) {
  return tensor::Array::scalar(integer ? DType::Int64 : DType::Float32, v);
}

// Each operand: a tile or a scalar.
struct EwOperand {
  NkiTensorObj* tile = nullptr;
  double scalar = 0;
};

EwOperand ew_operand(const Value& v, std::string_view api, std::string_view what) {
  EwOperand o;
  if (v.as<NkiTensorObj>()) {
    o.tile = &tile_arg(v, api, what);
    return o;
  }
  auto s = scalar_arg(v);
  // `nl.greater_equal(i * 128 + ip, jf)` on aranges: an index expression only indexes and masks
  // (nki-language.md 4.2); the rule says how to get its values as data.
  if (!s && v.as<IndexExprObj>())
    throw NkiError(ErrorKind::Type, fmt::format("{} of {} is an index expression (nl.arange / nl.mgrid), which only "
                                                "indexes tensors and builds masks; make its values a tile with "
                                                "nisa.iota(expr, dtype=...) first", what, api));
  if (!s) throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be a tile or a scalar, got {}", what, api,
                                                      v.type_name()));
  o.scalar = *s;
  return o;
}

int64_t free_size(const tensor::Shape& s) {
  int64_t f = 1;
  for (size_t k = 1; k < s.size(); ++k) f *= s[k];
  return f;
}

}  // namespace

namespace {

// A one-partition tile meeting a many-partition one in an nl.* operation is copied to every
// partition first: an engine reads its own partitions only, and the compiler lowers a partition
// broadcast to a Tensor Engine matmul with a ones row (trainium-performance.md, ARCH2), as
// `broadcast_to` is written. The same program written either way costs the same.
int64_t partitions_of(const Value& v) {
  auto* t = v.as<NkiTensorObj>();
  return t && !t->shape().empty() ? t->shape()[0] : 1;
}

Value spread_to(Interpreter& in, const Value& v, int64_t partitions) {
  auto* t = v.as<NkiTensorObj>();
  if (!t || t->shape().empty() || t->shape()[0] != 1 || partitions <= 1) return v;
  std::vector<Value> dims;
  dims.push_back(Value::from_int(partitions));
  for (size_t k = 1; k < t->shape().size(); ++k) dims.push_back(Value::from_int(t->shape()[k]));
  return broadcast_tile(in, v, make_tuple(std::move(dims)));
}

}  // namespace

void spread_over_partitions(Interpreter& in, std::initializer_list<Value*> operands) {
  int64_t partitions = 1, tiles = 0;
  for (Value* v : operands)
    if (v->as<NkiTensorObj>()) partitions = std::max(partitions, partitions_of(*v)), ++tiles;
  if (tiles < 2) return;
  for (Value* v : operands) *v = spread_to(in, *v, partitions);
}

Value elementwise_binary(Interpreter& in, tensor::BinaryOp op, const Value& x_in, const Value& y_in, std::string_view api,
                         const Value& dtype, std::shared_ptr<const Predicate> mask) {
  Value x = x_in, y = y_in;
  spread_over_partitions(in, {&x, &y});
  EwOperand a = ew_operand(x, api, "x"), b = ew_operand(y, api, "y");
  if (!a.tile && !b.tile)
    throw NkiError(ErrorKind::Type, fmt::format("{} needs at least one tile operand", api));
  DType dflt;
  if (a.tile && b.tile) dflt = tensor::nki_promote(a.tile->dtype(), b.tile->dtype());
  else if (a.tile) dflt = tensor::nki_promote(a.tile->dtype(), scalar_dtype(y));
  else dflt = tensor::nki_promote(b.tile->dtype(), scalar_dtype(x));
  if (is_predicate_op(op)) dflt = DType::Bool;
  DType out = dtype_arg(dtype, dflt, api);
  if (a.tile && b.tile) check_bitvec_dtypes(op, {a.tile->dtype(), b.tile->dtype()}, out, api);
  else check_bitvec_dtypes(op, {(a.tile ? a.tile : b.tile)->dtype()}, out, api);
  tensor::Shape space = a.tile && b.tile ? partition_broadcast(a.tile->shape(), b.tile->shape(), api)
                                         : (a.tile ? a.tile : b.tile)->shape();
  bool vector_operand = a.tile && b.tile && free_size(space) > 1 &&
                        (free_size(a.tile->shape()) == 1 || free_size(b.tile->shape()) == 1);
  auto opcode = a.tile && b.tile && !vector_operand ? trn::Opcode::TensorTensor : trn::Opcode::TensorScalar;
  // The compiler's engine for the operation on this data (power, 32-bit integer add on GpSimd).
  auto form = opcode == trn::Opcode::TensorTensor ? trn::AluForm::TensorTensor : trn::AluForm::TensorScalar;
  Instruction ins(api, opcode, place_alu(form, {op}, out, std::nullopt, api), space, std::move(mask));
  bool integer = is_bitvec(op);
  tensor::Array av = a.tile ? ins.input(*a.tile) : (ins.computing() ? scalar_array(a.scalar, integer) : no_values());
  tensor::Array bv = b.tile ? ins.input(*b.tile) : (ins.computing() ? scalar_array(b.scalar, integer) : no_values());
  tensor::Array r = no_values();
  if (ins.computing()) r = apply_binary(op, av, bv, out);
  if (auto* info = ins.info()) {
    info->flops = uint64_t(ins.box().elements());
    info->alu = trn::alu_of(op);
  }
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

Value elementwise_unary(Interpreter& in, tensor::UnaryOp op, const Value& x, std::string_view api, const Value& dtype,
                        std::shared_ptr<const Predicate> mask) {
  using U = tensor::UnaryOp;
  NkiTensorObj& t = tile_arg(x, api, "x");
  DType out = dtype_arg(dtype, t.dtype(), api);
  bool vector = trn::unary_on_vector_engine(op);  // the form's rule too (trn/unary_engine.h)
  bool integer = op == U::Invert;
  Instruction ins(api, vector ? trn::Opcode::TensorScalar : trn::Opcode::Activation,
                  vector ? trn::Engine::Vector : trn::Engine::Scalar, t.shape(), std::move(mask));
  tensor::Array a = ins.input(t);
  tensor::Array r = no_values();
  if (ins.computing()) r = tensor::unary(op, a, integer ? DType::Int64 : DType::Float32, out);
  if (auto* info = ins.info()) {
    info->flops = uint64_t(ins.box().elements());
    // Activation-table id per unary op, built once (looking up every name per call was a
    // measurable share of trace-only time). Later names win, as the original scan did.
    static const std::array<uint16_t, 256> ids = [] {
      std::array<uint16_t, 256> t{};
      for (auto name : {"square", "sigmoid", "relu", "gelu", "gelu_dx", "gelu_apprx_tanh", "gelu_apprx_sigmoid",
                        "silu", "silu_dx", "tanh", "softplus", "mish", "erf", "erf_dx", "exp", "log", "sin",
                        "arctan", "sqrt", "rsqrt", "reciprocal", "sign", "gelu_apprx_sigmoid_dx"}) {
        const AluOp* f = find_alu_op(name);
        if (f && f->unary) t[size_t(*f->unary)] = f->activation_id;
      }
      return t;
    }();
    if (ids[size_t(op)]) info->activation_func = ids[size_t(op)];
  }
  return ins.result(out, trn::BufferKind::Sbuf, r);
}

Value copy_tile(Interpreter& in, const Value& tile, const Value& dtype, std::string_view api,
                std::shared_ptr<const Predicate> mask, std::optional<trn::Engine> engine, bool scalar_engine_form) {
  NkiTensorObj& t = tile_arg(tile, api, "x");
  DType out = dtype_arg(dtype, t.dtype(), api);
  // nisa.tensor_copy runs on the Vector, Scalar or GpSimd engine (nki-language.md, nisa.tensor_copy:
  // "Vector and GpSimd copy bit-exactly ... the Scalar Engine (v2) always goes through fp32");
  // GpSimd cannot access PSUM (the instruction's engine check says so).
  if (engine && *engine != trn::Engine::Vector && *engine != trn::Engine::Scalar && *engine != trn::Engine::GpSimd)
    throw NkiError(ErrorKind::Rule, fmt::format("{} runs on the Vector, Scalar or GpSimd engine, not the {} engine",
                                                api, trn::to_string(*engine)));
  Instruction ins(api, trn::Opcode::TensorCopy, engine.value_or(trn::Engine::Vector), t.shape(), std::move(mask));
  if (auto* info = ins.info()) {
    info->engine_chosen_by_user = engine.has_value();
    info->no_scalar_engine = !scalar_engine_form;
  }
  tensor::Array a = ins.input(t);
  return ins.result(out, trn::BufferKind::Sbuf, a);
}

Value broadcast_tile(Interpreter& in, const Value& tile, const Value& shape_v) {
  constexpr std::string_view api = "nl.broadcast_to";
  NkiTensorObj& t = tile_arg(tile, api, "src");
  tensor::Shape shape = to_int_list(shape_v, "nl.broadcast_to shape");
  if (shape == t.shape()) return tile;
  tensor::Shape src = t.shape();
  while (src.size() < shape.size()) src.push_back(1);
  if (src.size() != shape.size())
    throw NkiError(ErrorKind::Value, fmt::format("cannot broadcast a tile of shape {} to {} ({})",
                                                 tensor::shape_str(t.shape()), tensor::shape_str(shape), api));
  for (size_t k = 0; k < shape.size(); ++k)
    if (src[k] != shape[k] && src[k] != 1)
      throw NkiError(ErrorKind::Value, fmt::format("cannot broadcast a tile of shape {} to {} ({})",
                                                   tensor::shape_str(t.shape()), tensor::shape_str(shape), api));
  // A partition broadcast runs on the Tensor Engine (a matmul with a ones vector).
  bool partition = src[0] == 1 && shape[0] > 1;
  Instruction ins(api, partition ? trn::Opcode::Broadcast : trn::Opcode::TensorCopy,
                  partition ? trn::Engine::Tensor : trn::Engine::Vector, shape, nullptr);
  tensor::Array a = ins.input(t);
  tensor::Array r = no_values();
  if (ins.computing()) r = tensor::broadcast_to(a, ins.box().shape());
  return ins.result(t.dtype(), trn::BufferKind::Sbuf, r);
}

// ---- assignment ------------------------------------------------------------------------------------
namespace {

// Pads dst and value views to a common rank (trailing unit axes: partition-aligned) and checks
// that the value fits the destination.
int common_rank(const NkiTensorObj& dst, const NkiTensorObj& v) {
  int rank = std::max(dst.view.ndim(), v.view.ndim());
  // Padding appends unit axes: read the padded sizes without building padded views.
  auto dim = [](const tensor::Shape& shape, int k) { return size_t(k) < shape.size() ? shape[size_t(k)] : 1; };
  for (int k = 0; k < rank; ++k) {
    int64_t sk = dim(v.shape(), k), dk = dim(dst.shape(), k);
    if (sk == dk || sk == 1) continue;
    if (sk > dk)
      throw NkiError(ErrorKind::Rule, fmt::format("err_store_dst_shape_smaller_than_other_shape: cannot write a value "
                                                  "of shape {} into a destination of shape {}",
                                                  tensor::shape_str(v.shape()), tensor::shape_str(dst.shape())));
    throw NkiError(ErrorKind::Value, fmt::format("cannot write a value of shape {} into a destination of shape {}",
                                                 tensor::shape_str(v.shape()), tensor::shape_str(dst.shape())));
  }
  return rank;
}

// The region of the destination written by a value computed over `v.written` (or all of it).
MaskRegion value_region(const NkiTensorObj& v, const tensor::Shape& dst_shape) {
  MaskRegion region;
  region.box = Box::full(dst_shape);
  region.space_ndim = int(dst_shape.size());
  if (!v.written) return region;
  const Box& vb = v.written->box;
  for (size_t k = 0; k < vb.lo.size() && k < dst_shape.size(); ++k) {
    if (v.shape()[k] == dst_shape[k]) {
      region.box.lo[k] = vb.lo[k];
      region.box.hi[k] = vb.hi[k];
    }
  }
  if (v.shape() == dst_shape) region.residual = v.written->residual;
  return region;
}

void check_destination(trn::Opcode op, const NkiTensorObj& dst) {
  auto buf = dst.storage->buffer;
  if (buf == trn::BufferKind::Hbm)
    throw NkiError(ErrorKind::Rule, "err_unsupported_memory: an HBM tensor cannot be assigned from a tile; "
                                    "write it with nl.store");
  // A Tensor Engine result assigned into SBUF (`sbuf[...] = nisa.nc_transpose(x)`) is legal NKI: the
  // compiler writes PSUM and inserts the PSUM->SBUF copy. The trace keeps the instruction as
  // written (SBUF output); the compiler stage (src/lower, psum_copies) adds the copy.
  if (op == trn::Opcode::DmaLoad && buf != trn::BufferKind::Sbuf)
    throw NkiError(ErrorKind::Rule, "the destination of nl.load must be in SBUF");
}

void fill_scalar(const NkiTensorObj& dst, double value) {
  KernelContext& ctx = KernelContext::current();
  auto engine = dst.storage->buffer == trn::BufferKind::Psum ? trn::Engine::Vector : trn::Engine::GpSimd;
  Instruction ins("assignment", trn::Opcode::Memset, engine, dst.shape(), nullptr);
  if (auto* info = ins.info()) info->nonzero_fill = value != 0.0;  // ISA memset: a zero fill of 16-bit data is N/2
  ins.output_to(dst, ctx.numerics ? tensor::Array::scalar(DType::Float64, value) : no_values(), false);
}

}  // namespace

void assign_into(Interpreter& in, const NkiTensorObj& dst0, const Value& value) {
  auto* v = value.as<NkiTensorObj>();
  if (!v) {
    auto s = scalar_arg(value);
    if (!s) throw NkiError(ErrorKind::Type, fmt::format("cannot assign a value of type {} into a tensor",
                                                        value.type_name()));
    if (!dst0.on_chip())
      throw NkiError(ErrorKind::Rule, "err_unsupported_memory: an HBM tensor cannot be assigned a constant; "
                                      "write it with nl.store");
    fill_scalar(dst0, *s);
    return;
  }
  int rank = common_rank(dst0, *v);
  PaddedRef dref(dst0, rank), sref(*v, rank);
  const NkiTensorObj &dst = *dref, &src = *sref;
  MaskRegion region = value_region(src, dst.shape());
  dst.view.check_bounds(dst.storage->shape, region.box, "assignment");
  KernelContext& ctx = KernelContext::current();
  bool reduce = v->loop_reduce && !v->loop_reduce->first_iteration;
  if (v->produced_by) check_destination(*v->produced_by, dst);
  trn::Record* pending = ctx.pending_for(v);
  // The instruction writes `dst` itself, so its engine must reach dst's memory. A memset the
  // kernel left to the compiler ("Vector or GpSimd engine", nki-language.md 8.3) is placed where it
  // can: zeroing a PSUM accumulator is a Vector Engine memset.
  if (v->produced_on == trn::Engine::GpSimd && dst.storage->buffer == trn::BufferKind::Psum) {
    if (v->produced_by != trn::Opcode::Memset || !v->engine_left_to_compiler)
      throw NkiError(ErrorKind::Rule, "the GpSimd engine cannot access PSUM (its result is assigned into a PSUM tile); "
                                      "run it on the Vector or Scalar engine");
    if (pending) pending->inst.engine = trn::Engine::Vector;
    v->produced_on = trn::Engine::Vector;
  }
  if (pending) {
    if (ctx.numerics && !region.box.empty()) {
      tensor::Array val = read_region(src, operand_box(src.shape(), dst.shape(), region.box));
      if (reduce) val = apply_binary(v->loop_reduce->op, read_region(dst, region.box), val, dst.dtype());
      write_region(dst, region.box, val, &region);
    }
    ctx.retarget_pending(v, make_operand(dst, region.box));
    if (reduce && !pending->inst.outputs.empty()) {
      pending->inst.inputs.push_back(make_operand(dst, region.box));
      pending->inst.accumulate = true;
    }
    return;
  }
  if (!dst.on_chip()) check_destination(trn::Opcode::TensorCopy, dst);
  Instruction ins("assignment", reduce ? trn::Opcode::TensorTensor : trn::Opcode::TensorCopy, trn::Engine::Vector,
                  dst.shape(), nullptr);
  ins.restrict_to(region);
  tensor::Array val = ins.input(src);
  if (reduce) {
    tensor::Array old = ins.input(dst);
    if (ins.computing()) val = apply_binary(v->loop_reduce->op, old, val, dst.dtype());
    if (auto* info = ins.info()) {
      info->accumulate = true;
      info->alu = trn::alu_of(v->loop_reduce->op);
    }
  }
  ins.output_to(dst, val, false);
}

// `//` on tiles: nki-language.md lists no floor division among the operators on tiles (7.9), the
// nl.* element-wise APIs (7.3) or the ALU operators (9.1); it ran as a numpy floor_divide no
// instruction computes, and no lift or move knew it. nl.floor of nl.divide says what it means.
[[noreturn]] void refuse_floor_division_of_tiles(const char* written) {
  throw NkiError(ErrorKind::Unsupported,
                 fmt::format("the '{}' operator on tiles is not in nki.language (no floor-division instruction); "
                             "write nl.floor(nl.divide(x, y))",
                             written));
}

void accumulate_into(Interpreter& in, BinOp op, const NkiTensorObj& dst0, const Value& value) {
  if (op == BinOp::FloorDiv) refuse_floor_division_of_tiles("//=");
  auto alu = binop_to_alu(op);
  if (!alu) throw NkiError(ErrorKind::Type, fmt::format("unsupported in-place operator '{}=' on a tensor", symbol(op)));
  if (!dst0.on_chip())
    throw NkiError(ErrorKind::Rule, "err_unsupported_memory: HBM tensors cannot be updated in place; use nl.store");
  KernelContext& ctx = KernelContext::current();
  auto* v = value.as<NkiTensorObj>();
  // A Tensor Engine result (matmul, or a transpose, which is a matmul by the identity) added
  // into PSUM is PE accumulation: the instruction writes the destination with accumulate set.
  bool pe_result = v && (v->produced_by == trn::Opcode::MatMul || v->produced_by == trn::Opcode::Transpose);
  if (pe_result && *alu == tensor::BinaryOp::Add) {
    trn::Record* pending = ctx.pending_for(v);
    {
      int rank = common_rank(dst0, *v);
      PaddedRef dref(dst0, rank), sref(*v, rank);
      const NkiTensorObj &dst = *dref, &src = *sref;
      check_destination(*v->produced_by, dst);
      MaskRegion region = value_region(src, dst.shape());
      dst.view.check_bounds(dst.storage->shape, region.box, "+=");
      if (ctx.numerics && !region.box.empty()) {
        tensor::Array val = read_region(src, operand_box(src.shape(), dst.shape(), region.box));
        tensor::Array old = read_region(dst, region.box);
        // add_into_f32 adds in place: only into a view of the storage (not a merged copy).
        if (region.residual || !region_is_view(dst) || !tensor::add_into_f32(old, val))
          write_region(dst, region.box, tensor::binary(tensor::BinaryOp::Add, old, val, DType::Float32, dst.dtype()),
                       &region);
      }
      if (pending) {
        ctx.retarget_pending(v, make_operand(dst, region.box));
        pending->inst.accumulate = true;
      }
      return;
    }
  }
  // A Vector Engine read-modify-write of the destination.
  std::string api = fmt::format("{}=", symbol(op));
  Instruction ins(api, v ? trn::Opcode::TensorTensor : trn::Opcode::TensorScalar, trn::Engine::Vector, dst0.shape(),
                  nullptr);
  if (v) {
    int rank = common_rank(dst0, *v);
    if (rank != dst0.view.ndim())
      throw NkiError(ErrorKind::Value, fmt::format("cannot update a destination of shape {} with a value of shape {}",
                                                   tensor::shape_str(dst0.shape()), tensor::shape_str(v->shape())));
    ins.restrict_to(value_region(*PaddedRef(*v, rank), dst0.shape()));
  }
  tensor::Array old = ins.input(dst0);
  tensor::Array operand = no_values();
  if (v) {
    operand = ins.input(*v);
  } else {
    auto s = scalar_arg(value);
    if (!s) throw NkiError(ErrorKind::Type, fmt::format("cannot update a tensor with a value of type {}",
                                                        value.type_name()));
    operand = ins.computing() ? scalar_array(*s, false) : no_values();
  }
  tensor::Array r = no_values();
  if (ins.computing()) r = apply_binary(*alu, old, operand, dst0.dtype());
  if (auto* info = ins.info()) {
    info->accumulate = true;
    info->flops = uint64_t(ins.box().elements());
    info->alu = trn::alu_of(*alu);
  }
  ins.output_to(dst0, r, false);
}

}  // namespace nki::lib
