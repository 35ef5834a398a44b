// The nki.isa module. Every instruction accepts the legacy call style (returns a fresh tile) and
// the newer destination-first style (`nisa.x(dst, ...)` or `dst=`), which is the legacy
// instruction assigned into `dst` (output dtype = dst.dtype) -- see isa_dispatch below.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "nki/lib/array_value.h"
#include "nki/lib/compute_ops.h"
#include "nki/lib/instruction.h"
#include "nki/lib/isa_functions.h"
#include "nki/lib/isa_positional.h"
#include "nki/lib/kernel_context.h"
#include "nki/lib/language_ops.h"
#include "nki/lib/modules.h"
#include "nki/lib/module_util.h"
#include "nki/range_loops.h"

namespace nki::lib {

std::optional<trn::Engine> engine_of(const Value& v) {
  auto* e = v.is_object() ? dynamic_cast<EngineObj*>(v.object().get()) : nullptr;
  return e ? e->engine : std::nullopt;
}

// 12.2's signatures where they take more by position than the legacy forms (8.3), which take e.g.
// scalar_tensor_tensor's operands and activation's bias by keyword only.
const std::vector<std::string>* isa_newer_positional(const std::string& instruction) {
  static const std::map<std::string, std::vector<std::string>> order = {
      {"nc_transpose", {"data", "engine"}},
      {"activation", {"op", "data", "bias", "scale", "reduce_op", "reduce_res", "reduce_cmd"}},
      {"activation_reduce", {"op", "data", "reduce_op", "reduce_res", "bias", "scale"}},
      {"tensor_tensor", {"data1", "data2", "op", "engine"}},
      {"tensor_scalar", {"data", "op0", "operand0", "reverse0", "op1", "operand1", "reverse1", "engine"}},
      {"scalar_tensor_tensor", {"data", "op0", "operand0", "op1", "operand1", "reverse0", "reverse1"}},
      {"tensor_reduce", {"op", "data", "axis", "negate", "keepdims"}},
      {"tensor_partition_reduce", {"op", "data"}},
      {"tensor_scalar_reduce", {"data", "op0", "operand0", "reduce_op", "reduce_res", "reverse0"}},
      {"tensor_copy", {"src", "engine"}},
  };
  auto it = order.find(instruction);
  return it == order.end() ? nullptr : &it->second;
}

namespace {

bool has_kwarg(const CallArgs& args, std::string_view name) {
  for (auto& [k, v] : args.kwargs)
    if (k == name) return true;
  return false;
}

// Whether a call is destination-first: `dst=`, or more leading positional tensors than the
// legacy signature starts with. One extra leading tensor can instead be a legacy parameter that
// may hold a tile (tensor_tensor_scan's `initial`: `scan(a, b, init_tile, np.multiply, np.add)`):
// it is that parameter unless given by keyword, or unless a number follows it (the
// destination-first call's scalar `initial`).
bool has_dst(const CallArgs& args, const Signature& sig, int legacy_leading_tensors) {
  if (has_kwarg(args, "dst")) return true;
  int leading = 0;
  while (leading < int(args.args.size()) && args.args[size_t(leading)].as<NkiTensorObj>()) ++leading;
  if (leading <= legacy_leading_tensors) return false;
  if (leading == legacy_leading_tensors + 1 && size_t(legacy_leading_tensors) < sig.params.size()) {
    const std::string& p = sig.params[size_t(legacy_leading_tensors)].name;
    bool number_follows = size_t(leading) < args.args.size() && args.args[size_t(leading)].is_number();
    if (p == "initial" && !has_kwarg(args, p) && !number_follows) return false;
  }
  return true;
}

// What a destination-first call binds against: `dst` first, then the newer positional order (up to
// the first parameter this instruction does not take), then the rest by keyword. Without an entry
// above, the legacy parameters as they are. `dst` is bound like the others, so a message counts it
// ("takes 7 positional arguments but 8 were given").
std::shared_ptr<Signature> destination_first_signature(const Signature& legacy, const std::string& name) {
  Signature s{legacy.name, {Param{"dst", std::nullopt, false}}, legacy.var_args, legacy.var_kwargs};
  const auto* order = isa_newer_positional(name);
  if (!order) {
    s.params.insert(s.params.end(), legacy.params.begin(), legacy.params.end());
    return std::make_shared<Signature>(std::move(s));
  }
  std::vector<bool> placed(legacy.params.size(), false);
  for (const auto& n : *order) {
    auto it = std::find_if(legacy.params.begin(), legacy.params.end(), [&](const Param& p) { return p.name == n; });
    if (it == legacy.params.end()) break;
    Param p = *it;
    p.keyword_only = false;
    s.params.push_back(std::move(p));
    placed[size_t(it - legacy.params.begin())] = true;
  }
  for (size_t i = 0; i < legacy.params.size(); ++i) {
    if (placed[i]) continue;
    Param p = legacy.params[i];
    p.keyword_only = true;
    s.params.push_back(std::move(p));
  }
  return std::make_shared<Signature>(std::move(s));
}

// Every instruction also takes name= (nki-language.md 12.2: "Common trailing argument name=None",
// a debug label with no effect on the result; the legacy **kwargs carries it).
void def_isa(ModuleObj& m, const std::string& name, std::vector<Param> params, int leading_tensors, LibFn fn) {
  if (std::none_of(params.begin(), params.end(), [](const Param& p) { return p.name == "name"; }))
    params.push_back(kwonly("name"));
  auto sig = std::make_shared<Signature>(Signature{"nisa." + name, std::move(params), false, false});
  auto dst_sig = destination_first_signature(*sig, name);
  // Where the destination-first signature holds dtype (found once, not per call): dst's dtype goes there.
  const auto dtype_param = std::find_if(dst_sig->params.begin(), dst_sig->params.end(),
                                        [](const Param& p) { return p.name == "dtype"; });
  const size_t dtype_at = size_t(dtype_param - dst_sig->params.begin());
  m.attrs[name] = Value(std::make_shared<DeclaredBuiltin>(sig, [sig, dst_sig, dtype_at, fn, leading_tensors](
                                                                   Interpreter& in, CallArgs& args) {
    if (!has_dst(args, *sig, leading_tensors)) {  // the common legacy call
      BoundArgs bound = bind_args(*sig, args);
      return fn(in, bound);
    }
    BoundArgs bound = bind_args(*dst_sig, args);
    const Value& dst = bound.values[0];  // dst_sig's first parameter
    auto* d = dst.as<NkiTensorObj>();
    if (!d) throw NkiError(ErrorKind::Type, fmt::format("dst of {} must be a tensor, got {}", sig->name, dst.type_name()));
    // The output dtype is dst's (12.2: the newer calls take no dtype=).
    if (dtype_at < dst_sig->params.size() && !bound.given[dtype_at])
      bound.values[dtype_at] = make_dtype(d->dtype()), bound.given[dtype_at] = true;
    Value r = fn(in, bound);
    assign_into(in, *d, r);
    return Value();
  }));
}

MaskPtr mask_of(BoundArgs& a, std::string_view api) { return to_predicate(a["mask"], api); }

Value isa_tensor_tensor(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_tensor";
  const AluOp& op = binary_alu_op(a["op"], api, "op");
  auto dtype = opt_dtype(a["dtype"], api);
  tensor::DType out = dtype.value_or(tensor::nki_promote(tile_arg(a["data1"], api, "data1").dtype(),
                                                         tile_arg(a["data2"], api, "data2").dtype()));
  trn::Engine engine = place_alu(trn::AluForm::TensorTensor, {*op.binary}, out, engine_of(a["engine"]), api);
  return binary_core(*op.binary, a["data1"], a["data2"], api, dtype, mask_of(a, api), trn::Opcode::TensorTensor,
                     engine, true);
}

Value isa_tensor_scalar(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_scalar";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  ScalarStep s0{&scalar_step_op(a["op0"], api, "op0"), a["operand0"], a["reverse0"].truthy()};
  ScalarStep s1;
  if (!a["op1"].is_none()) s1 = ScalarStep{&scalar_step_op(a["op1"], api, "op1"), a["operand1"], a["reverse1"].truthy()};
  auto user = engine_of(a["engine"]);
  auto dtype = opt_dtype(a["dtype"], api);
  const std::array<trn::AluStep, 2> steps{step_alu(*s0.op), s1.op ? step_alu(*s1.op) : trn::AluStep{}};
  trn::Engine engine = place_alu(trn::AluForm::TensorScalar, std::span<const trn::AluStep>(steps.data(), s1.op ? 2 : 1),
                                 dtype.value_or(data.dtype()), user, api);
  return tensor_scalar_core(data, s0, s1, api, dtype, mask_of(a, api), engine, user.has_value());
}

Value isa_activation(Interpreter& in, BoundArgs& a, bool force_reduce) {
  std::string_view api = force_reduce ? "nisa.activation_reduce" : "nisa.activation";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  ActivationArgs args;
  args.func = &alu_op(a["op"], api, "op");
  args.bias = a["bias"];
  args.scale = a["scale"].is_none() ? Value::from_float(1.0) : a["scale"];
  if (!a["reduce_op"].is_none()) args.reduce_op = &alu_op(a["reduce_op"], api, "reduce_op");
  // The Scalar Engine's accumulation registers add ("only add on NeuronCore-v2", nki-language.md
  // nisa.activation): another reduce_op was summed all the same, a row max computed as a row sum.
  if (args.reduce_op && args.reduce_op->binary != tensor::BinaryOp::Add)
    throw NkiError(ErrorKind::Rule, fmt::format("reduce_op of {} must be an add: the Scalar Engine's accumulation "
                                                "registers only add (NeuronCore-v2); reduce the rows with "
                                                "nisa.tensor_reduce instead", api));
  if (a["reduce_res"].as<NkiTensorObj>()) args.reduce_res = &tile_arg(a["reduce_res"], api, "reduce_res");
  args.reduce_cmd = force_reduce ? 3 : int(to_int(a["reduce_cmd"], "reduce_cmd"));
  // reduce_op and reduce_res without a reduce_cmd: this instruction's reduction (reset_reduce).
  if (args.reduce_res && args.reduce_op && !a.was_given("reduce_cmd")) args.reduce_cmd = 3;
  return activation_core(data, args, api, opt_dtype(a["dtype"], api), mask_of(a, api));
}

Value isa_tensor_reduce(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_reduce";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  return reduce_core(alu_op(a["op"], api, "op"), data, a["axis"], a["keepdims"].truthy(), a["negate"].truthy(),
                     opt_dtype(a["dtype"], api), api, mask_of(a, api));
}

Value isa_tensor_scalar_reduce(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_scalar_reduce";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  // "reverse0 not yet supported" (nki-language.md 8.3): the compiler does not take the flag; it
  // was applied silently (operand0 <op0> data) before session 38.
  if (a["reverse0"].truthy())
    throw NkiError(ErrorKind::Rule, fmt::format("reverse0=True of {} is not supported (nki-language.md 8.3: "
                                                "\"reverse0 not yet supported\"); compute operand0 <op0> data with "
                                                "nisa.tensor_scalar, then reduce", api));
  ScalarStep s0{&binary_alu_op(a["op0"], api, "op0"), a["operand0"], false};
  // One Vector Engine instruction with the reduction fused (ISA: Vector only, so not movable).
  ScalarReduce red;
  if (!a["reduce_op"].is_none()) red.op = &alu_op(a["reduce_op"], api, "reduce_op");
  if (a["reduce_res"].as<NkiTensorObj>()) red.res = &tile_arg(a["reduce_res"], api, "reduce_res");
  return tensor_scalar_core(data, s0, ScalarStep{}, api, opt_dtype(a["dtype"], api), mask_of(a, api),
                            trn::Engine::Vector, false, &red);
}

Value isa_scan(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.tensor_tensor_scan";
  NkiTensorObj& d0 = tile_arg(a["data0"], api, "data0");
  NkiTensorObj& d1 = tile_arg(a["data1"], api, "data1");
  return scan_core(d0, d1, a["initial"], alu_op(a["op0"], api, "op0"), alu_op(a["op1"], api, "op1"),
                   a["reverse0"].truthy(), a["reverse1"].truthy(), opt_dtype(a["dtype"], api), mask_of(a, api));
}

Value isa_scalar_tensor_tensor(Interpreter& in, BoundArgs& a) {
  constexpr std::string_view api = "nisa.scalar_tensor_tensor";
  NkiTensorObj& data = tile_arg(a["data"], api, "data");
  ScalarStep s0{&binary_alu_op(a["op0"], api, "op0"), a["operand0"], a["reverse0"].truthy()};
  return scalar_tensor_tensor_core(data, s0, binary_alu_op(a["op1"], api, "op1"), a["operand1"], a["reverse1"].truthy(), api,
                                   opt_dtype(a["dtype"], api), mask_of(a, api));
}

}  // namespace

