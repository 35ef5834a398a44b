#include "loopnest/api.h"

#include <algorithm>
#include <map>
#include <set>

#include "nki/lib/alu_ops.h"
#include "trn/alu_engines.h"
#include "trn/unary_engine.h"

namespace loopnest {

namespace {

const std::set<std::string>& binary_ops() {
  static const std::set<std::string> ops = {
      "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "fmod", "mod", "equal", "not_equal",
      "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
      "bitwise_or", "bitwise_xor", "left_shift", "right_shift"};
  return ops;
}

const std::set<std::string>& unary_ops() {
  static const std::set<std::string> ops = {
      "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "gelu_dx", "gelu_apprx_tanh",
      "gelu_apprx_sigmoid", "gelu_apprx_sigmoid_dx", "silu", "silu_dx", "softplus", "mish", "erf", "erf_dx", "sin",
      "cos", "tan", "arctan", "square", "abs", "negative", "reciprocal", "sign", "ceil", "floor", "trunc",
      "logical_not", "invert", "bitwise_not"};
  return ops;
}

std::map<std::string, ApiSpec> build() {
  std::map<std::string, ApiSpec> m;
  auto add = [&](ApiSpec s) { m[s.name] = std::move(s); };
  using S = ShapeRule;
  using C = OpClass;
  using E = Engine;
  // Data movement.
  add({"nl.load", C::Load, E::Dma, {"src", "mask", "dtype"}, S::Same, {"src"}});
  add({"nl.store", C::Store, E::Dma, {"dst", "value", "mask"}, S::None, {}});
  add({"nl.load_transpose2d", C::Load, E::Dma, {"src", "mask", "dtype"}, S::Transpose, {"src"}});
  add({"nisa.dma_copy", C::DmaCopy, E::Dma, {"dst", "src", "mask", "dst_rmw_op", "oob_mode", "dge_mode", "priority", "engine", "name"}, S::None, {}});
  add({"nisa.dma_transpose", C::Load, E::Dma, {"src", "axes", "mask", "dtype"}, S::Transpose, {"src"}});
  add({"nl.copy", C::Copy, E::Vector, {"src", "mask", "dtype"}, S::Same, {"src"}});
  add({"nisa.tensor_copy", C::Copy, E::Vector, {"src", "mask", "dtype", "engine"}, S::Same, {"src"}});
  add({"nl.broadcast_to", C::Broadcast, E::Vector, {"src", "shape"}, S::ShapeArg, {}});
  // Tensors.
  add({"nl.ndarray", C::Alloc, E::None, {"shape", "dtype", "buffer", "name"}, S::ShapeArg, {}, true});
  add({"nl.zeros", C::Memset, E::Vector, {"shape", "dtype", "buffer", "name"}, S::ShapeArg, {}, true});
  add({"nl.ones", C::Memset, E::Vector, {"shape", "dtype", "buffer", "name"}, S::ShapeArg, {}, true});
  add({"nl.full", C::Memset, E::Vector, {"shape", "fill_value", "dtype", "buffer", "name"}, S::ShapeArg, {}, true});
  add({"nl.zeros_like", C::Memset, E::Vector, {"a", "dtype", "buffer", "name"}, S::Like, {"a"}, true});
  add({"nl.empty_like", C::Alloc, E::None, {"a", "dtype", "buffer", "name"}, S::Like, {"a"}, true});
  add({"nl.shared_constant", C::Alloc, E::None, {"constant", "dtype"}, S::ShapeArg, {}, true});
  add({"nl.shared_identity_matrix", C::Alloc, E::None, {"n", "dtype"}, S::ShapeArg, {}, true});
  add({"nisa.memset", C::Memset, E::GpSimd, {"shape", "value", "dtype", "mask", "engine"}, S::ShapeArg, {}});
  add({"nisa.iota", C::Other, E::GpSimd, {"expr", "dtype", "mask"}, S::Grid, {"expr"}});
  // Tensor Engine.
  add({"nisa.nc_matmul", C::Matmul, E::Tensor,
       {"stationary", "moving", "is_stationary_onezero", "is_moving_onezero", "is_transpose", "tile_position",
        "tile_size", "mask", "accumulate"},
       S::Matmul, {"stationary", "moving"}});
  add({"nl.matmul", C::Matmul, E::Tensor, {"x", "y", "transpose_x", "mask"}, S::NlMatmul, {"x", "y"}});
  add({"nisa.nc_transpose", C::Transpose, E::Tensor, {"data", "mask", "dtype", "engine"}, S::Transpose, {"data"}});
  add({"nl.transpose", C::Transpose, E::Tensor, {"x", "dtype", "mask"}, S::Transpose, {"x"}});
  // Scalar Engine.
  add({"nisa.activation", C::Activation, E::Scalar,
       {"op", "data", "bias", "scale", "reduce_op", "reduce_res", "reduce_cmd", "mask", "dtype"}, S::Same, {"data"}});
  add({"nisa.activation_reduce", C::Activation, E::Scalar,
       {"op", "data", "reduce_op", "reduce_res", "bias", "scale", "mask", "dtype"}, S::Same, {"data"}});
  // Vector Engine (and GpSimd).
  add({"nisa.tensor_tensor", C::Elementwise, E::Vector, {"data1", "data2", "op", "dtype", "mask", "engine"},
       S::Broadcast, {"data1", "data2"}});
  add({"nisa.tensor_scalar", C::Elementwise, E::Vector,
       {"data", "op0", "operand0", "reverse0", "op1", "operand1", "reverse1", "dtype", "mask", "engine"}, S::Same,
       {"data"}});
  add({"nisa.scalar_tensor_tensor", C::Elementwise, E::Vector,
       {"data", "op0", "operand0", "op1", "operand1", "reverse0", "reverse1", "dtype", "mask"}, S::Same, {"data"}});
  add({"nisa.tensor_reduce", C::Reduce, E::Vector, {"op", "data", "axis", "mask", "dtype", "negate", "keepdims"},
       S::Reduce, {"data"}});
  add({"nisa.tensor_partition_reduce", C::Reduce, E::GpSimd, {"op", "data", "mask", "dtype"}, S::Same, {"data"}});
  add({"nisa.tensor_scalar_reduce", C::Elementwise, E::Vector,
       {"data", "op0", "operand0", "reduce_op", "reduce_res", "reverse0", "dtype", "mask"}, S::Same, {"data"}});
  add({"nisa.tensor_tensor_scan", C::Scan, E::Vector,
       {"data0", "data1", "initial", "op0", "op1", "reverse0", "reverse1", "dtype", "mask"}, S::Same, {"data0"}});
  add({"nisa.reciprocal", C::Elementwise, E::Vector, {"data", "dtype", "mask"}, S::Same, {"data"}});
  add({"nisa.affine_select", C::Other, E::GpSimd, {"pred", "on_true_tile", "on_false_value", "mask", "dtype"}, S::Same,
       {"on_true_tile"}});
  // Batch-norm statistics on the Vector Engine: per partition, bn_stats gives 6 values of a chunk of at
  // most 512 free elements, bn_aggr combines groups of 6 into (mean, variance). Class Other: they
  // reduce every free element, which no reduction rule on the form describes.
  add({"nisa.bn_stats", C::Other, E::Vector, {"data", "mask", "dtype"}, S::Stats, {"data"}, false, 6});
  add({"nisa.bn_aggr", C::Other, E::Vector, {"data", "mask", "dtype"}, S::Stats, {"data"}, false, 2});
  // Row-wise selection and search on the Vector Engine: the 8 largest values of each partition, their
  // positions, and the same values knocked out (with their positions as a second output); a
  // predicate or an index range choosing between a tile and a value, with the row reduction in
  // the same instruction; the running scan whose accumulator a reduce_cmd carries across calls.
  add({"nisa.max8", C::Other, E::Vector, {"src", "mask", "dtype"}, S::Stats, {"src"}, false, 8});
  add({"nisa.nc_find_index8", C::Other, E::Vector, {"data", "vals", "mask", "dtype"}, S::Stats, {"data"}, false, 8,
       "uint32"});
  add({"nisa.nc_match_replace8", C::Other, E::Vector, {"data", "vals", "imm", "dst_idx", "mask", "dtype"}, S::Same,
       {"data"}, false, 0, "", {"dst_idx"}});
  add({"nisa.select_reduce", C::Other, E::Vector,
       {"predicate", "on_true", "on_false", "reduce_res", "reduce_cmd", "reduce_op", "reverse_pred", "mask", "dtype"},
       S::Same, {"on_true"}});
  add({"nisa.range_select", C::Other, E::Vector,
       {"on_true_tile", "comp_op0", "comp_op1", "bound0", "bound1", "reduce_cmd", "reduce_res", "reduce_op",
        "range_start", "on_false_value", "mask", "dtype"},
       S::Same, {"on_true_tile"}});
  add({"nisa.tensor_scalar_cumulative", C::Scan, E::Vector,
       {"src", "op0", "op1", "imm0", "imm1", "reduce_cmd", "mask", "dtype"}, S::Same, {"src"}});
  add({"nisa.nc_stream_shuffle", C::Other, E::Vector, {"src", "dst", "shuffle_mask", "mask", "dtype"}, S::None, {}});
  // nl.device_print(prefix, x): prints a tile in simulation only (nki-language.md 7.7), no device
  // instruction; kept in the form as a read of `x`, so no move reorders it past a write of `x`.
  add({"nl.device_print", C::Other, E::None, {"prefix", "x", "mask"}, S::None, {}});
  // GpSimd: segment bounds of a row of ids, and the gather of each core's 16 partitions by index.
  add({"nisa.sequence_bounds", C::Other, E::GpSimd, {"segment_ids", "mask", "dtype"}, S::Bounds, {"segment_ids"},
       false, 0, "int32"});
  add({"nisa.local_gather", C::Other, E::GpSimd, {"src_buffer", "index", "num_elem_per_idx", "num_valid_indices", "mask",
       "dtype"}, S::Gather, {"src_buffer", "index"}});
  // Per partition, the elements of data's free dims at the positions an integer tile names (its shape).
  add({"nl.gather_flattened", C::Other, E::GpSimd, {"data", "indices", "mask", "dtype"}, S::Same, {"indices"}, false, 0,
       "", {}});
  // Destination-first only: dst keeps its elements where the predicate is not set.
  add({"nisa.tensor_copy_predicated", C::Other, E::Vector, {"dst", "src", "predicate", "reverse_pred", "mask", "dtype"},
       S::None, {}});
  add({"nl.abs_max", C::Elementwise, E::Vector, {"x", "y", "dtype", "mask"}, S::Broadcast, {"x", "y"}});
  add({"nl.abs_min", C::Elementwise, E::Vector, {"x", "y", "dtype", "mask"}, S::Broadcast, {"x", "y"}});
  add({"nl.where", C::Elementwise, E::Vector, {"condition", "x", "y", "dtype", "mask"}, S::Broadcast, {"condition", "x", "y"}});
  add({"nl.loop_reduce", C::Reduce, E::Vector, {"x", "op", "loop_indices", "dtype", "mask"}, S::Same, {"x"}});
  for (const char* r : {"sum", "max", "min", "mean", "prod", "all", "any"})
    add({std::string("nl.") + r, C::Reduce, E::Vector, {"x", "axis", "dtype", "mask", "keepdims"}, S::Reduce, {"x"}});
  // The variance is no associative reduction (no partial results to combine): class Other.
  add({"nl.var", C::Other, E::Vector, {"x", "axis", "dtype", "mask", "keepdims"}, S::Reduce, {"x"}});
  // On the engine the ISA table picks for the operator on any data (nl.power and `**` on GpSimd);
  // the lift refines it by the data (an int32 add on GpSimd too: alu_engine.h).
  for (const auto& op : binary_ops()) {
    const nki::lib::AluOp* alu = nki::lib::find_alu_op(op);
    trn::Engine e = alu && alu->binary
                        ? trn::alu_placement(trn::AluForm::TensorTensor, {trn::alu_of(*alu->binary)}, false).chosen
                        : trn::Engine::Vector;
    add({"nl." + op, C::Elementwise, e == trn::Engine::GpSimd ? E::GpSimd : E::Vector, {"x", "y", "dtype", "mask"},
         S::Broadcast, {"x", "y"}});
  }
  // The engine the interpreter runs each on (trn/unary_engine.h): `-x` and nl.negative on the
  // Vector Engine, nl.exp on the Scalar Engine's activation table.
  for (const auto& op : unary_ops())
    add({"nl." + op, C::Activation, trn::unary_on_vector_engine(op) ? E::Vector : E::Scalar, {"x", "dtype", "mask"},
         S::Same, {"x"}});
  add({"nl.softmax", C::Other, E::Scalar, {"x", "axis", "dtype", "compute_dtype", "mask"}, S::Same, {"x"}});
  add({"nl.rms_norm", C::Other, E::Scalar, {"x", "w", "axis", "n", "epsilon", "dtype", "compute_dtype", "mask"},
       S::Same, {"x"}});
  // The random-number generator (nki/lib/language_random.cpp: one state per kernel run; draws on the
  // Vector Engine, seeding no instruction): seeding it, drawing from it. Class Other: no move treats a draw as the
  // elementwise operation it resembles (is_random, lift.cpp's ordered effect).
  add({"nl.random_seed", C::Other, E::None, {"seed", "mask"}, S::None, {}});
  add({"nisa.set_rng_seed", C::Other, E::None, {"seed", "src_seeds", "name"}, S::None, {}});
  add({"nl.rand", C::Other, E::Vector, {"shape", "dtype", "buffer", "name"}, S::ShapeArg, {}, true});
  add({"nl.dropout", C::Other, E::Vector, {"x", "rate", "dtype", "mask"}, S::Same, {"x"}});
  add({"nisa.dropout", C::Other, E::Vector, {"data", "prob", "mask", "dtype"}, S::Same, {"data"}});
  add({"nisa.rand2", C::Other, E::Vector, {"dst", "min", "max", "engine", "name"}, S::None, {}});
  add({"nisa.rng", C::Other, E::Vector, {"dst", "engine", "name"}, S::None, {}});
  return m;
}

}  // namespace

bool is_random(const std::string& name) {
  return name == "nl.random_seed" || name == "nisa.set_rng_seed" || name == "nl.rand" || name == "nl.dropout" ||
         name == "nisa.dropout" || name == "nisa.rand2" || name == "nisa.rng";
}

const ApiSpec* find_api(const std::string& name) {
  static const std::map<std::string, ApiSpec> table = build();
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

bool is_output_param(const ApiSpec& spec, const std::string& param) {
  return param == "reduce_res" || std::find(spec.outputs.begin(), spec.outputs.end(), param) != spec.outputs.end();
}

bool is_binary_language_op(const std::string& name) {
  return name.rfind("nl.", 0) == 0 && binary_ops().count(name.substr(3));
}

bool is_unary_language_op(const std::string& name) {
  return name.rfind("nl.", 0) == 0 && unary_ops().count(name.substr(3));
}

std::string operator_symbol(const std::string& name) {
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::optional<std::pair<std::string, std::string>> list_item_name(const std::string& name) {
  const size_t open = name.find('[');
  if (open == std::string::npos || open == 0 || name.back() != ']') return std::nullopt;
  return std::make_pair(name.substr(0, open), name.substr(open));
}

int made_tile(const Op& op) {
  if (op.result >= 0) return op.result;
  const ApiSpec* spec = find_api(op.api);
  return spec && spec->creates && op.dst ? op.dst->tensor : -1;
}

std::string appended_list(const Node& n) {
  if (!n.origin || n.origin->kind != nki::StmtKind::Expr) return "";
  const nki::Expr& e = *static_cast<const nki::ExprStmt&>(*n.origin).value;
  if (e.kind != nki::ExprKind::Call) return "";
  const nki::Expr& f = *static_cast<const nki::CallExpr&>(e).func;
  if (f.kind != nki::ExprKind::Attribute) return "";
  const auto& attr = static_cast<const nki::AttributeExpr&>(f);
  if (attr.attr != "append" || attr.value->kind != nki::ExprKind::Name) return "";
  return static_cast<const nki::NameExpr&>(*attr.value).id;
}

}  // namespace loopnest
