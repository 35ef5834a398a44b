// nki.isa: nc_matmul (with the newer API's accumulate= rule), nc_transpose, memset, iota,
// affine_select, dma_copy, dma_transpose, tensor_partition_reduce, and the enum constants.
#include <algorithm>

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/isa_functions.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/tensor_views.h"
#include "nki/range_loops.h"

namespace nki::lib {

namespace {

// PSUM region key for "first matmul write overwrites": (block, partition start, free offset).
uint64_t psum_region_key(const NkiTensorObj& dst) {
  trn::Operand op = make_operand(dst, Box::full(dst.shape()));
  int64_t free_offset = 0;
  const AffineView& v = dst.view;
  for (int d = dst.storage->partition_axis + 1; d < v.storage_ndim(); ++d) free_offset += v.base[d] * dst.storage->strides[d];
  return (uint64_t(op.block) << 40) ^ (uint64_t(op.partition_start) << 24) ^ uint64_t(free_offset);
}

// PE tiling (tile_position=(row, col), tile_size=(rows, cols)): the documented rules are
// checked; the result is the same matmul, on the PE sub-arrays of its tile (the simulator runs
// matmuls on disjoint tiles at the same time, trn/engine_timeline.h). `()` and None both mean
// "not given" (0: the whole grid). Our reading of the grid: rows hold the contraction
// (partition) dim K, columns the stationary free size M.
trn::PeCells pe_tile_cells(const Value& position_v, const Value& size_v, int64_t k, int64_t m) {
  constexpr std::string_view api = "nisa.nc_matmul";
  auto pair_of = [&](const Value& v, const char* what) {
    std::vector<int64_t> p = v.is_none() ? std::vector<int64_t>{} : to_int_list(v, what);
    if (!p.empty() && p.size() != 2)
      throw NkiError(ErrorKind::Value, fmt::format("{} of {} must be a pair, got {} values", what, api, p.size()));
    return p;
  };
  std::vector<int64_t> pos = pair_of(position_v, "tile_position"), size = pair_of(size_v, "tile_size");
  if (pos.empty() && size.empty()) return 0;
  if (pos.empty() != size.empty())
    throw NkiError(ErrorKind::Rule, fmt::format("{}: tile_position and tile_size go together (both or neither)", api));
  for (int64_t v : {pos[0], pos[1], size[0], size[1]})
    if (v < 0 || v % 32 != 0)
      throw NkiError(ErrorKind::Rule, fmt::format("{}: tile_position {} and tile_size {} must be non-negative "
                                                  "multiples of 32", api, fmt::join(pos, ","), fmt::join(size, ",")));
  if (size[0] == 0 || size[1] == 0 || pos[0] + size[0] > 128 || pos[1] + size[1] > 128)
    throw NkiError(ErrorKind::Rule, fmt::format("{}: the tile at ({}) of size ({}) does not fit the 128x128 PE grid",
                                                api, fmt::join(pos, ", "), fmt::join(size, ", ")));
  if (k > size[0] || m > size[1])
    throw NkiError(ErrorKind::Rule, fmt::format("{}: a (K={}, M={}) stationary does not fit the PE tile of size "
                                                "({})", api, k, m, fmt::join(size, ", ")));
  return trn::pe_cells_of_tile(pos[0], pos[1], size[0], size[1]);
}

// nisa.nc_matmul: the legacy keywords (8.1) and the destination-first ones (12.2: dst,
// accumulate, perf_mode, name).
const std::shared_ptr<const Signature>& nc_matmul_signature() {
  static const auto sig = std::make_shared<const Signature>(
      Signature{"nisa.nc_matmul",
                {req("stationary"), req("moving"), opt("is_stationary_onezero"), opt("is_moving_onezero"),
                 opt("is_transpose"), opt("tile_position"), opt("tile_size"), kwonly("mask"), kwonly("accumulate"),
                 kwonly("dst"), kwonly("perf_mode"), kwonly("name")},
                false, false});
  return sig;
}

Value nc_matmul_call(Interpreter& in, CallArgs& args) {
  const Signature& legacy = *nc_matmul_signature();
  // Destination-first: nc_matmul(dst, stationary, moving, ...) with three leading tensors.
  // Only that form needs a rewritten copy of the arguments.
  std::optional<CallArgs> rewritten;
  if (args.args.size() >= 3 && args.args[2].as<NkiTensorObj>()) {
    rewritten.emplace(args);
    rewritten->kwargs.push_back({"dst", rewritten->args[0]});
    rewritten->args.erase(rewritten->args.begin());
  }
  BoundArgs a = bind_args(legacy, rewritten ? *rewritten : args);
  constexpr std::string_view api = "nisa.nc_matmul";
  NkiTensorObj& s = tile_arg(a["stationary"], api, "stationary");
  NkiTensorObj& m = tile_arg(a["moving"], api, "moving");
  trn::PeCells pe_cells =
      s.view.ndim() >= 2 ? pe_tile_cells(a["tile_position"], a["tile_size"], s.shape()[0], s.shape()[1]) : 0;
  Value r = matmul_core(s, m, api, to_predicate(a["mask"], api), a["is_transpose"].truthy(),
                        a["is_stationary_onezero"].truthy(), a["is_moving_onezero"].truthy(), pe_cells);
  if (a["dst"].is_none()) return r;
  auto* dst = a["dst"].as<NkiTensorObj>();
  if (!dst) throw NkiError(ErrorKind::Type, "dst of nisa.nc_matmul must be a PSUM tensor");
  if (dst->storage->buffer != trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, "the Tensor Engine writes its results to PSUM only (dst of nisa.nc_matmul)");
  uint64_t key = psum_region_key(*dst);
  bool accumulate;
  if (a["accumulate"].is_none()) accumulate = dst->storage->matmul_written.count(key) > 0;
  else accumulate = a["accumulate"].truthy();
  dst->storage->matmul_written.insert(key);
  if (accumulate) accumulate_into(in, BinOp::Add, *dst, r);
  else assign_into(in, *dst, r);
  return Value();
}

// nisa.memset: legacy (8.3) and destination-first (12.2: dst, name) keywords.
const std::shared_ptr<const Signature>& memset_signature() {
  static const auto sig = std::make_shared<const Signature>(
      Signature{"nisa.memset",
                {req("shape"), req("value"), opt("dtype"), kwonly("mask"), kwonly("engine"), kwonly("dst"),
                 kwonly("name")},
                false, false});
  return sig;
}

Value memset_call(Interpreter& in, CallArgs& args) {
  const Signature& legacy = *memset_signature();
  CallArgs call = args;
  if (!call.args.empty() && call.args[0].as<NkiTensorObj>()) {
    call.kwargs.push_back({"dst", call.args[0]});
    call.args.erase(call.args.begin());
    call.kwargs.push_back({"shape", Value()});
    if (!call.args.empty()) {
      call.kwargs.push_back({"value", call.args[0]});
      call.args.clear();
    }
  }
  for (auto& kw : call.kwargs)
    if (kw.first == "dst" && std::none_of(call.kwargs.begin(), call.kwargs.end(), [](auto& k) { return k.first == "shape"; })) {
      call.kwargs.push_back({"shape", Value()});
      break;
    }
  BoundArgs a = bind_args(legacy, call);
  constexpr std::string_view api = "nisa.memset";
  auto value = scalar_arg(a["value"]);
  if (!value) throw NkiError(ErrorKind::Type, "value of nisa.memset must be a scalar");
  if (auto* dst = a["dst"].as<NkiTensorObj>()) {
    assign_into(in, *dst, Value::from_float(*value));
    return Value();
  }
  tensor::Shape shape;
  std::vector<Value> items;
  if (auto* t = a["shape"].as<TupleObj>()) items = t->items;
  else if (auto* l = a["shape"].as<ListObj>()) items = l->items;
  for (auto& item : items) {
    if (auto* p = item.is_object() ? dynamic_cast<ParDimObj*>(item.object().get()) : nullptr) shape.push_back(p->size);
    else shape.push_back(to_int(item, "nisa.memset shape"));
  }
  if (shape.empty()) throw NkiError(ErrorKind::Value, "shape of nisa.memset must be a tuple of dimensions");
  auto user = engine_of(a["engine"]);
  Instruction ins(api, trn::Opcode::Memset, user.value_or(trn::Engine::GpSimd), shape, to_predicate(a["mask"], api));
  if (auto* info = ins.info()) {
    info->engine_chosen_by_user = user.has_value();
    info->nonzero_fill = *value != 0.0;  // ISA memset: a zero fill of 16-bit data is N/2
  }
  tensor::Array r = no_values();
  if (ins.computing()) r = tensor::Array::scalar(tensor::DType::Float64, *value);
  Value result = ins.result(dtype_arg(a["dtype"], tensor::DType::Float32, api), trn::BufferKind::Sbuf, r);
  if (auto* t = result.as<NkiTensorObj>()) t->engine_left_to_compiler = !user;
  return result;
}

Value iota_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.iota";
  auto e = to_index_expr(a["expr"]);
  if (!e) throw NkiError(ErrorKind::Type, "expr of nisa.iota must be an nl.arange index expression");
  tensor::Shape shape = e->shape;
  while (shape.size() < 2) shape.push_back(1);
  IndexExpr expr = e->aligned_to(int(e->shape.size()));
  Instruction ins(api, trn::Opcode::Iota, trn::Engine::GpSimd, shape, to_predicate(a["mask"], api));
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Shape bs = ins.box().shape();
    std::vector<double> vals(size_t(tensor::num_elements(bs)));
    std::vector<int64_t> j(bs.size(), 0), abs(bs.size(), 0);
    for (auto& v : vals) {
      for (size_t k = 0; k < j.size(); ++k) abs[k] = ins.box().lo[k] + j[k];
      v = double(expr.value_at(abs.data()));
      for (int k = int(j.size()) - 1; k >= 0; --k) {
        if (++j[size_t(k)] < bs[size_t(k)]) break;
        j[size_t(k)] = 0;
      }
    }
    r = tensor::Array::from_values(bs, tensor::DType::Float64, vals);
  }
  return ins.result(dtype_arg(a["dtype"], tensor::DType::Int32, api), trn::BufferKind::Sbuf, r);
}