ObjectPtr make_isa_module(Interpreter& in) {
  auto m = std::make_shared<ModuleObj>("nki.isa");
  ModuleObj& mod = *m;
  Value f = Value::from_bool(false), none;
  def_isa(mod, "tensor_tensor", {req("data1"), req("data2"), req("op"), kwonly("dtype"), kwonly("mask"), kwonly("engine")},
          2, isa_tensor_tensor);
  def_isa(mod, "tensor_scalar", {req("data"), req("op0"), req("operand0"), opt("reverse0", f), opt("op1"),
                                 opt("operand1"), opt("reverse1", f), kwonly("dtype"), kwonly("mask"), kwonly("engine")},
          1, isa_tensor_scalar);
  def_isa(mod, "activation", {req("op"), req("data"), kwonly("bias"), kwonly("scale", Value::from_float(1.0)),
                              kwonly("reduce_op"), kwonly("reduce_res"), kwonly("reduce_cmd", Value::from_int(0)),
                              kwonly("mask"), kwonly("dtype")},
          0, [](Interpreter& in, BoundArgs& a) { return isa_activation(in, a, false); });
  def_isa(mod, "activation_reduce", {req("op"), req("data"), kwonly("reduce_op"), kwonly("reduce_res"), kwonly("bias"),
                                     kwonly("scale", Value::from_float(1.0)), kwonly("mask"), kwonly("dtype"),
                                     kwonly("reduce_cmd", Value::from_int(3))},
          0, [](Interpreter& in, BoundArgs& a) { return isa_activation(in, a, true); });
  def_isa(mod, "tensor_reduce", {req("op"), req("data"), req("axis"), kwonly("mask"), kwonly("dtype"),
                                 kwonly("negate", f), kwonly("keepdims", f)},
          0, isa_tensor_reduce);
  def_isa(mod, "tensor_scalar_reduce", {kwonly("data"), kwonly("op0"), kwonly("operand0"), kwonly("reduce_op"),
                                        kwonly("reduce_res"), kwonly("reverse0", f), kwonly("dtype"), kwonly("mask")},
          1, isa_tensor_scalar_reduce);
  def_isa(mod, "tensor_tensor_scan", {req("data0"), req("data1"), req("initial"), req("op0"), req("op1"),
                                      opt("reverse0", f), opt("reverse1", f), kwonly("dtype"), kwonly("mask")},
          2, isa_scan);
  def_isa(mod, "scalar_tensor_tensor", {kwonly("data"), kwonly("op0"), kwonly("operand0"), kwonly("op1"),
                                        kwonly("operand1"), kwonly("reverse0", f), kwonly("reverse1", f),
                                        kwonly("dtype"), kwonly("mask")},
          1, isa_scalar_tensor_tensor);
  def_isa(mod, "reciprocal", {req("data"), kwonly("dtype"), kwonly("mask")}, 1, [](Interpreter& in, BoundArgs& a) {
    NkiTensorObj& t = tile_arg(a["data"], "nisa.reciprocal", "data");
    Instruction ins("nisa.reciprocal", trn::Opcode::Reciprocal, trn::Engine::Vector, t.shape(),
                    mask_of(a, "nisa.reciprocal"));
    tensor::Array v = ins.input(t), r;
    tensor::DType out = dtype_arg(a["dtype"], t.dtype(), "nisa.reciprocal");
    if (ins.computing()) r = tensor::unary(tensor::UnaryOp::Reciprocal, v, tensor::DType::Float32, out);
    if (auto* info = ins.info()) info->flops = uint64_t(ins.box().elements());
    return ins.result(out, trn::BufferKind::Sbuf, r);
  });
  def_isa(mod, "tensor_copy", {req("src"), kwonly("mask"), kwonly("dtype"), kwonly("engine")}, 1,
          [](Interpreter& in, BoundArgs& a) {
            std::optional<trn::Engine> engine = engine_of(a["engine"]);
            // The newer `nki` API (NKI 0.6) has no tensor_copy on the Scalar Engine of NeuronCore-v2
            // ("use activation(op=nl.copy)", nki-language.md 12.2): one asked for there is refused, and
            // one left to the compiler is never balanced there (a PSUM evacuation neither: it stays on
            // VectorE). The legacy API's copy may run there (8.3: "the Scalar Engine (v2) always goes
            // through fp32"; the recorded Trn1 profiles show legacy PSUM evacuations on ScalarE).
            const bool newer_api_v2 = KernelContext::current().nc_version < 3 && imports_newer_api_only(in);
            if (newer_api_v2 && engine == trn::Engine::Scalar)
              throw NkiError(ErrorKind::Rule, "nisa.tensor_copy does not run on the Scalar Engine of NeuronCore-v2 "
                                              "in the newer nki API; use nisa.activation(op=nl.copy) "
                                              "(nki-language.md 12.2)");
            return copy_tile(in, a["src"], a["dtype"], "nisa.tensor_copy", mask_of(a, "nisa.tensor_copy"), engine,
                             !newer_api_v2);
          });
  add_isa_engine_functions(mod, def_isa);
  add_isa_constants(mod);
  add_isa_select_functions(mod);
  add_isa_rowwise_functions(mod, def_isa);
  add_isa_random_functions(mod, def_isa);
  const std::string trn3 = "a NeuronCore-v4 (trn3) instruction; accelopt models trn1 and trn2";
  const std::string runtime = "it needs run-time register values or addresses, which the interpreter does not model";
  for (const char* name : {"nc_matmul_mx", "quantize_mx", "exponential", "activate2"}) refuse(mod, "nisa", name, trn3);
  for (const char* name : {"tensor_copy_dynamic_src", "tensor_copy_dynamic_dst"})
    refuse(mod, "nisa", name, "removed in NKI 0.4, and its free-dim offset is a run-time value held in SBUF");
  for (const char* name : {"register_alloc", "register_move", "register_load", "register_store", "nc_n_gather",
                           "nonzero_with_count"})
    refuse(mod, "nisa", name, runtime);
  for (const char* name : {"core_barrier", "sendrecv"}) refuse(mod, "nisa", name, "collectives across NeuronCores; accelopt runs one core");
  refuse(mod, "nisa", "dma_compute", "nki-language.md gives its signature only (12.2), not how srcs, scales and dst "
                                     "combine; nisa.dma_copy(dst_rmw_op=np.add) accumulates into dst");
  refuse(mod, "nisa", "topk", "nki-language.md documents it by name only (12.2), not its parameters or results; "
                              "nisa.max8 with nisa.nc_match_replace8 computes the top 8 per partition");
  refuse(mod, "nisa", "builtin_custom_op", "a custom GpSimd library call whose code is not available");
  return m;
}

}  // namespace nki::lib
