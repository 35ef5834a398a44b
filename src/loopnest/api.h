// What the loop-nest form knows about each NKI API: its class of operation, default engine,
// parameter order (legacy, value-returning form; the destination-first form of the newer API
// prepends `dst`) and how its result's shape follows from its operands.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

enum class ShapeRule : uint8_t {
  None,       // returns nothing (store, dma_copy, destination-first calls)
  Same,       // the shape of the first operand in `shape_from`
  Broadcast,  // numpy broadcast of the `shape_from` operands
  Reduce,     // `shape_from[0]` reduced along `axis` (kept as 1 with keepdims)
  Matmul,     // nisa.nc_matmul(stationary [K, M], moving [K, N]) -> [M, N]
  NlMatmul,   // nl.matmul(x [M, K], y [K, N], transpose_x) -> [M, N]
  Transpose,  // the 2-D transpose of `shape_from[0]`
  ShapeArg,   // the `shape` argument
  Like,       // a new tensor shaped like `shape_from[0]`
  Stats,      // [partitions of `shape_from[0]`, stats_free]: nisa.bn_stats (6), nisa.bn_aggr (2),
              // nisa.max8 and nisa.nc_find_index8 (8)
  Grid,       // the shape of the index grid `shape_from[0]` (nisa.iota of an expression)
  Bounds,     // [P, 2, F] of a [P, F] tile: its start and end rows (nisa.sequence_bounds)
  Gather,     // [partitions of `src_buffer`, free size of `index` * num_elem_per_idx] (nisa.local_gather)
};

struct ApiSpec {
  std::string name;  // "nisa.activation"
  OpClass cls = OpClass::Other;
  Engine engine = Engine::None;
  std::vector<std::string> params;      // legacy positional order
  ShapeRule shape = ShapeRule::Same;
  std::vector<std::string> shape_from;  // the operands the result shape comes from
  bool creates = false;                 // declares a tensor (nl.ndarray, nl.zeros, ...)
  int64_t stats_free = 0;               // ShapeRule::Stats: the result's free size
  std::string result_dtype;             // the result's dtype without dtype= ("" : its first tile operand's)
  std::vector<std::string> outputs;     // tiles it writes besides its result or dst (reduce_res always is)
};

// Whether the API seeds or draws from the kernel's random-number generator (an ordered effect:
// the values each draw gets depend on every draw before it).
bool is_random(const std::string& name);
// The spec of a short API name ("nl.load"); null when unknown.
const ApiSpec* find_api(const std::string& name);
// The tile an inner call of a statement makes for the call around it: its result, or the tensor
// it creates (-1: none).
int made_tile(const Op& op);
// The list of a statement written `name.append(call)` (the author's `blocks.append(nl.load(...))`),
// "" for another statement.
std::string appended_list(const Node& n);
// Whether parameter `param` of `spec` is a tile the operation writes (reduce_res, dst_idx).
bool is_output_param(const ApiSpec& spec, const std::string& param);
// Elementwise binary language functions (nl.add, nl.multiply, ...) and unary ones (nl.exp, ...).
bool is_binary_language_op(const std::string& name);
bool is_unary_language_op(const std::string& name);
// The canonical symbol of a function used as an operator argument: "nl.add" / "np.add" -> "add".
std::string operator_symbol(const std::string& short_api_name);
// `ins[1]`, the name the lift gives an item of a list (lift_assign.cpp): the list's name and the
// subscript (`ins`, `[1]`); nullopt for a name of another form.
std::optional<std::pair<std::string, std::string>> list_item_name(const std::string& name);

}  // namespace loopnest