Value affine_select_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.affine_select";
  NkiTensorObj& t = tile_arg(a["on_true_tile"], api, "on_true_tile");
  auto pred = to_predicate(a["pred"], api);
  auto off = scalar_arg(a["on_false_value"]);
  if (!off) throw NkiError(ErrorKind::Type, "on_false_value of nisa.affine_select must be a scalar");
  Instruction ins(api, trn::Opcode::Select, trn::Engine::GpSimd, t.shape(), to_predicate(a["mask"], api));
  ins.psum_inputs_copied_by_compiler();
  tensor::Array v = ins.input(t);
  tensor::Array r = no_values();
  if (ins.computing()) {
    MaskRegion region = mask_region(pred.get(), t.shape());
    tensor::Shape bs = ins.box().shape();
    tensor::Array src = tensor::astype(v, tensor::DType::Float64);
    std::vector<double> vals(size_t(tensor::num_elements(bs)));
    std::vector<int64_t> j(bs.size(), 0), abs(bs.size());
    for (auto& out : vals) {
      bool in_box = true;
      for (size_t k = 0; k < j.size(); ++k) {
        abs[k] = ins.box().lo[k] + j[k];
        in_box = in_box && abs[k] >= region.box.lo[k] && abs[k] < region.box.hi[k];
      }
      out = in_box && region.holds(abs) ? src.get(j) : *off;
      for (int k = int(j.size()) - 1; k >= 0; --k) {
        if (++j[size_t(k)] < bs[size_t(k)]) break;
        j[size_t(k)] = 0;
      }
    }
    r = tensor::Array::from_values(bs, tensor::DType::Float64, vals);
  }
  return ins.result(dtype_arg(a["dtype"], t.dtype(), api), trn::BufferKind::Sbuf, r);
}

