// nki.isa instructions that work on each partition's row of elements (the free dims flattened):
// max8, nc_find_index8, nc_match_replace8 (the top-k idiom), select_reduce, range_select,
// tensor_scalar_cumulative, sequence_bounds, and the cross-partition moves local_gather and
// nc_stream_shuffle. Semantics are those of nki-language.md 8.3 / 12.2; where it is silent the
// choice is written next to the code (docs/language.md lists them). Each records one trace
// instruction on its documented engine with an existing opcode, so the simulator costs it by
// its engine and element count.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "nki/lib/alu_ops.h"
#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/isa_functions.h"
#include "nki/lib/language_ops.h"

namespace nki::lib {

namespace {

using tensor::Array;
using tensor::DType;

constexpr double kFp32Min = -3.4028234663852886e38;  // nl.fp32.min

int64_t free_size(const tensor::Shape& s) {
  int64_t n = 1;
  for (size_t k = 1; k < s.size(); ++k) n *= s[k];
  return n;
}

// The region of a tile of `shape` on the partitions of the instruction's box, whole free dims.
Box rows_of(const Box& box, const tensor::Shape& shape) {
  Box r = Box::full(shape);
  r.lo[0] = box.lo[0];
  r.hi[0] = box.hi[0];
  return r;
}

// Values of a region as float64, row-major (one row per partition of the box).
std::vector<double> values_of(const Array& a) {
  Array c = tensor::astype(a, DType::Float64).contiguous();
  return std::vector<double>(c.f64(), c.f64() + c.size());
}

Array array_of(const Box& box, const std::vector<double>& v) { return Array::from_values(box.shape(), DType::Float64, v); }

MaskPtr mask_arg(const BoundArgs& a, std::string_view api) { return to_predicate(a["mask"], api); }

// A per-partition operand: a scalar, or a (P, 1) tile on the instruction's partitions.
struct PerPartition {
  std::optional<double> scalar;
  std::vector<double> rows;
  double at(int64_t r) const { return scalar ? *scalar : rows[size_t(r)]; }
};

PerPartition per_partition(Instruction& ins, const Value& v, std::string_view api, std::string_view what) {
  PerPartition p;
  if (auto s = scalar_arg(v)) {
    p.scalar = *s;
    return p;
  }
  auto* t = v.as<NkiTensorObj>();
  if (!t || free_size(t->shape()) != 1)
    throw NkiError(ErrorKind::Type, fmt::format("{} of {} must be a scalar or a (partitions, 1) tile", what, api));
  Array a = ins.input_box(*t, rows_of(ins.box(), t->shape()));
  if (ins.computing()) p.rows = values_of(a);
  return p;
}

// max8(src): the 8 largest values of each partition, in descending order (Vector Engine).
Value max8_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.max8";
  NkiTensorObj& src = tile_arg(a["src"], api, "src");
  int64_t n = free_size(src.shape());
  if (n < 8 || n > 16384)
    throw NkiError(ErrorKind::Rule, fmt::format("{}: the free size of src must be between 8 and 16384, got {}", api, n));
  Instruction ins(api, trn::Opcode::TensorReduce, trn::Engine::Vector, src.shape(), mask_arg(a, api));
  Array v = ins.input(src);
  tensor::Shape out_shape{src.shape()[0], 8};
  Box ob = rows_of(ins.box(), out_shape);
  Array r = no_values();
  if (ins.computing()) {
    std::vector<double> x = values_of(v), out;
    int64_t rows = ins.box().extent(0), len = rows ? int64_t(x.size()) / rows : 0;
    for (int64_t p = 0; p < rows; ++p) {
      std::vector<double> row(x.begin() + p * len, x.begin() + (p + 1) * len);
      while (row.size() < 8) row.push_back(kFp32Min);  // a mask left fewer than 8 elements
      std::partial_sort(row.begin(), row.begin() + 8, row.end(), std::greater<double>());
      out.insert(out.end(), row.begin(), row.begin() + 8);
    }
    r = array_of(ob, out);
  }
  if (auto* info = ins.info()) info->flops = uint64_t(ins.box().elements());
  return ins.result_shaped(out_shape, ob, dtype_arg(a["dtype"], src.dtype(), api), trn::BufferKind::Sbuf, r);
}

// The searched data and the 8 values per partition of find_index8 / match_replace8.
struct Match8 {
  std::vector<double> data, vals;
  int64_t rows = 0, len = 0;
};

Match8 read_match8(Instruction& ins, NkiTensorObj& data, const Value& vals_v, std::string_view api) {
  NkiTensorObj& vals = tile_arg(vals_v, api, "vals");
  if (free_size(vals.shape()) != 8 || vals.shape()[0] != data.shape()[0])
    throw NkiError(ErrorKind::Value, fmt::format("vals of {} must have shape ({}, 8), got {}", api, data.shape()[0],
                                                 tensor::shape_str(vals.shape())));
  Match8 m;
  Array d = ins.input(data);
  Array v = ins.input_box(vals, rows_of(ins.box(), vals.shape()));
  if (!ins.computing()) return m;
  m.data = values_of(d);
  m.vals = values_of(v);
  m.rows = ins.box().extent(0);
  m.len = m.rows ? int64_t(m.data.size()) / m.rows : 0;
  return m;
}

// Index of each of the 8 values in the partition's row: the first occurrence (not found:
// 0xFFFFFFFF, our choice; the documentation leaves it open). With `replace`, each value's
// first occurrence not yet replaced is overwritten with `imm`, so repeated values (two equal
// maxima from max8) take successive occurrences, which the top-k idiom needs.
std::vector<double> match8(Match8& m, bool replace, double imm) {
  std::vector<double> idx;
  for (int64_t p = 0; p < m.rows; ++p) {
    double* row = m.data.data() + p * m.len;
    std::vector<bool> taken(size_t(m.len), false);
    for (int k = 0; k < 8; ++k) {
      double want = m.vals[size_t(p * 8 + k)];
      int64_t at = -1;
      for (int64_t j = 0; j < m.len && at < 0; ++j)
        if (row[j] == want && !(replace && taken[size_t(j)])) at = j;
      idx.push_back(at < 0 ? 4294967295.0 : double(at));
      if (replace && at >= 0) taken[size_t(at)] = true;
    }
    if (replace)
      for (int64_t j = 0; j < m.len; ++j)
        if (taken[size_t(j)]) row[j] = imm;
  }
  return idx;
}

Value find_index8_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.nc_find_index8";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  Instruction ins(api, trn::Opcode::TensorReduce, trn::Engine::Vector, data.shape(), mask_arg(a, api));
  Match8 m = read_match8(ins, data, a["vals"], api);
  tensor::Shape out_shape{data.shape()[0], 8};
  Box ob = rows_of(ins.box(), out_shape);
  Array r = ins.computing() ? array_of(ob, match8(m, false, 0)) : no_values();
  return ins.result_shaped(out_shape, ob, dtype_arg(a["dtype"], DType::UInt32, api), trn::BufferKind::Sbuf, r);
}

