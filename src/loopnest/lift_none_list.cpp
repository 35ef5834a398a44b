// A Python list preallocated with None and filled by item assignment of whole tiles in loops
// (`buf = [None] * N; ... buf[r * B + b] = tile`, or `h_t = [[None] * B for _ in range(T)]; ...
// h_t[r][b] = tile`), read after (or inside) those loops by loop-variable indices: one on-chip
// buffer with a block dim per list level (Tensor::host_list, bound_items; two levels name the outer
// list in outer_lists with no loop, as a nested comprehension's rows are indexed), each binding a
// write of its block, each read of `buf[i]` / `h_t[r][b]` a read of block i / (r, b) (the list's
// items in env become the blocks, read by progression_item / progression_list_item). The loops
// then stay loops of the form, the buffer written per iteration and read later, where before the
// binding stopped the lift (`h_t[r]`: a list indexed by a loop-dependent value) or made every
// enclosing loop lift as its unrolled copies (list_item_assign).
// Python fails on an item read while still None: before the first binding the list's items are
// None here too and such a read stays an error; after it, inside the binding loops, a read of an
// item a later iteration binds first is refused by lift_none_reads.cpp (none_bindings). The
// bindings' indices must cover every item exactly once over their loops (from 0 by 1), so that
// every item is bound once those loops have run; otherwise (and under a condition on a loop
// variable) the old rule applies.
// Printed as written while unchanged; from the form as `h_t[r][b] = <value>` (bound_items).
#include <algorithm>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "loopnest/mixed_radix.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

bool all_none(const AValue& v) {
  return v.k == K::List && !v.items.empty() &&
         std::all_of(v.items.begin(), v.items.end(), [](const AValue& x) { return x.k == K::None; });
}

// The rows of a list of lists of None of one width, or 0.
size_t none_rows_width(const AValue& v) {
  if (v.k != K::List || v.items.empty() || !all_none(v.items[0])) return 0;
  const size_t width = v.items[0].items.size();
  for (const auto& row : v.items)
    if (!all_none(row) || row.items.size() != width) return 0;
  return width;
}

}  // namespace

void Lifter::note_none_list(const std::string& id, const AValue& v) {
  if (all_none(v) || none_rows_width(v) > 0)
    none_lists[id] = {loop_stack.empty() ? -1 : loop_stack.back(), inline_depth};
  else
    none_lists.erase(id);
}