// A newer-API dma_copy between equal element counts of different shapes: element i of dst (in
// row-major order of its access) takes element i of src (in row-major order of its access). That is
// the order the DMA walks each side's access pattern in (trainium-performance.md 1.6: a transfer is
// a list of contiguous buffers on each side), and the reading of 12.2's "element counts must match"
// that gives every copy of a shape-matched pair the same meaning. One side is viewed in the other's
// shape (a regrouping of its index ranges, no copy): the HBM side where one side is on chip, so the
// on-chip side keeps its partitions (the instruction's space), else src in dst's shape. Two orders
// that neither view can express (a size straddling two ranges on both sides) are refused by name.
void row_major_pair(const NkiTensorObj& dst, const NkiTensorObj& src, NkiTensorObj& d, NkiTensorObj& s,
                    std::string_view api) {
  auto regroup = [](const NkiTensorObj& t, const tensor::Shape& shape, NkiTensorObj& out) {
    try {
      out = NkiTensorObj(t.storage, reshape_view(t.view, std::vector<int64_t>(shape.begin(), shape.end()),
                                                 view_layout(*t.storage)));
      out.indirect = t.indirect;
      return true;
    } catch (const NkiError& e) {
      if (e.diag.kind != ErrorKind::Value) throw;
      return false;
    }
  };
  if (src.indirect || dst.indirect)
    throw NkiError(ErrorKind::Unsupported, fmt::format("{}: an indirect access of a shape other than the other side's "
                                                       "(dst{}, src{})", api, tensor::shape_str(dst.shape()),
                                                       tensor::shape_str(src.shape())));
  // src viewed in dst's shape (d stays), or dst in src's (s stays), in the order above.
  auto src_as_dst = [&] { return regroup(src, dst.shape(), s) && (d = dst, true); };
  auto dst_as_src = [&] { return regroup(dst, src.shape(), d) && (s = src, true); };
  if (dst.on_chip() || !src.on_chip() ? src_as_dst() || dst_as_src() : dst_as_src() || src_as_dst()) return;
  throw NkiError(ErrorKind::Unsupported,
                 fmt::format("{}: dst{} and src{} hold the same element count, but neither access can be viewed in "
                             "the other's shape without a copy (a size straddles two strided index ranges on both "
                             "sides): split the copy",
                             api, tensor::shape_str(dst.shape()), tensor::shape_str(src.shape())));
}