Value match_replace8_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.nc_match_replace8";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  auto imm = scalar_arg(a["imm"]);
  if (!imm) throw NkiError(ErrorKind::Type, fmt::format("imm of {} must be a scalar", api));
  Instruction ins(api, trn::Opcode::TensorCopy, trn::Engine::Vector, data.shape(), mask_arg(a, api));
  Match8 m = read_match8(ins, data, a["vals"], api);
  std::vector<double> idx = ins.computing() ? match8(m, true, *imm) : std::vector<double>{};
  if (auto* dst_idx = a["dst_idx"].as<NkiTensorObj>()) {
    // The indices are the instruction's second output.
    if (free_size(dst_idx->shape()) != 8 || dst_idx->shape()[0] != data.shape()[0])
      throw NkiError(ErrorKind::Value, fmt::format("dst_idx of {} must have shape ({}, 8)", api, data.shape()[0]));
    Box ib = rows_of(ins.box(), dst_idx->shape());
    if (auto* info = ins.info()) info->outputs.push_back(make_operand(*dst_idx, ib));
    if (ins.computing()) write_region(*dst_idx, ib, Array::from_values(ib.shape(), DType::Float64, idx), nullptr);
    dst_idx->storage->written = true;
  }
  Array r = ins.computing() ? Array::from_values(ins.box().shape(), DType::Float64, m.data) : no_values();
  return ins.result(dtype_arg(a["dtype"], data.dtype(), api), trn::BufferKind::Sbuf, r);
}

