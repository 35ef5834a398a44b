// A loop over the items of a list of tiles carrying a value from one item to the next:
//
//     row_max = nl.max(chunks[0], axis=1, keepdims=True)
//     for t in chunks[1:]:
//         row_max = nl.maximum(row_max, nl.max(t, axis=1, keepdims=True))
//
// Python runs the body once per item while tracing, each copy rebinding the carried name; the
// copies (an Inline `for` node, host_for) are one statement per item that no move can change as a
// whole. When the items step alike (blocks j..n-1 of one list tensor, a comprehension's list: the
// same tile at another block index, progression_item), the loop is one loop of the form over the
// block index (`for t in range(1, 8)` in the form, `scores_item[t]` the item) whose carried name is a
// tile written in every iteration and read in the next (lift_carry.cpp: the same form a `for i in
// range(1, n)` loop over `chunks[i]` lifts to). The recurrence is what the form says, so every move
// sees the sequential dependence; nothing here depends on names.
//
// Only a loop whose body carries a tile: an item loop without a carried value stays the copies it
// was (kept out so the site lists of kernels without a chain do not change). Printed back as written
// while unchanged; changed, the whole loop is printed from the form (emit_block.cpp item_loop): its
// header binds the block index, so no statement of the author's (reading `t` as a tile) may be
// copied under it.
#include <utility>

#include <fmt/core.h>

#include "loopnest/item_loop.h"
#include "loopnest/lifter.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

bool Lifter::host_for_as_item_loop(const ForStmt& s, const AValue& seq, std::vector<Node>& out) {
  if (s.target->kind != ExprKind::Name || !s.orelse.empty()) return false;
  const std::string& var = static_cast<const NameExpr&>(*s.target).id;
  auto items = host_items(seq);
  if (!items || items->size() < 2) return false;
  for (const auto& v : *items)
    if (v.k != K::Tile) return false;
  // Blocks of one list tensor (a comprehension's, an append loop's): the loop runs over the block
  // index itself, from the first item's block, so the form reads `scores_item[t]`.
  const Access& first = (*items)[0].access;
  const Tensor& list = k.tensor(first.tensor);
  if (list.list_loop < 0 || !list.outer_lists.empty() || first.dims.empty() || !first.dims[0].terms.empty() ||
      !first.dims[0].start.is_constant() || first.dims.size() != list.shape.size())
    return false;
  // Each item a whole block (`chunks[j]`, not a part of it).
  for (size_t d = 1; d < first.dims.size(); ++d) {
    const DimIndex& x = first.dims[d];
    if (!(x.start == IExpr(0)) || x.terms.size() != 1 || x.terms[0].stride != 1 || !x.terms[0].affine() ||
        !(x.terms[0].size == list.shape[d]))
      return false;
  }
  const int64_t from = first.dims[0].start.constant();
  if (!carried_value(s.body, var) || sets_attributes(s.body)) return false;
  const Checkpoint saved = checkpoint();
  try {
    const Loop loop = new_loop({.var = var,
                                .kind = LoopKind::Range,
                                .start = IExpr(from),
                                .stop = IExpr(from + static_cast<int64_t>(items->size()))});
    loop_stack.push_back(loop.id);
    auto item = progression_item(*items, IExpr::var(loop.id) - IExpr(from), ranges(), &k);
    loop_stack.pop_back();
    // Item j is block j (step 1 along the list's dim): anything else is not the list walked in order.
    if (!item || item->k != K::Tile || !(item->access.dims[0].start == IExpr::var(loop.id)))
      fail(s.iter->span, "a loop over tiles that are not the blocks of one list in order");
    std::map<std::string, int> carried_here = carry_buffers(s, carried_values(s.body, var));
    Node n = new_node(NodeKind::Loop, s);
    n.loop = loop.id;
    auto outer_value = env.find(var) == env.end() ? std::optional<AValue>() : std::optional<AValue>(env[var]);
    env[var] = *item;
    loop_stack.push_back(loop.id);
    auto before = env;
    auto outer_carried = carried;
    for (const auto& [name, t] : carried_here) carried[name] = t;
    const int outer_break = std::exchange(break_loop, -1);  // a break in the body: the copies say it
    loop_body(s.body, n.body);
    break_loop = outer_break;
    carried = std::move(outer_carried);
    loop_stack.pop_back();
    env.erase(var);
    if (outer_value) env[var] = *outer_value;
    forget_loop_bindings(before, loop.id);
    out.push_back(std::move(n));
    return true;
  } catch (const LiftError&) {
    rollback(saved);
    return false;
  }
}

}  // namespace loopnest::detail

namespace loopnest {

bool item_loop(const Kernel& k, const Node& n) {
  if (n.kind != NodeKind::Loop || !n.origin || n.origin->kind != nki::StmtKind::For) return false;
  const Loop& l = k.loops.at(n.loop);
  if (l.host_items || l.program) return false;
  return static_cast<const nki::ForStmt&>(*n.origin).iter->kind != nki::ExprKind::Call;
}

}  // namespace loopnest