Value dma_copy_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.dma_copy";
  auto* dst = a["dst"].as<NkiTensorObj>();
  auto* src = a["src"].as<NkiTensorObj>();
  if (!dst || !src) throw NkiError(ErrorKind::Type, "dst and src of nisa.dma_copy must be tensors");
  if (src->storage->buffer == trn::BufferKind::Psum || dst->storage->buffer == trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, "err_unsupported_memory: DMA cannot access PSUM (nisa.dma_copy)");
  int rank = std::max(dst->view.ndim(), src->view.ndim());
  NkiTensorObj d = padded(*dst, rank), s = padded(*src, rank);
  int64_t nd = tensor::num_elements(d.shape()), ns = tensor::num_elements(s.shape());
  // The legacy API (8.4) copies a tile to a tile of its shape; the newer one's rule is "element
  // counts must match" (12.2), so there the two sides pair up element by element (row_major_pair).
  const bool newer_api = imports_newer_api_only(in);
  if (nd != ns || (d.shape() != s.shape() && !newer_api))
    throw NkiError(ErrorKind::Value, newer_api ? fmt::format("dst{} and src{} of nisa.dma_copy hold different element "
                                                             "counts ({} and {})", tensor::shape_str(dst->shape()),
                                                             tensor::shape_str(src->shape()), nd, ns)
                                               : fmt::format("shapes of dst{} and src{} of nisa.dma_copy differ",
                                                             tensor::shape_str(dst->shape()), tensor::shape_str(src->shape())));
  if (d.shape() != s.shape()) row_major_pair(*dst, *src, d, s, api);
  bool from_hbm = !src->on_chip(), to_hbm = !dst->on_chip();
  trn::Opcode op = from_hbm && !to_hbm ? trn::Opcode::DmaLoad : (!from_hbm && to_hbm ? trn::Opcode::DmaStore
                                                                                       : trn::Opcode::DmaCopy);
  if (dst->on_chip()) check_partition_limit(d.shape(), api);
  Instruction ins(api, op, trn::Engine::Dma, d.shape(), to_predicate(a["mask"], api));
  // oob_mode=nisa.oob_mode.skip (1): out-of-bounds indirect indices skip their rows.
  if (a["oob_mode"].is_int() && a["oob_mode"].as_int() == 1) ins.skip_out_of_bounds_indices();
  tensor::Array v = ins.input(s);
  bool rmw = !a["dst_rmw_op"].is_none();
  if (rmw) alu_op(a["dst_rmw_op"], api, "dst_rmw_op");
  ins.output_to(d, v, rmw);
  return Value();
}

// nisa.dma_transpose(src, axes=None): a DMA transpose of a 2-D ([1, 0]), 3-D ([2, 1, 0]) or 4-D
// ([3, 1, 2, 0]) tensor (the documented permutations; other permutations of the axes too).
Value dma_transpose_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.dma_transpose";
  auto* src = a["src"].as<NkiTensorObj>();
  if (!src) throw NkiError(ErrorKind::Type, "src of nisa.dma_transpose must be a tensor");
  NkiTensorObj s = padded(*src, 2);
  int n = s.view.ndim();
  if (n > 4) throw NkiError(ErrorKind::Unsupported, "nisa.dma_transpose transposes tensors of 2 to 4 dimensions");
  std::vector<int> perm;
  if (a["axes"].is_none()) {
    perm = n == 2 ? std::vector<int>{1, 0} : n == 3 ? std::vector<int>{2, 1, 0} : std::vector<int>{3, 1, 2, 0};
  } else {
    for (int64_t ax : to_int_list(a["axes"], "axes")) perm.push_back(int(ax));
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int k = 0; k < int(sorted.size()); ++k)
      if (sorted[size_t(k)] != k || int(perm.size()) != n)
        throw NkiError(ErrorKind::Value, fmt::format("axes of {} must be a permutation of the {} axes of src", api, n));
  }
  tensor::Shape space;
  for (int ax : perm) space.push_back(s.shape()[size_t(ax)]);
  check_partition_limit(space, api);
  Instruction ins(api, trn::Opcode::DmaTranspose, trn::Engine::Dma, space, to_predicate(a["mask"], api));
  const Box& box = ins.box();
  tensor::Array v = no_values(), r = no_values();
  if (!box.empty()) {
    Box in_box = Box::full(s.shape());
    for (int k = 0; k < n; ++k) {
      in_box.lo[size_t(perm[size_t(k)])] = box.lo[size_t(k)];
      in_box.hi[size_t(perm[size_t(k)])] = box.hi[size_t(k)];
    }
    v = ins.input_box(s, in_box);
  }
  if (ins.computing()) r = tensor::transpose(v, perm);
  return ins.result(dtype_arg(a["dtype"], src->dtype(), api), trn::BufferKind::Sbuf, r);
}