// Per-partition fold of `vals` (rows x len) with op.
std::vector<double> fold_rows(const AluOp& op, const std::vector<double>& vals, int64_t rows) {
  std::vector<double> out;
  int64_t len = rows ? int64_t(vals.size()) / rows : 0;
  for (int64_t p = 0; p < rows; ++p) {
    double acc = vals[size_t(p * len)];
    for (int64_t j = 1; j < len; ++j) acc = double(float(apply_scalar(*op.binary, acc, vals[size_t(p * len + j)])));
    out.push_back(acc);
  }
  return out;
}

// Writes the per-partition reduction into reduce_res as part of the instruction.
void write_reduction(Instruction& ins, const Value& res_v, const AluOp& op, const std::vector<double>& vals,
                     std::string_view api) {
  auto* res = res_v.as<NkiTensorObj>();
  if (!res) return;
  if (!op.binary) throw NkiError(ErrorKind::Type, fmt::format("reduce_op of {} must be a binary ALU operator", api));
  if (free_size(res->shape()) != 1 || res->shape()[0] != ins.space()[0])
    throw NkiError(ErrorKind::Value, fmt::format("reduce_res of {} must have shape ({}, 1)", api, ins.space()[0]));
  Box rb = rows_of(ins.box(), res->shape());
  if (auto* info = ins.info()) {
    info->outputs.push_back(make_operand(*res, rb));
    info->has_reduce = true;
  }
  if (ins.computing()) write_region(*res, rb, Array::from_values(rb.shape(), DType::Float64, fold_rows(op, vals, ins.box().extent(0))), nullptr);
  res->storage->written = true;
}

const AluOp& reduce_op_arg(const Value& v, std::string_view api) {
  return v.is_none() ? *find_alu_op("maximum") : alu_op(v, api, "reduce_op");
}

// The selected values as the instruction's result (select_reduce, range_select), with the
// optional per-partition reduction into reduce_res.
Value select_result(Instruction& ins, BoundArgs& a, const std::vector<double>& out, DType dflt, std::string_view api) {
  write_reduction(ins, a["reduce_res"], reduce_op_arg(a["reduce_op"], api), out, api);
  Array r = ins.computing() ? array_of(ins.box(), out) : no_values();
  return ins.result(dtype_arg(a["dtype"], dflt, api), trn::BufferKind::Sbuf, r);
}

// select_reduce(predicate, on_true, on_false, reduce_res=None, reduce_op=max, reverse_pred=False):
// out = on_true where predicate (non-zero) else on_false (a tile, a (P, 1) tile or a scalar);
// with reduce_res, each partition's reduction of out.
Value select_reduce_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.select_reduce";
  NkiTensorObj& pred = tile_arg(a["predicate"], api, "predicate");
  NkiTensorObj& on_true = tile_arg(a["on_true"], api, "on_true");
  check_same_partitions(on_true, pred, api, "on_true", "predicate");
  Instruction ins(api, trn::Opcode::Select, trn::Engine::Vector, on_true.shape(), mask_arg(a, api));
  Array t = ins.input(on_true), p = ins.input(pred);
  auto* false_tile = a["on_false"].as<NkiTensorObj>();
  bool full_false = false_tile && free_size(false_tile->shape()) != 1;
  Array f = full_false ? ins.input(*false_tile) : no_values();
  PerPartition fv = full_false ? PerPartition{} : per_partition(ins, a["on_false"], api, "on_false");
  bool reverse = a["reverse_pred"].truthy();
  std::vector<double> out;
  if (ins.computing()) {
    std::vector<double> tv = values_of(t), pv = values_of(tensor::broadcast_to(p, ins.box().shape()));
    std::vector<double> ff = full_false ? values_of(tensor::broadcast_to(f, ins.box().shape())) : std::vector<double>{};
    int64_t rows = ins.box().extent(0), len = rows ? int64_t(tv.size()) / rows : 0;
    for (int64_t i = 0; i < int64_t(tv.size()); ++i)
      out.push_back(((pv[size_t(i)] != 0) != reverse) ? tv[size_t(i)] : full_false ? ff[size_t(i)] : fv.at(i / std::max<int64_t>(len, 1)));
  }
  return select_result(ins, a, out, on_true.dtype(), api);
}