bool Lifter::bind_none_item(const AssignStmt& s, const SubscriptExpr& target, const AValue& v, std::vector<Op>& ops,
                            std::vector<Node>& out) {
  if (loop_stack.empty() || v.k != K::Tile || v.gather || guarded > 0) return false;
  // `name[i]` or `name[r][b]`.
  std::vector<const Expr*> indices{target.index.get()};
  const Expr* base = target.value.get();
  if (base->kind == ExprKind::Subscript) {
    auto& outer = static_cast<const SubscriptExpr&>(*base);
    indices.insert(indices.begin(), outer.index.get());
    base = outer.value.get();
  }
  if (base->kind != ExprKind::Name) return false;
  const std::string& name = static_cast<const NameExpr&>(*base).id;
  auto record = none_lists.find(name);
  auto bound = env.find(name);
  if (record == none_lists.end() || record->second.depth != inline_depth || bound == env.end()) return false;
  AValue& list = bound->second;
  const size_t levels = indices.size();
  // The list's shape in items: [N] or [T, B].
  std::vector<int64_t> counts{static_cast<int64_t>(list.items.size())};
  if (levels == 2) {
    if (list.items.empty() || list.items[0].k != K::List) return false;
    counts.push_back(static_cast<int64_t>(list.items[0].items.size()));
  }
  std::vector<IExpr> index;
  for (const Expr* e : indices) {
    AValue i = eval(*e);
    if (i.k != K::Int || !i.i.is_affine()) return false;
    index.push_back(i.i);
  }
  // Every item bound exactly once over the loops the index uses: its flat index a mixed radix of
  // those loops' iterations, from 0 by 1, filling [0, items).
  IExpr flat = levels == 2 ? index[0] * counts[1] + index[1] : index[0];
  const int64_t items = levels == 2 ? counts[0] * counts[1] : counts[0];
  if (flat.constant() != 0) return false;
  std::vector<std::pair<int64_t, int64_t>> radix;  // (coefficient, trip)
  NoneBinding binding{loop_stack, {}};               // which iteration binds which item (lift_none_reads.cpp)
  for (int var : flat.vars()) {
    if (std::find(loop_stack.begin(), loop_stack.end(), var) == loop_stack.end()) return false;
    const Loop& loop = k.loops.at(var);
    const auto trip = loop.trip();
    if (!trip || !(loop.start == IExpr(0)) || loop.step != 1) return false;
    radix.push_back({flat.coeff(var), *trip});
    binding.digits.emplace_back(var, flat.coeff(var), *trip);
  }
  if (radix.empty() || !numbers_each_once(std::move(radix), items)) return false;
  const Tensor& src = k.tensor(v.access.tensor);
  const std::vector<IExpr> shape = v.access.tile_shape();
  // A view bound as it is is Python's alias of that tile (lift_bound_fresh.cpp): the tile must be
  // made in the innermost loop's iteration.
  Op* root = producer(ops, v, k);
  if (!(root && root->result >= 0) && src.scope_loop != loop_stack.back()) return false;
  int id = -1;
  if (levels == 1 ? all_none(list) : none_rows_width(list) > 0) {
    // The first binding: the list becomes one buffer of the first tile's shape.
    Tensor t;
    t.name = name;
    t.list_name = levels == 2 ? name + "_row" : name;
    if (levels == 2) t.outer_lists = {{name, -1}};
    t.role = TensorRole::Buffer;
    t.memory = src.memory;
    t.dtype = src.dtype;
    for (int64_t c : counts) t.shape.push_back(IExpr(c));
    for (const auto& d : shape) t.shape.push_back(d);
    t.partition_dim = static_cast<int>(levels);
    t.host_list = true;
    t.bound_items = true;
    t.scope_loop = record->second.scope_loop;
    id = new_tensor(std::move(t));
    const Tensor& made = k.tensor(id);
    if (levels == 1) {
      for (size_t i = 0; i < list.items.size(); ++i)
        list.items[i] = AValue::of_tile(list_block(made, {IExpr(static_cast<int64_t>(i))}));
    } else {
      for (size_t r = 0; r < list.items.size(); ++r)
        for (size_t b = 0; b < list.items[r].items.size(); ++b)
          list.items[r].items[b] = AValue::of_tile(
              list_block(made, {IExpr(static_cast<int64_t>(r)), IExpr(static_cast<int64_t>(b))}));
    }
  } else {
    // A later binding: every item still its own block of the list's buffer.
    const AValue* first = levels == 2 ? (list.items[0].k == K::List && !list.items[0].items.empty()
                                             ? &list.items[0].items[0] : nullptr)
                                      : &list.items[0];
    if (!first || first->k != K::Tile) return false;
    id = first->access.tensor;
    const Tensor& t = k.tensor(id);
    if (!t.host_list || !t.bound_items || t.list_loop >= 0 || t.outer_lists.size() != levels - 1) return false;
    for (size_t r = 0; r < list.items.size(); ++r) {
      if (levels == 1) {
        const AValue& x = list.items[r];
        if (x.k != K::Tile || !(x.access == list_block(t, {IExpr(static_cast<int64_t>(r))}))) return false;
        continue;
      }
      if (list.items[r].k != K::List) return false;
      for (size_t b = 0; b < list.items[r].items.size(); ++b) {
        const AValue& x = list.items[r].items[b];
        if (x.k != K::Tile ||
            !(x.access == list_block(t, {IExpr(static_cast<int64_t>(r)), IExpr(static_cast<int64_t>(b))})))
          return false;
      }
    }
    if (std::vector<IExpr>(t.shape.begin() + static_cast<long>(levels), t.shape.end()) != shape ||
        src.dtype != t.dtype || src.memory != t.memory)
      return false;
  }
  write_value(ops, v, list_block(k.tensor(id), index), *s.targets[0], s.value.get());
  none_bindings[id].push_back(std::move(binding));
  out.push_back(ops_node(s, std::move(ops)));
  return true;
}

}  // namespace loopnest::detail
