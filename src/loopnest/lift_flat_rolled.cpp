// A flattened comprehension of one tile per pair of indices (`probs_t = [nl.transpose(probs[j][:, c *
// 128:(c + 1) * 128]) for j in range(n_kv) for c in range(subs)]`: two for-clauses, one list) lifts as
// the loop nest it means, as a nested comprehension does (lift_nested_rolled.cpp): an outer loop over
// j whose body is the inner clause's loop over c (lift_rolled.cpp), the result one list tensor with a
// block dim per loop. Its Python list is one level, the blocks in row-major order: item f is block
// (f // C, f % C) (flat_list.h), so `probs_t[t]` in `for t in range(n_kv * subs)` is a block of it
// (progression_item) and that loop stays one loop of the form, not one copy per item.
// Rolled only when it means the same: constant ranges from 0 by 1, no condition, name targets, the
// inner range the same in every row, and the copies lifted one by one one statement of one tile
// each, alike (roll_shape); else the copies stay, as Python runs them.
// Printed back as written while unchanged, as a two-clause comprehension of the changed statement
// (emit_nested_rolled.cpp).
#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

AValue Lifter::roll_flat_comprehension(const ComprehensionExpr& c, const RollShape& shape, LoopKind kind) {
  if (c.generators.size() != 2) fail(c.span, "a flattened comprehension of other than two for-clauses");
  for (const auto& g : c.generators)
    if (!g.ifs.empty() || g.target->kind != ExprKind::Name) fail(g.target->span, "a flattened comprehension with a condition");
  const std::string& var = static_cast<const NameExpr&>(*c.generators[0].target).id;
  if (static_cast<const NameExpr&>(*c.generators[1].target).id == var)
    fail(c.span, "a flattened comprehension reusing its outer variable");
  for (int l : loop_stack)
    if (k.loops.at(l).var == var) fail(c.generators[0].target->span, "a comprehension variable naming an enclosing loop's");
  const size_t ops_before = current_ops ? current_ops->size() : 0;
  auto constant_range = [&](const AValue& it) {
    return it.k == K::Range && it.items[0].i == IExpr(0) && it.items[1].i.is_constant() && it.items[2].i == IExpr(1);
  };
  const AValue outer_it = eval(*c.generators[0].iter);
  if (!constant_range(outer_it)) fail(c.generators[0].iter->span, "a flattened comprehension whose outer range is not from 0 by 1");
  const int64_t rows = outer_it.items[1].i.constant();
  if (rows < 1 || shape.count % rows != 0) fail(c.span, "a flattened comprehension whose rows differ in length");
  const std::optional<AValue> outer = env.count(var) ? std::optional<AValue>(env.at(var)) : std::nullopt;
  const Loop loop = new_loop({.var = var, .kind = kind, .start = IExpr(0), .stop = IExpr(rows)});
  Node n = new_node(NodeKind::Loop, *assigned_statement);
  n.loop = loop.id;
  loop_stack.push_back(loop.id);
  env[var] = AValue::of_int(IExpr::var(loop.id));
  // The inner range with the row symbolic: the same in every row.
  const AValue it = eval(*c.generators[1].iter);
  if (current_ops && current_ops->size() != ops_before) fail(c.span, "a comprehension whose iterable computes a tile");
  const int64_t inner_count = shape.count / rows;
  if (!constant_range(it) || it.items[1].i.constant() != inner_count)
    fail(c.generators[1].iter->span, "a flattened comprehension whose inner range is not from 0 by 1 in every row");
  RollShape row_shape = shape;
  row_shape.count = inner_count;
  Tensor& t = roll_row(c, row_shape, it.range_kind, 1, n, var, outer, "a flattened comprehension");
  const std::string list = assigned_name;
  if (t.list_loop < 0 || t.scope_loop != loop.id || !t.outer_lists.empty() || list.empty())
    fail(c.span, "a flattened comprehension whose rows are not one named list");
  // Both levels bear the list's name: one Python list (flat_list.h).
  t.shape.insert(t.shape.begin(), IExpr(rows));
  if (t.on_chip()) t.partition_dim += 1;
  t.outer_lists = {{list, loop.id}};
  t.list_name = list;
  t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
  pending_inline.push_back({kComprehensionLoop, {}, current_ops ? current_ops->size() : 0});
  pending_inline.back().nodes.push_back(std::move(n));
  const size_t rank = t.shape.size();
  std::vector<AValue> items;
  for (int64_t f = 0; f < shape.count; ++f) {
    Access a;
    a.tensor = t.id;
    a.dims.push_back({IExpr(f / inner_count), {}});
    a.dims.push_back({IExpr(f % inner_count), {}});
    for (size_t d = 2; d < rank; ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d - 2), t.shape[d], 1}}});
    items.push_back(AValue::of_tile(std::move(a)));
  }
  AValue out = AValue::of_tuple(std::move(items));
  out.k = K::List;
  return out;
}

}  // namespace loopnest::detail