// range_select(on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_res=None, reduce_op=max,
// range_start=0, on_false_value=fp32.min): keeps element j of a partition where
// comp_op0(j + range_start, bound0) and comp_op1(j + range_start, bound1) hold (bounds: scalars or
// (P, 1) tiles), else on_false_value; j is the element's index in the flattened free dims.
Value range_select_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.range_select";
  NkiTensorObj& t = tile_arg(a["on_true_tile"], api, "on_true_tile");
  const AluOp& c0 = alu_op(a["comp_op0"], api, "comp_op0");
  const AluOp& c1 = alu_op(a["comp_op1"], api, "comp_op1");
  if (!c0.binary || !c1.binary) throw NkiError(ErrorKind::Type, fmt::format("comp_op0/comp_op1 of {} must be comparisons", api));
  Instruction ins(api, trn::Opcode::Select, trn::Engine::Vector, t.shape(), mask_arg(a, api));
  Array v = ins.input(t);
  PerPartition b0 = per_partition(ins, a["bound0"], api, "bound0"), b1 = per_partition(ins, a["bound1"], api, "bound1");
  double start = to_float(a["range_start"], "range_start");
  double off = a["on_false_value"].is_none() ? kFp32Min : to_float(a["on_false_value"], "on_false_value");
  std::vector<double> out;
  if (ins.computing()) {
    std::vector<double> x = values_of(v);
    int64_t rows = ins.box().extent(0), len = rows ? int64_t(x.size()) / rows : 0;
    for (int64_t p = 0; p < rows; ++p)
      for (int64_t j = 0; j < len; ++j) {
        double idx = double(j) + start;
        bool keep = apply_scalar(*c0.binary, idx, b0.at(p)) != 0 && apply_scalar(*c1.binary, idx, b1.at(p)) != 0;
        out.push_back(keep ? x[size_t(p * len + j)] : off);
      }
  }
  return select_result(ins, a, out, t.dtype(), api);
}

double identity_of(tensor::BinaryOp op) {
  switch (op) {
    case tensor::BinaryOp::Mul: return 1.0;
    case tensor::BinaryOp::Maximum: return -INFINITY;
    case tensor::BinaryOp::Minimum: return INFINITY;
    default: return 0.0;
  }
}

