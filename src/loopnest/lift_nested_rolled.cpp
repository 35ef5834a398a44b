// A nested comprehension of one tile per pair of indices (`x_t = [[nl.transpose(nl.load(x[r, :, k, :]))
// for k in range(KT)] for r in range(R)]`) lifts as the loop nest it means: an outer loop over r whose
// body is the inner comprehension's loop over k (lift_rolled.cpp), the result one list tensor with two
// block dims (`outer_lists` the outer level, as `rows.append(row)` of a list built per iteration
// makes), each `x_t[r][k]` a block of it. Python runs the element once per pair while tracing; the
// copies lifted one by one must each be the inner comprehension's copies of one statement of one tile,
// alike across rows (roll_shape per row, the rows' shapes equal), else the copies stay.
// A row of it indexed by a loop variable (`x_t[r]` in `for r in nl.affine_range(R)`, passed to a
// helper taking `len()` of it and indexing it by k) is the list of that row's blocks
// (progression_list_item), so that loop stays one loop of the form, not one copy per row.
#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

Access list_block(const Tensor& t, const std::vector<IExpr>& index) {
  Access a;
  a.tensor = t.id;
  for (const auto& i : index) a.dims.push_back({i, {}});
  for (size_t d = index.size(); d < t.shape.size(); ++d)
    a.dims.push_back({IExpr(0), {{static_cast<int>(d - index.size()), t.shape[d], 1}}});
  return a;
}

std::vector<AValue> block_rows(const Tensor& t, int64_t rows, int64_t cols) {
  std::vector<AValue> out;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<AValue> items;
    for (int64_t j = 0; j < cols; ++j) items.push_back(AValue::of_tile(list_block(t, {IExpr(i), IExpr(j)})));
    AValue r = AValue::of_tuple(std::move(items));
    r.k = K::List;
    out.push_back(std::move(r));
  }
  return out;
}

// Item `index` of a list of lists of tiles whose items step alike position by position (`x_t[r]` of
// a rolled nested comprehension: row r's tiles): each position's progression. Lists of tiles only
// (a list of host numbers indexed by a loop variable keeps its own rules: progression_item's).
std::optional<AValue> progression_list_item(const std::vector<AValue>& items, const IExpr& index, const Ranges& rg) {
  if (items.empty() || items[0].k != K::List || items[0].items.empty()) return std::nullopt;
  const size_t width = items[0].items.size();
  for (const auto& row : items) {
    if (row.k != K::List || row.items.size() != width) return std::nullopt;
    for (const auto& x : row.items)
      if (x.k != K::Tile) return std::nullopt;
  }
  AValue out = AValue::of_tuple({});
  out.k = K::List;
  for (size_t p = 0; p < width; ++p) {
    std::vector<AValue> column;
    for (const auto& row : items) column.push_back(row.items[p]);
    auto item = progression_item(column, index, rg);
    if (!item) return std::nullopt;
    out.items.push_back(std::move(*item));
  }
  return out;
}

// The rows of a nested comprehension, each the copies of its inner comprehension (an inline node of
// one statement per item): one RollShape for every row, else nullopt.
std::optional<Lifter::RollShape> Lifter::nested_roll_shape(const std::vector<AValue>& items,
                                                           std::vector<Node>& item_nodes) {
  if (items.size() < 2 || item_nodes.size() != items.size()) return std::nullopt;
  std::optional<RollShape> first;
  for (size_t i = 0; i < items.size(); ++i) {
    Node& n = item_nodes[i];
    if (items[i].k != K::List || n.kind != NodeKind::Inline || n.helper != kComprehensionHelper ||
        n.body.size() != items[i].items.size())
      return std::nullopt;
    auto row = roll_shape(items[i].items, n.body);
    if (!row) return std::nullopt;
    if (!first) {
      first = row;
      continue;
    }
    if (row->count != first->count || row->apis != first->apis || row->shape != first->shape ||
        row->dtype != first->dtype || row->memory != first->memory || row->partition_dim != first->partition_dim)
      return std::nullopt;
  }
  return first;
}

