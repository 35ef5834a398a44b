// nki.isa predicated copy: nisa.tensor_copy_predicated (dst[e] = src[e] where predicate[e] is
// non-zero, else dst unchanged), in the legacy keyword form and the newer positional
// destination-first form (dst, src, predicate, reverse_pred).
#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/isa_functions.h"

namespace nki::lib {

namespace {

Value tensor_copy_predicated_fn(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_copy_predicated";
  NkiTensorObj& dst = tile_arg(a["dst"], api, "dst");
  NkiTensorObj& pred = tile_arg(a["predicate"], api, "predicate");
  auto* src = a["src"].as<NkiTensorObj>();
  std::optional<double> src_scalar = src ? std::nullopt : scalar_arg(a["src"]);
  if (!src && !src_scalar)
    throw NkiError(ErrorKind::Type, fmt::format("src of {} must be a tile or a scalar, got {}", api, a["src"].type_name()));
  if (src) check_same_partitions(dst, *src, api, "dst", "src");
  check_same_partitions(dst, pred, api, "dst", "predicate");
  bool reverse = a["reverse_pred"].truthy();
  // Its own opcode: the ISA prices it by where src and predicate are (N split between SBUF and PSUM,
  // 2N both in SBUF), which no other select has. Inputs in this order: predicate, src, dst.
  Instruction ins(api, trn::Opcode::CopyPredicated, trn::Engine::Vector, dst.shape(), to_predicate(a["mask"], api));
  tensor::Array p = ins.input(pred);
  tensor::Array s = src ? ins.input(*src) : no_values();
  tensor::Array old = ins.input(dst);
  tensor::Array r = no_values();
  if (ins.computing()) {
    tensor::Shape shape = ins.box().shape();
    tensor::Array pb = tensor::astype(tensor::broadcast_to(p, shape), tensor::DType::Float64);
    tensor::Array ob = tensor::astype(tensor::broadcast_to(old, shape), tensor::DType::Float64);
    tensor::Array sb = src ? tensor::astype(tensor::broadcast_to(s, shape), tensor::DType::Float64)
                           : tensor::Array::scalar(tensor::DType::Float64, *src_scalar);
    const double *pp = pb.f64(), *op = ob.f64(), *sp = sb.f64();
    std::vector<double> vals(size_t(pb.size()));
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = ((pp[i] != 0) != reverse) ? sp[src ? i : 0] : op[i];
    r = tensor::Array::from_values(shape, tensor::DType::Float64, vals);
  }
  ins.output_to(dst, r, false);
  return Value();
}

}  // namespace

void add_isa_select_functions(ModuleObj& m) {
  def(m, "nisa", "tensor_copy_predicated",
      {req("dst"), req("src"), req("predicate"), opt("reverse_pred", Value::from_bool(false)), kwonly("mask"),
       kwonly("dtype")},
      tensor_copy_predicated_fn);
}

}  // namespace nki::lib