// tensor_scalar_cumulative(src, op0, op1, imm0, imm1=None, reduce_cmd=reset_reduce): along each
// partition's row, t = op0(src[j], imm0) and acc = op1(acc, t), out[j] = acc. reduce_cmd reset /
// reset_reduce starts acc at imm1 (op1's identity without imm1); reduce / idle continue from the
// previous cumulative instruction's last values of the partition (the engine's accumulator).
Value cumulative_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_scalar_cumulative";
  NkiTensorObj& src = tile_arg(a["src"], api, "src");
  const AluOp& op0 = alu_op(a["op0"], api, "op0");
  const AluOp& op1 = alu_op(a["op1"], api, "op1");
  if (!op0.binary || !op1.binary) throw NkiError(ErrorKind::Type, fmt::format("op0/op1 of {} must be binary ALU operators", api));
  int64_t cmd = to_int(a["reduce_cmd"], "reduce_cmd");
  Instruction ins(api, trn::Opcode::TensorTensorScan, trn::Engine::Vector, src.shape(), mask_arg(a, api));
  Array v = ins.input(src);
  PerPartition imm0 = per_partition(ins, a["imm0"], api, "imm0");
  std::optional<PerPartition> imm1;
  if (!a["imm1"].is_none()) imm1 = per_partition(ins, a["imm1"], api, "imm1");
  // The engine's accumulator: one value per partition, carried from one instruction to the next.
  std::vector<double>& acc_reg = KernelContext::current().vector_accumulators;
  Array r = no_values();
  if (ins.computing()) {
    std::vector<double> x = values_of(v), out;
    int64_t rows = ins.box().extent(0), len = rows ? int64_t(x.size()) / rows : 0, p0 = ins.box().lo[0];
    if (acc_reg.size() < size_t(src.shape()[0] + p0)) acc_reg.resize(size_t(src.shape()[0] + p0), identity_of(*op1.binary));
    bool reset = cmd == 1 || cmd == 3;
    for (int64_t p = 0; p < rows; ++p) {
      double acc = reset ? (imm1 ? imm1->at(p) : identity_of(*op1.binary)) : acc_reg[size_t(p0 + p)];
      for (int64_t j = 0; j < len; ++j) {
        double t = float(apply_scalar(*op0.binary, x[size_t(p * len + j)], imm0.at(p)));
        acc = float(apply_scalar(*op1.binary, acc, t));
        out.push_back(acc);
      }
      acc_reg[size_t(p0 + p)] = acc;
    }
    r = array_of(ins.box(), out);
  }
  if (auto* info = ins.info()) info->has_reduce = true;
  return ins.result(dtype_arg(a["dtype"], src.dtype(), api), trn::BufferKind::Sbuf, r);
}

// sequence_bounds(segment_ids): for a (1, N) tile of segment ids, the (1, 2, N) tile whose
// [0, 0, j] and [0, 1, j] are the start and the end (exclusive) of the run of equal ids holding
// element j (GpSimd).
Value sequence_bounds_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.sequence_bounds";
  NkiTensorObj& ids = tile_arg(a["segment_ids"], api, "segment_ids");
  if (ids.shape()[0] != 1)
    throw NkiError(ErrorKind::Rule, fmt::format("segment_ids of {} must have one partition, got {}", api, ids.shape()[0]));
  Instruction ins(api, trn::Opcode::Other, trn::Engine::GpSimd, ids.shape(), mask_arg(a, api));
  Array v = ins.input(ids);
  int64_t n = free_size(ids.shape());
  tensor::Shape out_shape{1, 2, n};
  Box ob = Box::full(out_shape);
  Array r = no_values();
  if (ins.computing()) {
    std::vector<double> x = values_of(v), starts(static_cast<size_t>(n)), ends(static_cast<size_t>(n));
    for (int64_t j = 0; j < n;) {
      int64_t k = j;
      while (k < n && x[size_t(k)] == x[size_t(j)]) ++k;
      for (int64_t i = j; i < k; ++i) starts[size_t(i)] = double(j), ends[size_t(i)] = double(k);
      j = k;
    }
    starts.insert(starts.end(), ends.begin(), ends.end());
    r = Array::from_values(out_shape, DType::Float64, starts);
  }
  return ins.result_shaped(out_shape, ob, dtype_arg(a["dtype"], DType::Int32, api), trn::BufferKind::Sbuf, r);
}