Value partition_reduce_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_partition_reduce";
  NkiTensorObj& t = tile_arg(a["data"], api, "data");
  const AluOp& op = alu_op(a["op"], api, "op");
  if (!op.reduce) throw NkiError(ErrorKind::Type, "op of nisa.tensor_partition_reduce must be a reduction operator");
  if (t.storage->buffer == trn::BufferKind::Psum)
    throw NkiError(ErrorKind::Rule, "the GpSimd engine cannot access PSUM (nisa.tensor_partition_reduce)");
  Instruction ins(api, trn::Opcode::TensorPartitionReduce, trn::Engine::GpSimd, t.shape(), to_predicate(a["mask"], api));
  tensor::Array v = ins.input(t), r;
  tensor::Shape out_shape = t.shape();
  out_shape[0] = 1;
  Box out_box = ins.box();
  out_box.lo[0] = 0;
  out_box.hi[0] = 1;
  if (ins.computing()) r = tensor::reduce(*op.reduce, v, {0}, true, tensor::DType::Float32);
  return ins.result_shaped(out_shape, out_box, dtype_arg(a["dtype"], t.dtype(), api), trn::BufferKind::Sbuf, r);
}

// Newer API (NKI 0.6): nisa.iota(dst, pattern, offset=0, channel_multiplier=0) and
// nisa.affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
// cmp_op=equal, offset=0) describe the affine value offset + channel_multiplier * p +
// sum(step_k * i_k) by an access pattern [[step, count], ...] over the free dims of dst.
struct PatternValue {
  int64_t offset = 0, channel = 0;
  std::vector<int64_t> steps;
  double at(const std::vector<int64_t>& idx) const {  // idx: (p, i0, i1, ...)
    int64_t v = offset + channel * idx[0];
    for (size_t k = 0; k < steps.size() && k + 1 < idx.size(); ++k) v += steps[k] * idx[k + 1];
    return double(v);
  }
};

PatternValue pattern_value(const Value& pattern, const Value& offset, const Value& channel, const tensor::Shape& dst,
                           std::string_view api) {
  PatternValue pv;
  pv.offset = offset.is_none() ? 0 : to_int(offset, "offset");
  pv.channel = channel.is_none() ? 0 : to_int(channel, "channel_multiplier");
  std::vector<Value> pairs;
  if (auto* l = pattern.as<ListObj>()) pairs = l->items;
  else if (auto* t = pattern.as<TupleObj>()) pairs = t->items;
  for (const Value& p : pairs) {
    std::vector<int64_t> pr = to_int_list(p, "pattern entry");
    if (pr.size() != 2) throw NkiError(ErrorKind::Type, fmt::format("pattern of {} must be [step, count] pairs", api));
    pv.steps.push_back(pr[0]);
  }
  if (pv.steps.size() + 1 != dst.size())
    throw NkiError(ErrorKind::Value, fmt::format("pattern of {} has {} entries for a destination of shape {} ({} free dims)",
                                                 api, pv.steps.size(), tensor::shape_str(dst), dst.size() - 1));
  return pv;
}

// The element values of `shape` over `box` from a function of the absolute index.
template <class F>
tensor::Array box_values(const Box& box, F value) {
  tensor::Shape bs = box.shape();
  std::vector<double> vals(size_t(tensor::num_elements(bs)));
  std::vector<int64_t> j(bs.size(), 0), abs(bs.size(), 0);
  for (auto& v : vals) {
    for (size_t k = 0; k < j.size(); ++k) abs[k] = box.lo[k] + j[k];
    v = value(abs, j);
    for (int k = int(j.size()) - 1; k >= 0; --k) {
      if (++j[size_t(k)] < bs[size_t(k)]) break;
      j[size_t(k)] = 0;
    }
  }
  return tensor::Array::from_values(bs, tensor::DType::Float64, vals);
}