AValue Lifter::roll_nested_comprehension(const ComprehensionExpr& c, int64_t rows, const RollShape& row_shape,
                                         LoopKind kind) {
  const Comprehension& g = c.generators[0];
  const std::string& var = static_cast<const NameExpr&>(*g.target).id;
  for (int l : loop_stack)
    if (k.loops.at(l).var == var) fail(g.target->span, "a comprehension variable naming an enclosing loop's");
  if (c.elt->kind != ExprKind::ListComp) fail(c.elt->span, "a nested comprehension whose element is not a list");
  const auto& inner = static_cast<const ComprehensionExpr&>(*c.elt);
  if (inner.generators.size() != 1 || !inner.generators[0].ifs.empty() ||
      inner.generators[0].target->kind != ExprKind::Name)
    fail(inner.span, "a nested comprehension of more than one generator or with a condition");
  if (static_cast<const NameExpr&>(*inner.generators[0].target).id == var)
    fail(inner.span, "a nested comprehension reusing its outer variable");
  const std::optional<AValue> outer = env.count(var) ? std::optional<AValue>(env.at(var)) : std::nullopt;
  const Loop loop = new_loop({.var = var, .kind = kind, .start = IExpr(0), .stop = IExpr(rows)});
  Node n = new_node(NodeKind::Loop, *assigned_statement);
  n.loop = loop.id;
  loop_stack.push_back(loop.id);
  env[var] = AValue::of_int(IExpr::var(loop.id));
  // The inner range, with the row symbolic: from 0 by 1 over as many items in every row.
  const size_t ops_before = current_ops ? current_ops->size() : 0;
  AValue it = eval(*inner.generators[0].iter);
  if (current_ops && current_ops->size() != ops_before) fail(inner.span, "a comprehension whose iterable computes a tile");
  if (it.k != K::Range || !(it.items[0].i == IExpr(0)) || !(it.items[1].i == IExpr(row_shape.count)) ||
      !(it.items[2].i == IExpr(1)))
    fail(inner.generators[0].iter->span, "a nested comprehension whose inner range is not from 0 by 1 in every row");
  // The row's list tensor (one block dim over the inner loop) gets the outer block dim: `x_t[r][k]`.
  Tensor& t = roll_row(inner, row_shape, it.range_kind, 0, n, var, outer, "a nested comprehension");
  if (t.list_loop < 0 || t.scope_loop != loop.id || !t.outer_lists.empty())
    fail(inner.span, "a nested comprehension whose rows are not one list per row");
  const std::string list = assigned_name;
  t.shape.insert(t.shape.begin(), IExpr(rows));
  if (t.on_chip()) t.partition_dim += 1;
  t.outer_lists = {{list, loop.id}};
  // The inner level has no name in the text: one no Python binds, so an access printed through it
  // (a row indexed inside the outer loop only, which no move makes) fails the print's check.
  t.list_name = list.empty() ? "" : list + "_row";
  t.scope_loop = loop_stack.empty() ? -1 : loop_stack.back();
  pending_inline.push_back({kComprehensionLoop, {}, current_ops ? current_ops->size() : 0});
  pending_inline.back().nodes.push_back(std::move(n));
  AValue out = AValue::of_tuple(block_rows(t, rows, row_shape.count));
  out.k = K::List;
  return out;
}

Tensor& Lifter::roll_row(const ComprehensionExpr& inner, const RollShape& row_shape, LoopKind kind, size_t generator,
                         Node& n, const std::string& var, const std::optional<AValue>& outer, const char* what) {
  const size_t pending_before = pending_inline.size();
  AValue row = roll_comprehension(inner, row_shape, kind, nullptr, generator);
  if (pending_inline.size() != pending_before + 1 || pending_inline.back().name != kComprehensionLoop ||
      pending_inline.back().nodes.size() != 1)
    fail(inner.span, fmt::format("{} whose inner loop is not one node", what));
  n.body.push_back(std::move(pending_inline.back().nodes.front()));
  pending_inline.pop_back();
  loop_stack.pop_back();
  env.erase(var);
  if (outer) env[var] = *outer;
  if (row.items.empty() || row.items[0].k != K::Tile) fail(inner.span, fmt::format("{} of no tile", what));
  return k.tensor(row.items[0].access.tensor);
}

}  // namespace loopnest::detail
