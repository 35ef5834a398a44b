// nki.language APIs that the compiler expands into several instructions (nl.var, nl.all,
// nl.rms_norm) and the per-partition gather nl.gather_flattened. Each composite is written as the
// instruction sequence a kernel author would write by hand, so its trace costs what that costs.
#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/language_math.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/module_util.h"

namespace nki::lib {

namespace {

const std::string kNl = "nl";
using tensor::BinaryOp;
using tensor::DType;

// var(x) = mean((x - mean(x))^2) over `axis` (numpy's population variance, ddof=0).
Value nl_var(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.var";
  NkiTensorObj& x = tile_arg(a["x"], api, "x");
  MaskPtr mask = to_predicate(a["mask"], api);
  const AluOp& add = *find_alu_op("add");
  Value mean = reduce_core(add, x, a["axis"], true, false, DType::Float32, api, mask, true);
  Value centered = elementwise_binary(in, BinaryOp::Sub, a["x"], mean, api, make_dtype(DType::Float32), mask);
  Value squared = elementwise_binary(in, BinaryOp::Mul, centered, centered, api, make_dtype(DType::Float32), mask);
  std::optional<DType> out = opt_dtype(a["dtype"], api);
  return reduce_core(add, *squared.as<NkiTensorObj>(), a["axis"], a["keepdims"].truthy(), false, out ? out : x.dtype(),
                     api, mask, true);
}

// all(x) over `axis`: whether every element is non-zero, as the minimum of (x != 0).
Value nl_all(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.all";
  tile_arg(a["x"], api, "x");
  MaskPtr mask = to_predicate(a["mask"], api);
  Value nonzero = elementwise_binary(in, BinaryOp::Ne, a["x"], Value::from_int(0), api, make_dtype(DType::UInt8), mask);
  std::optional<DType> out = opt_dtype(a["dtype"], api);
  return reduce_core(*find_alu_op("min"), *nonzero.as<NkiTensorObj>(), a["axis"], a["keepdims"].truthy(), false,
                     out ? out : DType::Bool, api, mask);
}

// rms_norm(x, w, axis, n, epsilon) = x / sqrt(sum(x^2 over axis) / n + epsilon) * w.
Value nl_rms_norm(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.rms_norm";
  require_fp32_compute(a["compute_dtype"], api);
  NkiTensorObj& x = tile_arg(a["x"], api, "x");
  MaskPtr mask = to_predicate(a["mask"], api);
  double n = to_float(a["n"], "n of nl.rms_norm");
  if (n <= 0) throw NkiError(ErrorKind::Value, fmt::format("n of nl.rms_norm must be positive, got {}", n));
  Value f32 = make_dtype(DType::Float32);
  Value squared = elementwise_unary(in, tensor::UnaryOp::Square, a["x"], api, f32, mask);
  Value sum = reduce_core(*find_alu_op("add"), *squared.as<NkiTensorObj>(), a["axis"], true, false, DType::Float32, api,
                          mask);
  Value mean = elementwise_binary(in, BinaryOp::Mul, sum, Value::from_float(1.0 / n), api, f32, mask);
  Value shifted = elementwise_binary(in, BinaryOp::Add, mean, a["epsilon"], api, f32, mask);
  Value inv = elementwise_unary(in, tensor::UnaryOp::Rsqrt, shifted, api, f32, mask);
  Value normed = elementwise_binary(in, BinaryOp::Mul, a["x"], inv, api, f32, mask);
  Value dtype = a["dtype"].is_none() ? make_dtype(x.dtype()) : a["dtype"];
  return elementwise_binary(in, BinaryOp::Mul, normed, a["w"], api, dtype, mask);
}

// gather_flattened(data, indices): per partition, the elements of data's flattened free dims at
// `indices` (same partition); the result has the shape of `indices`.
Value nl_gather_flattened(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nl.gather_flattened";
  refuse_keyword(a["axis"], api, "axis",
                 "the gather runs over each partition's flattened free elements, the documented legacy form; "
                 "the newer API's axis is not modelled");
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  NkiTensorObj& indices = tile_arg(a["indices"], api, "indices");
  if (!tensor::is_integer(indices.dtype()))
    throw NkiError(ErrorKind::Type, fmt::format("indices of {} must be an integer tile, got {}", api,
                                                tensor::name(indices.dtype())));
  check_same_partitions(data, indices, api, "data", "indices");
  Instruction ins(api, trn::Opcode::TensorCopy, trn::Engine::GpSimd, indices.shape(), to_predicate(a["mask"], api));
  tensor::Array d = ins.input_box(data, Box::full(data.shape()));
  tensor::Array idx = ins.input(indices);
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Shape s = ins.box().shape();
    int64_t partitions = data.shape()[0];
    int64_t row = partitions ? tensor::num_elements(data.shape()) / partitions : 0;
    tensor::Array dv = tensor::astype(d, DType::Float64);
    tensor::Array iv = tensor::astype(tensor::broadcast_to(idx, s), DType::Int64);
    const double* dp = dv.f64();
    const int64_t* ip = iv.i64();
    int64_t per = s[0] ? iv.size() / s[0] : 0;
    int64_t p0 = ins.box().lo[0];
    std::vector<double> vals(size_t(iv.size()));
    for (int64_t p = 0; p < s[0]; ++p)
      for (int64_t j = 0; j < per; ++j) {
        int64_t k = ip[p * per + j];
        // Out-of-range indices read garbage on the device; the interpreter reads zero.
        vals[size_t(p * per + j)] = k >= 0 && k < row ? dp[(p0 + p) * row + k] : 0.0;
      }
    r = tensor::Array::from_values(s, DType::Float64, vals);
  }
  return ins.result(dtype_arg(a["dtype"], data.dtype(), api), trn::BufferKind::Sbuf, r);
}

}  // namespace

void add_composite_functions(ModuleObj& m) {
  // keepdims=: the newer API's common reduction signature (nki-language.md 12.1, "reductions
  // nl.sum(x, axis, dtype=None, keepdims=False) etc."); 7.5 lists it for the other reductions.
  Value no = Value::from_bool(false);
  def(m, kNl, "var", {req("x"), req("axis"), kwonly("dtype"), kwonly("mask"), kwonly("keepdims", no)}, nl_var);
  def(m, kNl, "all", {req("x"), req("axis"), kwonly("dtype"), kwonly("mask"), kwonly("keepdims", no)}, nl_all);
  def(m, kNl, "rms_norm",
      {req("x"), req("w"), req("axis"), req("n"), opt("epsilon", Value::from_float(1e-6)), kwonly("dtype"),
       kwonly("compute_dtype"), kwonly("mask")},
      nl_rms_norm);
  def(m, kNl, "gather_flattened", {req("data"), req("indices"), kwonly("mask"), kwonly("dtype"), kwonly("axis")},
      nl_gather_flattened);
}

}  // namespace nki::lib