Value iota_pattern_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.iota";
  NkiTensorObj& dst = tile_arg(a["dst"], api, "dst");
  PatternValue pv = pattern_value(a["pattern"], a["offset"], a["channel_multiplier"], dst.shape(), api);
  Instruction ins(api, trn::Opcode::Iota, trn::Engine::GpSimd, dst.shape(), nullptr);
  tensor::Array r = no_values();
  if (ins.computing()) r = box_values(ins.box(), [&](const std::vector<int64_t>& idx, auto&) { return pv.at(idx); });
  ins.output_to(dst, r, false);
  return Value();
}

Value affine_select_pattern_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.affine_select";
  NkiTensorObj& dst = tile_arg(a["dst"], api, "dst");
  NkiTensorObj& t = tile_arg(a["on_true_tile"], api, "on_true_tile");
  PatternValue pv = pattern_value(a["pattern"], a["offset"], a["channel_multiplier"], dst.shape(), api);
  auto off = scalar_arg(a["on_false_value"]);
  if (!off) throw NkiError(ErrorKind::Type, "on_false_value of nisa.affine_select must be a scalar");
  const AluOp& cmp = a["cmp_op"].is_none() ? *find_alu_op("equal") : alu_op(a["cmp_op"], api, "cmp_op");
  if (!cmp.binary) throw NkiError(ErrorKind::Type, "cmp_op of nisa.affine_select must be a comparison operator");
  Instruction ins(api, trn::Opcode::Select, trn::Engine::GpSimd, dst.shape(), nullptr);
  ins.psum_inputs_copied_by_compiler();
  tensor::Array v = ins.input(t), r = no_values();
  if (ins.computing()) {
    tensor::Array src = tensor::astype(v, tensor::DType::Float64).contiguous();
    const double* sp = src.f64();
    int64_t flat = 0;
    r = box_values(ins.box(), [&](const std::vector<int64_t>& idx, auto&) {
      double keep = apply_scalar(*cmp.binary, pv.at(idx), 0.0);
      return keep != 0 ? sp[flat++] : (flat++, *off);
    });
  }
  ins.output_to(dst, r, false);
  return Value();
}

// nisa.bn_stats: per partition, over the free elements the mask leaves active (flattened), the
// count, mean and count * variance of the even-indexed and of the odd-indexed elements (6
// values); nisa.bn_aggr combines groups of 6 into (mean, variance) (nki-language.md 8.3).
Value bn_stats_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.bn_stats";
  NkiTensorObj& t = tile_arg(a["data"], api, "data");
  int64_t free = 1;
  for (size_t k = 1; k < t.shape().size(); ++k) free *= t.shape()[k];
  if (free > 512)
    throw NkiError(ErrorKind::Rule, fmt::format("free size {} of {} exceeds 512 (bn_stats_fmax)", free, api));
  Instruction ins(api, trn::Opcode::BnStats, trn::Engine::Vector, t.shape(), to_predicate(a["mask"], api));
  tensor::Array v = ins.input(t);
  int64_t p = t.shape()[0];
  tensor::Array r = no_values();
  if (ins.computing()) {
    const Box& box = ins.box();
    tensor::Array x = tensor::astype(v, tensor::DType::Float64).contiguous();
    const double* xp = x.f64();
    tensor::Shape bs = box.shape();
    int64_t row = 1;
    for (size_t k = 1; k < bs.size(); ++k) row *= bs[k];
    std::vector<double> vals(size_t(bs[0]) * 6, 0.0);
    std::vector<int64_t> idx(bs.size(), 0), abs(bs.size(), 0);
    for (int64_t i = 0; i < bs[0]; ++i) {
      double cnt[2] = {0, 0}, sum[2] = {0, 0}, sq[2] = {0, 0};
      for (int64_t e = 0; e < row; ++e) {
        // absolute index of element e of this row, for the parity and the mask's element test
        int64_t rest = e, flat = 0, weight = 1;
        for (size_t k = bs.size(); k-- > 1;) {
          idx[k] = rest % bs[k];
          rest /= bs[k];
          abs[k] = box.lo[k] + idx[k];
          flat += abs[k] * weight;
          weight *= t.shape()[k];
        }
        abs[0] = box.lo[0] + i;
        if (!ins.region().holds(abs)) continue;
        double xv = xp[i * row + e];
        int g = int(flat % 2);
        cnt[g] += 1, sum[g] += xv, sq[g] += xv * xv;
      }
      for (int g = 0; g < 2; ++g) {
        double mean = cnt[g] ? sum[g] / cnt[g] : 0.0;
        vals[size_t(i * 6 + 3 * g)] = cnt[g];
        vals[size_t(i * 6 + 3 * g + 1)] = mean;
        vals[size_t(i * 6 + 3 * g + 2)] = cnt[g] ? std::max(0.0, sq[g] - cnt[g] * mean * mean) : 0.0;
      }
    }
    r = tensor::Array::from_values({bs[0], 6}, tensor::DType::Float64, vals);
  }
  if (auto* info = ins.info()) info->flops = uint64_t(ins.box().elements());
  Box out_box{{ins.box().lo[0], 0}, {ins.box().hi[0], 6}};
  return ins.result_shaped({p, 6}, out_box, dtype_arg(a["dtype"], tensor::DType::Float32, api), trn::BufferKind::Sbuf, r);
}

