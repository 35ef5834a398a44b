// A comprehension computing one tile per index, bound to a name (`scores = [nl.matmul(q, k[:, j * 512:
// (j + 1) * 512]) for j in range(n)]`), lifts as the loop it means: one loop over the index whose
// body is the element's statement, its result a list tensor (a block dim over the loop, as
// `scores.append(...)` in a loop makes), each item of the Python list a block of it. Python runs
// the element once per index while tracing, and every copy is the same statement at another
// index; held as a loop, the moves see it (hoist_transpose: the matmul's implicit transpose of `q`,
// the same for every index, done once before the loop) where the frozen copies of an Inline
// `<comprehension>` node offered nothing. Printed back as written while unchanged, as a
// comprehension of the changed statement, or as an explicit loop filling the list (emit_block.cpp).
//
// Rolled only when it means the same: the copies lifted one by one are statements of one tile
// each, as many operations of the same calls, results of one shape, dtype and memory, and the
// element lifted once with the index a loop variable gives that statement again (its result of
// the same shape); else the copies stay (an element whose calls or shapes depend on the index as
// a Python value, a helper call, a ragged last item).
#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/api.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

std::optional<Lifter::RollShape> Lifter::roll_shape(const std::vector<AValue>& items,
                                                    std::vector<Node>& item_nodes) {
  if (items.size() < 2 || item_nodes.size() != items.size()) return std::nullopt;
  RollShape out;
  for (size_t i = 0; i < items.size(); ++i) {
    const AValue& v = items[i];
    Node& n = item_nodes[i];
    if (v.k != K::Tile || !whole_access(v.access) || n.kind != NodeKind::Stmt || n.ops.empty()) return std::nullopt;
    Op* root = producer(n.ops, v, k);
    if (!root || root->result != v.access.tensor || root != &n.ops.back()) return std::nullopt;
    const Tensor& t = k.tensor(v.access.tensor);
    if (!t.name.empty() || t.list_loop >= 0 || t.host_list || t.base >= 0 || t.role != TensorRole::Value) return std::nullopt;
    std::vector<std::string> apis;
    for (const auto& op : n.ops) {
      if (is_random(op.api) || indirect_dma(op)) return std::nullopt;
      apis.push_back(op.api);
    }
    for (const auto& d : t.shape)
      if (!d.is_constant()) return std::nullopt;
    if (i == 0) {
      out.apis = std::move(apis);
      out.shape = t.shape;
      out.dtype = t.dtype;
      out.memory = t.memory;
      out.partition_dim = t.partition_dim;
    } else if (apis != out.apis || t.shape != out.shape || t.dtype != out.dtype || t.memory != out.memory ||
               t.partition_dim != out.partition_dim) {
      return std::nullopt;
    }
  }
  out.count = static_cast<int64_t>(items.size());
  return out;
}

AValue Lifter::roll_comprehension(const ComprehensionExpr& c, const RollShape& shape, LoopKind kind,
                                  const std::vector<AValue>* over, size_t generator) {
  const Comprehension& g = c.generators.at(generator);
  const std::string& var = static_cast<const NameExpr&>(*g.target).id;
  // The comprehension's variable is its own (Python 3), printed only inside it; the form still
  // refuses a loop hiding an enclosing loop's variable of that name (emit_checked).
  for (int l : loop_stack)
    if (k.loops.at(l).var == var) fail(g.target->span, "a comprehension variable naming an enclosing loop's");
  const std::optional<AValue> outer = env.count(var) ? std::optional<AValue>(env.at(var)) : std::nullopt;
  const Loop loop = new_loop({.var = var, .kind = kind, .start = IExpr(0), .stop = IExpr(shape.count)});
  Node n = new_node(NodeKind::Loop, *assigned_statement);
  n.loop = loop.id;
  loop_stack.push_back(loop.id);
  if (!over) {
    env[var] = AValue::of_int(IExpr::var(loop.id));
  } else {
    // `[nl.exp(t - m) for t in chunks]`, chunks the blocks of one list (another comprehension's):
    // `t` is the loop's block.
    if (static_cast<int64_t>(over->size()) != shape.count) fail(g.iter->span, "a comprehension with a condition");
    auto item = progression_item(*over, IExpr::var(loop.id), ranges(), &k);
    if (!item || item->k != K::Tile) fail(g.iter->span, "a comprehension over a list whose tiles do not step alike");
    env[var] = *item;
  }
  std::vector<Op> ops;
  auto* saved_ops = current_ops;
  current_ops = &ops;
  const size_t pending_before = pending_inline.size();
  AValue v = eval(*c.elt);
  current_ops = saved_ops;
  loop_stack.pop_back();
  env.erase(var);
  if (outer) env[var] = *outer;
  if (pending_inline.size() != pending_before) fail(c.elt->span, "a comprehension calling a helper");
  if (v.k != K::Tile || !whole_access(v.access) || ops.size() != shape.apis.size())
    fail(c.elt->span, "a comprehension whose element is not one statement's tile");
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].api != shape.apis[i]) fail(c.elt->span, "a comprehension whose calls depend on the index");
  Op* root = producer(ops, v, k);
  if (!root || root != &ops.back() || root->result != v.access.tensor)
    fail(c.elt->span, "a comprehension whose element is not its last call's result");
  Tensor& t = k.tensor(v.access.tensor);
  if (t.shape != shape.shape || t.dtype != shape.dtype || t.memory != shape.memory ||
      t.partition_dim != shape.partition_dim || t.scope_loop != loop.id || !t.name.empty())
    fail(c.elt->span, "a comprehension whose tile's shape depends on the index");
  // The list tensor (Lifter::append): the items along a first dim over the loop.
  const std::string list = assigned_name;
  t.shape.insert(t.shape.begin(), IExpr(shape.count));
  if (t.on_chip()) t.partition_dim += 1;
  // A returned comprehension (`return [e * inv for e in exps]`) is named by the caller's binding.
  t.list_name = list;
  t.list_loop = loop.id;
  t.name = list.empty() ? "" : list + "_item";
  t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
  Node body = new_node(NodeKind::Stmt, *assigned_statement);
  body.ops = std::move(ops);
  n.body.push_back(std::move(body));
  pending_inline.push_back({kComprehensionLoop, {}, current_ops ? current_ops->size() : 0});
  pending_inline.back().nodes.push_back(std::move(n));
  // Each item is its block, read like any list tensor's (`scores[2]`, or `scores[j]` in a loop: a
  // progression of blocks).
  std::vector<AValue> items;
  const size_t rank = t.shape.size();
  for (int64_t i = 0; i < shape.count; ++i) {
    Access a;
    a.tensor = t.id;
    a.dims.push_back({IExpr(i), {}});
    for (size_t d = 1; d < rank; ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d - 1), t.shape[d], 1}}});
    items.push_back(AValue::of_tile(std::move(a)));
  }
  AValue out = AValue::of_tuple(std::move(items));
  out.k = K::List;
  return out;
}

}  // namespace loopnest::detail
