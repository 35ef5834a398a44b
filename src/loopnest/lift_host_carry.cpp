// A loop whose carried name starts as a host number and becomes a tile (`carry = 0.0` before
// `for j in nl.sequential_range(n)`, the scan reading `initial=carry`, `carry = h[:, w - 1:w]` at the
// end of the body): Python's first iteration reads the number, the later ones the tile, so one loop
// of the form lifted with the number would hold only the first iteration, and the loop lifted as its
// copies (host_for), every move inside it printing them unrolled (held-out author40 mamba: 4 copies
// of 18 lines where the author wrote one loop).
//
// Chosen: the carried value is a tile from the start. The binding before the loop (`carry = 0.0`)
// is the declaration of an on-chip tile of the shape and dtype the first iteration rebinds the name
// to, filled with the number (nl.full), and the loop lifts as one loop carrying that tile
// (lift_carry.cpp). The first iteration then reads a tile holding the number where the trace reads
// the number itself; every instruction reading it computes the same values (an operand broadcast
// from an immediate or read from a tile of that value, element by element), so only where the
// number is exact in the tile's dtype (any number in float32, where the engines compute; 0 in
// every dtype). The form has one more instruction per entry into the loop (the fill of a tile of
// one column, against the trace's immediate). Peeling the first iteration instead would keep the
// trace's instructions, but the form would hold two copies of the body where the author wrote one
// loop, which prints back as neither; the fill's statement is the author's binding, copied as
// written (`carry = 0.0`), which lifts again to the same form.
//
// Only where the binding is a statement of the block holding the loop (found among the nodes lifted
// before it), every carried number becomes a tile in the first iteration, and the loop then lifts as
// one loop; else the copies, as before.
#include <cmath>

#include <fmt/core.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// The number is the same value in the tile's dtype.
bool exact_in(double x, const std::string& dtype) {
  if (x == 0.0) return true;
  if (dtype == "float32") return static_cast<double>(static_cast<float>(x)) == x;
  return false;
}

}  // namespace

bool Lifter::carry_from_host_number(const ForStmt& s, const AValue& first_item, std::vector<Node>& out) {
  if (s.target->kind != ExprKind::Name) return false;
  const std::string& var = static_cast<const NameExpr&>(*s.target).id;
  std::vector<std::string> numbers;
  for (const auto& name : carried_values(s.body, var))
    if (env.at(name).k == K::Float || (env.at(name).k == K::Int && env.at(name).i.is_constant())) numbers.push_back(name);
  if (numbers.empty()) return false;
  // The binding of each number: a host binding among the nodes before the loop, the last to bind it.
  std::map<std::string, size_t> binding;
  for (const auto& name : numbers) {
    for (size_t i = out.size(); i-- > 0;) {
      const Node& n = out[i];
      if (n.kind != NodeKind::Meta || n.meta != MetaKind::Binding || !n.origin || n.origin->kind != StmtKind::Assign)
        continue;
      const auto& a = static_cast<const AssignStmt&>(*n.origin);
      if (a.targets.size() != 1 || a.targets[0]->kind != ExprKind::Name) continue;
      if (static_cast<const NameExpr&>(*a.targets[0]).id != name) continue;
      binding[name] = i;
      break;
    }
    if (!binding.count(name)) return false;
  }
  const Checkpoint saved = checkpoint();
  // What the first iteration, as Python runs it, leaves under each name.
  std::map<std::string, std::pair<std::vector<IExpr>, std::string>> tiles;
  bool tiles_all = true;
  try {
    std::vector<Node> probe;
    bind_target(*s.target, first_item);
    block(s.body, probe);
    for (const auto& name : numbers) {
      auto it = env.find(name);
      if (it == env.end() || it->second.k != K::Tile) {
        tiles_all = false;
        break;
      }
      const Tensor& t = k.tensor(it->second.access.tensor);
      std::vector<IExpr> shape = it->second.access.tile_shape();
      bool constant = !shape.empty();
      for (const auto& d : shape) constant = constant && d.is_constant();
      if (!constant || !t.on_chip() || t.dtype.empty()) {
        tiles_all = false;
        break;
      }
      tiles[name] = {shape, t.dtype};
    }
  } catch (const LiftError&) {
    tiles_all = false;
  }
  rollback(saved);
  if (!tiles_all) return false;
  for (const auto& name : numbers) {
    const AValue& number = env.at(name);
    const double x = number.k == K::Float ? number.f : static_cast<double>(number.i.constant());
    if (!exact_in(x, tiles.at(name).second)) return false;
  }
  const std::vector<Node> out_before = out;
  try {
    for (const auto& name : numbers) {
      const AValue number = env.at(name);
      const double x = number.k == K::Float ? number.f : static_cast<double>(number.i.constant());
      const auto& [shape, dtype] = tiles.at(name);
      Node& n = out[binding.at(name)];
      const auto& a = static_cast<const AssignStmt&>(*n.origin);
      std::vector<AValue> dims;
      for (const auto& d : shape) dims.push_back(AValue::of_int(d));
      std::vector<Op> ops;
      auto* saved_ops = current_ops;
      current_ops = &ops;
      AValue tile = apply("nl.full",
                          {{"shape", AValue::of_tuple(std::move(dims))},
                           {"fill_value", number.k == K::Float ? number : AValue::of_float(x)},
                           {"dtype", AValue::of_kind(K::DType, dtype)},
                           {"buffer", AValue::of_kind(K::Symbol, "buffer:sbuf")}},
                          {}, *a.value, nullptr);
      current_ops = saved_ops;
      if (ops.size() != 1 || tile.k != K::Tile) fail(a.span, "a carried number's fill");
      for (auto& arg : ops[0].args) arg.value.origin = nullptr;
      Tensor& t = k.tensor(tile.access.tensor);
      t.name = name;
      // The tile lives where the name was bound: the loops around the binding (the loop being
      // lifted is not on the stack yet).
      t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
      n.kind = NodeKind::Stmt;
      n.meta = MetaKind::None;
      n.ops = std::move(ops);
      env[name] = tile;
    }
    unrolling_static = true;
    for_loop(s, out);
    unrolling_static = false;
    return true;
  } catch (const LiftError&) {
    unrolling_static = false;
    rollback(saved);
    out = out_before;
    return false;
  }
}

}  // namespace loopnest::detail