Value bn_aggr_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.bn_aggr";
  NkiTensorObj& t = tile_arg(a["data"], api, "data");
  int64_t free = 1;
  for (size_t k = 1; k < t.shape().size(); ++k) free *= t.shape()[k];
  if (free % 6 != 0)
    throw NkiError(ErrorKind::Value, fmt::format("data of {} must hold groups of 6 bn_stats values per partition, got "
                                                 "{} values", api, free));
  Instruction ins(api, trn::Opcode::BnAggr, trn::Engine::Vector, t.shape(), to_predicate(a["mask"], api));
  tensor::Array v = ins.input(t);
  int64_t p = t.shape()[0];
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Array x = tensor::astype(v, tensor::DType::Float64).contiguous();
    int64_t rows = ins.box().extent(0), row = x.size() / std::max<int64_t>(rows, 1);
    const double* xp = x.f64();
    std::vector<double> vals(size_t(rows) * 2, 0.0);
    for (int64_t i = 0; i < rows; ++i) {
      double n = 0, total = 0;
      for (int64_t g = 0; g + 2 < row; g += 3) n += xp[i * row + g], total += xp[i * row + g] * xp[i * row + g + 1];
      double mean = n ? total / n : 0.0, m2 = 0;
      for (int64_t g = 0; g + 2 < row; g += 3) {
        double c = xp[i * row + g], d = xp[i * row + g + 1] - mean;
        m2 += xp[i * row + g + 2] + c * d * d;
      }
      vals[size_t(2 * i)] = mean;
      vals[size_t(2 * i + 1)] = n ? m2 / n : 0.0;
    }
    r = tensor::Array::from_values({rows, 2}, tensor::DType::Float64, vals);
  }
  if (auto* info = ins.info()) info->flops = uint64_t(ins.box().elements());
  Box out_box{{ins.box().lo[0], 0}, {ins.box().hi[0], 2}};
  return ins.result_shaped({p, 2}, out_box, dtype_arg(a["dtype"], tensor::DType::Float32, api), trn::BufferKind::Sbuf, r);
}

}  // namespace