// local_gather(src_buffer, index, num_elem_per_idx=1, num_valid_indices=None): each of GpSimd's
// eight cores sees its 16 partitions of src_buffer as one buffer (partition-major); partition p
// gathers, for each of its indices i, the num_elem_per_idx elements starting at
// index[p, i] * num_elem_per_idx of its core's buffer. Output (P, num_indices * num_elem_per_idx).
Value local_gather_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.local_gather";
  NkiTensorObj& src = tile_arg(a["src_buffer"], api, "src_buffer");
  NkiTensorObj& index = tile_arg(a["index"], api, "index");
  if (!tensor::is_integer(index.dtype()))
    throw NkiError(ErrorKind::Type, fmt::format("index of {} must be an integer tile (uint16), got {}", api, tensor::name(index.dtype())));
  check_same_partitions(src, index, api, "src_buffer", "index");
  int64_t per = to_int(a["num_elem_per_idx"], "num_elem_per_idx");
  if (per < 1) throw NkiError(ErrorKind::Value, fmt::format("num_elem_per_idx of {} must be positive", api));
  int64_t parts = src.shape()[0], width = free_size(src.shape()), nidx = free_size(index.shape());
  int64_t valid = a["num_valid_indices"].is_none() ? nidx : to_int(a["num_valid_indices"], "num_valid_indices");
  tensor::Shape out_shape{parts, nidx * per};
  Instruction ins(api, trn::Opcode::Other, trn::Engine::GpSimd, out_shape, mask_arg(a, api));
  Box all_rows = Box::full(src.shape()), idx_rows = Box::full(index.shape());
  Array s = ins.input_box(src, all_rows), ix = ins.input_box(index, idx_rows);
  Array r = no_values();
  if (ins.computing()) {
    std::vector<double> sv = values_of(s), iv = values_of(ix), out;
    const Box& b = ins.box();
    for (int64_t p = b.lo[0]; p < b.hi[0]; ++p) {
      int64_t core = p / 16, core_rows = std::min<int64_t>(16, parts - core * 16);
      for (int64_t c = b.lo[1]; c < b.hi[1]; ++c) {
        int64_t i = c / per, e = c % per;
        if (i >= valid) {
          out.push_back(0.0);
          continue;
        }
        int64_t at = int64_t(iv[size_t(p * nidx + i)]) * per + e;
        if (at < 0 || at >= core_rows * width)
          throw NkiError(ErrorKind::Index, fmt::format("{}: index {} of partition {} is outside its core's {} elements",
                                                       api, iv[size_t(p * nidx + i)], p, core_rows * width));
        out.push_back(sv[size_t(core * 16 * width + at)]);
      }
    }
    r = array_of(b, out);
  }
  return ins.result(dtype_arg(a["dtype"], src.dtype(), api), trn::BufferKind::Sbuf, r);
}

// nc_stream_shuffle(src, dst, shuffle_mask): within each 32-partition quadrant, partition i of
// dst receives partition shuffle_mask[i] of the same quadrant of src; 255 leaves dst's
// partition unchanged. Writes dst; returns nothing.
Value stream_shuffle_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.nc_stream_shuffle";
  NkiTensorObj& src = tile_arg(a["src"], api, "src");
  NkiTensorObj& dst = tile_arg(a["dst"], api, "dst");
  std::vector<int64_t> mask = to_int_list(a["shuffle_mask"], "shuffle_mask");
  if (mask.size() != 32) throw NkiError(ErrorKind::Value, fmt::format("shuffle_mask of {} must list 32 partitions, got {}", api, mask.size()));
  if (src.shape() != dst.shape())
    throw NkiError(ErrorKind::Value, fmt::format("src {} and dst {} of {} must have the same shape", tensor::shape_str(src.shape()),
                                                 tensor::shape_str(dst.shape()), api));
  for (int64_t m : mask)
    if (m != 255 && (m < 0 || m >= 32)) throw NkiError(ErrorKind::Value, fmt::format("shuffle_mask entries of {} must be 0..31 or 255, got {}", api, m));
  Instruction ins(api, trn::Opcode::TensorCopy, trn::Engine::Vector, dst.shape(), mask_arg(a, api));
  Box whole = Box::full(src.shape());
  // The shuffle reads src only (ISA: max(MIN_II, N), a one-input stream). dst is an input only
  // when a 255 entry leaves some of its partitions as they were: then the instruction writes part
  // of dst, which must follow dst's earlier writes. A full shuffle overwrites dst, so it neither
  // waits for dst's last writer nor keeps dst's buffer from being renamed.
  const bool keeps_some = std::find(mask.begin(), mask.end(), int64_t(255)) != mask.end();
  Array s = ins.input_box(src, whole), old = keeps_some ? ins.input_box(dst, whole) : no_values();
  // A shuffle across partitions is VectorE's (its reshape banks, ARCH2), not a copy the compiler
  // may balance onto ScalarE, which reads its own partitions only.
  if (auto* info = ins.info()) info->engine_chosen_by_user = true;
  Array r = no_values();
  if (ins.computing()) {
    std::vector<double> sv = values_of(s), ov = keeps_some ? values_of(old) : std::vector<double>{}, out;
    int64_t parts = src.shape()[0], width = free_size(src.shape());
    const Box& b = ins.box();
    for (int64_t p = b.lo[0]; p < b.hi[0]; ++p) {
      int64_t m = mask[size_t(p % 32)], from = (p / 32) * 32 + m;
      if (m != 255 && from >= parts)
        throw NkiError(ErrorKind::Index, fmt::format("{}: partition {} reads partition {} outside the tile", api, p, from));
      const std::vector<double>& row_src = m == 255 ? ov : sv;
      int64_t row = m == 255 ? p : from;
      std::vector<double> full(row_src.begin() + row * width, row_src.begin() + (row + 1) * width);
      // The box may cover part of the free dims (a mask): take that part of the row.
      Array full_row = Array::from_values(tensor::Shape(src.shape().begin() + 1, src.shape().end()), DType::Float64, full);
      std::vector<tensor::IndexItem> items;
      for (size_t k = 1; k < b.lo.size(); ++k) items.push_back(tensor::Slice{b.lo[k], b.hi[k], std::nullopt});
      std::vector<double> part = values_of(tensor::get_index(full_row, items));
      out.insert(out.end(), part.begin(), part.end());
    }
    r = array_of(b, out);
  }
  ins.output_to(dst, r, false);
  return Value();
}

}  // namespace