void add_isa_engine_functions(ModuleObj& m, DefIsa def_isa) {
  def_isa(m, "bn_stats", {req("data"), kwonly("mask"), kwonly("dtype")}, 1, bn_stats_fn);
  def_isa(m, "bn_aggr", {req("data"), kwonly("mask"), kwonly("dtype")}, 1, bn_aggr_fn);
  m.attrs["nc_matmul"] = Value(std::make_shared<DeclaredBuiltin>(nc_matmul_signature(), nc_matmul_call));
  m.attrs["memset"] = Value(std::make_shared<DeclaredBuiltin>(memset_signature(), memset_call));
  def_isa(m, "nc_transpose", {req("data"), kwonly("mask"), kwonly("dtype"), kwonly("engine")}, 1,
          [](Interpreter& in, BoundArgs& a) {
            NkiTensorObj& t = tile_arg(a["data"], "nisa.nc_transpose", "data");
            return transpose_core(t, "nisa.nc_transpose", engine_of(a["engine"]),
                                  opt_dtype(a["dtype"], "nisa.nc_transpose"), to_predicate(a["mask"], "nisa.nc_transpose"));
          });
  // iota and affine_select: the legacy form (an nl.arange expression / predicate) or the newer
  // destination-first form with an access pattern.
  auto by_form = [&](const char* name, std::vector<Param> legacy, LibFn legacy_fn, std::vector<Param> newer, LibFn newer_fn) {
    auto sig_old = std::make_shared<Signature>(Signature{std::string("nisa.") + name, std::move(legacy), false, false});
    auto sig_new = std::make_shared<Signature>(Signature{std::string("nisa.") + name, std::move(newer), false, false});
    m.attrs[name] = Value(std::make_shared<DeclaredBuiltin>(sig_old, [=](Interpreter& in, CallArgs& args) {
      bool newer_form = !args.args.empty() && args.args[0].as<NkiTensorObj>();
      for (auto& kw : args.kwargs) newer_form = newer_form || kw.first == "dst" || kw.first == "pattern";
      BoundArgs bound = bind_args(newer_form ? *sig_new : *sig_old, args);
      return newer_form ? newer_fn(in, bound) : legacy_fn(in, bound);
    }));
  };
  by_form("iota", {req("expr"), req("dtype"), kwonly("mask")}, iota_fn,
          {req("dst"), req("pattern"), opt("offset"), opt("channel_multiplier"), kwonly("name")}, iota_pattern_fn);
  by_form("affine_select", {req("pred"), req("on_true_tile"), req("on_false_value"), kwonly("mask"), kwonly("dtype")},
          affine_select_fn,
          {req("dst"), req("pattern"), req("channel_multiplier"), req("on_true_tile"), req("on_false_value"),
           opt("cmp_op"), opt("offset"), kwonly("name")},
          affine_select_pattern_fn);
  def_isa(m, "dma_transpose", {req("src"), kwonly("axes"), kwonly("mask"), kwonly("dtype")}, 1, dma_transpose_fn);
  def_isa(m, "tensor_partition_reduce", {req("op"), req("data"), kwonly("mask"), kwonly("dtype")}, 0,
          partition_reduce_fn);
  // Legacy: keyword-only dst/src (8.4); newer API: `dma_copy(dst, src, priority=None, oob_mode=,
  // dge_mode=, engine=, name=)` (12.2). priority, engine and name are scheduling hints and labels.
  def(m, "nisa", "dma_copy", {req("dst"), req("src"), kwonly("mask"), kwonly("dst_rmw_op"), kwonly("oob_mode"),
                              kwonly("dge_mode"), kwonly("priority"), kwonly("engine"), kwonly("name")},
      dma_copy_fn);
}

void add_isa_constants(ModuleObj& m) {
  using E = trn::Engine;
  const std::pair<const char*, std::optional<E>> engines[] = {
      {"tensor_engine", E::Tensor}, {"vector_engine", E::Vector}, {"scalar_engine", E::Scalar},
      {"gpsimd_engine", E::GpSimd}, {"dma_engine", E::Dma},       {"unknown_engine", std::nullopt},
  };
  auto engine_ns = std::make_shared<NamespaceObj>("engine");
  for (auto& [name, e] : engines) {
    Value v(std::make_shared<EngineObj>(e, name));
    m.attrs[name] = v;
    std::string short_name = std::string(name).substr(0, std::string(name).find('_'));
    engine_ns->set(short_name, v);
  }
  // nisa.engine.sync (6): the SP engine that issues DMA queues and semaphores; it has no nisa.*_engine
  // selector of its own (nki-language.md 8.5).
  engine_ns->set("sync", Value(std::make_shared<EngineObj>(E::Sync, "sync_engine")));
  m.attrs["engine"] = Value(engine_ns);
  auto enum_ns = [&](const char* name, std::vector<std::pair<const char*, int>> values) {
    auto ns = std::make_shared<NamespaceObj>(name);
    for (auto& [n, v] : values) ns->set(n, Value::from_int(v));
    m.attrs[name] = Value(ns);
  };
  enum_ns("reduce_cmd", {{"idle", 0}, {"reset", 1}, {"reduce", 2}, {"reset_reduce", 3}});
  enum_ns("dge_mode", {{"none", 0}, {"swdge", 1}, {"hwdge", 2}, {"unknown", 3}});
  enum_ns("oob_mode", {{"error", 0}, {"skip", 1}});
  enum_ns("nc_version", {{"gen2", 2}, {"gen3", 3}});
  // nc_matmul(perf_mode=): only `none` is documented (12.2); a mode changes speed, not values.
  enum_ns("matmul_perf_mode", {{"none", 0}});
  // The generation of the NeuronCore the kernel runs on (nisa.nc_version: gen2 = trn1, gen3 = trn2).
  def(m, "nisa", "get_nc_version", {}, [](Interpreter&, BoundArgs&) {
    return Value::from_int(KernelContext::current().nc_version);
  });
  auto fp32 = std::make_shared<NamespaceObj>("fp32");
  fp32->set("min", Value::from_float(-3.4028234663852886e38));
  m.attrs["fp32"] = Value(fp32);
}

}  // namespace nki::lib