void add_isa_rowwise_functions(ModuleObj& m, DefIsa def_isa) {
  def_isa(m, "max8", {kwonly("src"), kwonly("mask"), kwonly("dtype")}, 0, max8_fn);
  def_isa(m, "nc_find_index8", {kwonly("data"), kwonly("vals"), kwonly("mask"), kwonly("dtype")}, 0, find_index8_fn);
  def_isa(m, "nc_match_replace8", {kwonly("data"), kwonly("vals"), kwonly("imm"), kwonly("dst_idx"), kwonly("mask"), kwonly("dtype")},
          0, match_replace8_fn);
  def_isa(m, "select_reduce", {req("predicate"), req("on_true"), req("on_false"), kwonly("reduce_res"),
                               kwonly("reduce_cmd", Value::from_int(0)), kwonly("reduce_op"),
                               kwonly("reverse_pred", Value::from_bool(false)), kwonly("mask"), kwonly("dtype")},
          2, select_reduce_fn);
  def_isa(m, "range_select", {req("on_true_tile"), req("comp_op0"), req("comp_op1"), req("bound0"), req("bound1"),
                              kwonly("reduce_cmd", Value::from_int(3)), kwonly("reduce_res"), kwonly("reduce_op"),
                              kwonly("range_start", Value::from_float(0.0)), kwonly("on_false_value"), kwonly("mask"),
                              kwonly("dtype")},
          1, range_select_fn);
  def_isa(m, "tensor_scalar_cumulative", {req("src"), req("op0"), req("op1"), req("imm0"), opt("imm1"),
                                          opt("reduce_cmd", Value::from_int(3)), kwonly("mask"), kwonly("dtype")},
          1, cumulative_fn);
  def_isa(m, "sequence_bounds", {kwonly("segment_ids"), kwonly("mask"), kwonly("dtype")}, 0, sequence_bounds_fn);
  def_isa(m, "local_gather", {req("src_buffer"), req("index"), opt("num_elem_per_idx", Value::from_int(1)),
                              opt("num_valid_indices"), kwonly("mask"), kwonly("dtype")},
          2, local_gather_fn);
  def(m, "nisa", "nc_stream_shuffle", {req("src"), req("dst"), req("shuffle_mask"), kwonly("mask"), kwonly("dtype")},
      stream_shuffle_fn);
}

}  // namespace nki::lib
