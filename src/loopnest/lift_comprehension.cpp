// Comprehensions and generators (lifter.h): evaluated item by item as Python runs them; a list of
// fresh tiles of one shape made by one (`[nl.ndarray((P, F), ...) for _ in range(2)]`) becomes one
// tensor whose items are its blocks (merge_fresh_tiles).
#include <algorithm>

#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "nki/ast_walk.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// Whether the per-item template `t` (integers, tuples of them, of the variable kHostIndex) gives
// `item` at index `j`.
bool template_gives(const AValue& t, const AValue& item, int64_t j) {
  if (t.k == K::Int)
    return item.k == K::Int && item.i.is_constant() && t.i.substitute(kHostIndex, IExpr(j)) == item.i;
  if ((t.k != K::Tuple && t.k != K::List) || t.k != item.k || t.items.size() != item.items.size()) return false;
  for (size_t i = 0; i < t.items.size(); ++i)
    if (!template_gives(t.items[i], item.items[i], j)) return false;
  return true;
}

bool template_matches(const AValue& t, const std::vector<AValue>& items) {
  for (size_t j = 0; j < items.size(); ++j)
    if (!template_gives(t, items[j], static_cast<int64_t>(j))) return false;
  return true;
}

}  // namespace

// `[nl.ndarray((P, F), ...) for _ in range(2)]`: a list of fresh on-chip tiles of one shape, dtype
// and buffer (multi-buffering) is one tensor with the items along a leading dim (Tensor::host_list),
// declared once, so that an item chosen by a loop-dependent index (`bufs[i % 2]`, `tiles[i]`) is
// a block of it like any other access. The comprehension still prints as written.
bool Lifter::merge_fresh_tiles(std::vector<AValue>& items, std::vector<Node>& item_nodes) {
  using K = AValue::K;
  if (items.size() < 2 || item_nodes.size() != items.size()) return false;
  int first = -1;
  for (size_t i = 0; i < items.size(); ++i) {
    const AValue& v = items[i];
    const Node& n = item_nodes[i];
    if (v.k != K::Tile || !whole_access(v.access) || n.kind != NodeKind::Stmt || n.ops.size() != 1 ||
        !is_declaration(n.ops[0]))
      return false;
    const Op& op = n.ops[0];
    const int made = op.result >= 0 ? op.result : op.dst ? op.dst->tensor : -1;
    if (made != v.access.tensor) return false;
    const Tensor& t = k.tensor(made);
    if (!t.on_chip() || t.role == TensorRole::View || t.list_loop >= 0 || t.host_list || t.base >= 0) return false;
    if (first < 0) {
      first = made;
      continue;
    }
    const Tensor& f = k.tensor(first);
    if (t.shape != f.shape || t.dtype != f.dtype || t.memory != f.memory || t.partition_dim != f.partition_dim ||
        t.role != f.role || t.scope_loop != f.scope_loop)
      return false;
  }
  Tensor merged = k.tensor(first);
  merged.shape.insert(merged.shape.begin(), IExpr(static_cast<int64_t>(items.size())));
  merged.partition_dim += 1;
  merged.host_list = true;
  merged.name.clear();
  merged.label.clear();
  merged.dim_text.clear();
  const int id = add_tensor(k, std::move(merged));
  Op decl = item_nodes[0].ops[0];
  if (decl.result >= 0) decl.result = id;
  else decl.dst = whole(id);
  item_nodes.resize(1);
  item_nodes[0].ops = {std::move(decl)};
  const size_t rank = k.tensor(id).shape.size();
  for (size_t i = 0; i < items.size(); ++i) {
    Access a;
    a.tensor = id;
    a.dims.push_back({IExpr(static_cast<int64_t>(i)), {}});
    for (size_t d = 1; d < rank; ++d) a.dims.push_back({IExpr(0), {{static_cast<int>(d - 1), k.tensor(id).shape[d], 1}}});
    items[i] = AValue::of_tile(a);
  }
  return true;
}

// `[f(d) for d in x.shape if ...]`: a Python list computed while lifting, over tuples, lists and
// constant ranges (host values: shapes, sizes, flags). Its variables are its own (Python 3); a
// walrus inside binds in the kernel. `{k: nl.load(v[rows]) for k, v in srcs.items()}` computes a
// tile per item: Python runs the element once per item while tracing, so each item's operations
// are a statement of their own, and the statement holding the comprehension is an inline node of
// them (kComprehensionHelper), printed as written, as a helper call doing tile work is. Its
// iterables and conditions are host values; one computing a tile is refused.
AValue Lifter::comprehension(const ComprehensionExpr& c) {
  // `name = [<tile of j> for j in range(n)]`: tried as the loop it means once the copies show it is
  // one (lift_rolled.cpp).
  // (An element without a call or an operator computes no tile: no checkpoint, a copy of the whole
  // form, for it.)
  bool calls = false;
  walk(*c.elt, [&](const Expr& x) {
    calls = calls || x.kind == ExprKind::Call || x.kind == ExprKind::BinOp || x.kind == ExprKind::UnaryOp;
  });
  auto plain = [](const Comprehension& g) { return g.ifs.empty() && g.target->kind == ExprKind::Name; };
  const bool may_roll = &c == assigned_comprehension && c.kind == ExprKind::ListComp &&
                        (c.generators.size() == 1 || c.generators.size() == 2) &&
                        std::all_of(c.generators.begin(), c.generators.end(), plain) && calls;
  assigned_comprehension = nullptr;  // not the element's own comprehensions, nor a second try
  // (A helper called in the iterable, `for blk in _tiles(t)`, sets its own for its return.)
  const nki::Stmt* const roll_statement = assigned_statement;
  const std::string roll_name = assigned_name;
  std::optional<Checkpoint> before;
  if (may_roll) before = checkpoint();
  LoopKind range_kind = LoopKind::Range;
  std::optional<std::vector<AValue>> first_list;  // the items of a first generator over a list
  std::vector<AValue> items, keys;
  std::vector<Node> item_nodes;  // the operations of each item computing tiles
  std::optional<std::pair<int64_t, int64_t>> range_of_first;  // start, step of a constant range
  size_t ops_before = current_ops ? current_ops->size() : 0;
  std::map<std::string, std::optional<AValue>> saved;
  std::function<void(const Expr&)> note = [&](const Expr& t) {
    if (t.kind == ExprKind::Name) {
      const std::string& id = static_cast<const NameExpr&>(t).id;
      if (!saved.count(id)) saved[id] = env.count(id) ? std::optional<AValue>(env[id]) : std::nullopt;
    } else if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
      for (const auto& x : static_cast<const SequenceExpr&>(t).elts) note(*x);
    }
  };
  for (const auto& g : c.generators) note(*g.target);
  std::function<void(size_t)> gen = [&](size_t g) {
    if (g == c.generators.size()) {
      std::vector<Op> ops;
      auto* saved_ops = current_ops;
      size_t pending_before = pending_inline.size();
      if (saved_ops) current_ops = &ops;
      if (c.kind == ExprKind::DictComp) {
        AValue key = eval(*c.elt);
        if (!hashable_key(key))
          fail(c.elt->span, fmt::format("the dict key '{}' (a string or a constant integer is expected)", print_expr(*c.elt)));
        keys.push_back(key);
      }
      items.push_back(eval(c.kind == ExprKind::DictComp ? *c.value : *c.elt));
      current_ops = saved_ops;
      if (!ops.empty() || pending_inline.size() > pending_before) {
        Node n;
        n.kind = NodeKind::Stmt;
        n.id = k.next_node++;
        n.ops = std::move(ops);
        if (pending_inline.size() > pending_before) {  // the item calls a helper doing tile work
          n.kind = NodeKind::Inline;
          n.inline_split = pending_inline[pending_before].ops_before;
          for (size_t p = pending_before; p < pending_inline.size(); ++p) {
            n.helper += (n.helper.empty() ? "" : ",") + pending_inline[p].name;
            for (auto& x : pending_inline[p].nodes) n.body.push_back(std::move(x));
          }
          pending_inline.resize(pending_before);
          freeze(n);
        }
        item_nodes.push_back(std::move(n));
      }
      if (items.size() > 100000) fail(c.span, "a comprehension of more than 100000 items");
      return;
    }
    const Comprehension& cg = c.generators[g];
    AValue it = eval(*cg.iter);
    std::vector<AValue> seq;
    if (it.k == K::Tuple || it.k == K::List || it.k == K::Dict) {
      seq = *host_items(it);
      if (g == 0 && it.k != K::Dict) first_list = seq;
    } else if (it.k == K::Range && it.items[0].i.is_constant() && it.items[1].i.is_constant() &&
               it.items[2].i.is_constant() && it.items[2].i.constant() > 0) {
      if (g == 0) range_of_first = {it.items[0].i.constant(), it.items[2].i.constant()}, range_kind = it.range_kind;
      for (int64_t i = it.items[0].i.constant(); i < it.items[1].i.constant() && seq.size() <= 100000;
           i += it.items[2].i.constant())
        seq.push_back(AValue::of_int(i));
    } else {
      fail(cg.iter->span, fmt::format("a comprehension over '{}' (not a tuple, list or constant range)",
                                      print_expr(*cg.iter)));
    }
    for (const auto& x : seq) {
      bind_target(*cg.target, x);
      bool keep = true;
      for (const auto& cond : cg.ifs) {
        AValue t = eval(*cond);
        if (t.k != K::Bool) fail(cond->span, fmt::format("the comprehension condition '{}'", print_expr(*cond)));
        if (!t.b) {
          keep = false;
          break;
        }
      }
      if (keep) gen(g + 1);
    }
  };
  gen(0);
  if (current_ops && current_ops->size() != ops_before)
    fail(c.span, "a comprehension whose iterable or condition computes a tile");
  for (auto& [id, v] : saved) {
    if (v) env[id] = *v;
    else env.erase(id);
  }
  // One generator over a constant range without condition: the item as an expression of its
  // index too (AValue::per_item), when the element evaluates that way to every item.
  const bool computes_tiles = !item_nodes.empty();
  // A generator too: `bufs = tuple(nl.ndarray(...) for _ in range(4))`, unpacked later by a helper
  // (`X, XS, C2, S2 = bufs`), is the list of buffers `bufs` whose items print as `bufs[1]`.
  if (computes_tiles && (c.kind == ExprKind::ListComp || c.kind == ExprKind::GeneratorExp) && &c != unpacked_comprehension)
    merge_fresh_tiles(items, item_nodes);
  const bool from_zero = range_of_first && range_of_first->first == 0 && range_of_first->second == 1;
  // `[<tile of j, c> for j in range(J) for c in range(C)]`: the loop nest, one flat list (lift_flat_rolled.cpp).
  if (may_roll && computes_tiles && from_zero && c.generators.size() == 2) {
    if (auto shape = roll_shape(items, item_nodes)) {
      rollback(*before);
      assigned_statement = roll_statement;
      assigned_name = roll_name;
      try {
        return roll_flat_comprehension(c, *shape, range_kind);
      } catch (const LiftError&) {
      }
      rollback(*before);
      return comprehension(c);
    }
  }
  if (may_roll && computes_tiles && (from_zero || first_list) && c.generators.size() == 1) {
    if (auto shape = roll_shape(items, item_nodes)) {
      rollback(*before);
      assigned_statement = roll_statement;
      assigned_name = roll_name;
      try {
        return roll_comprehension(c, *shape, range_kind, from_zero ? nullptr : &*first_list);
      } catch (const LiftError&) {
      }
      rollback(*before);
      return comprehension(c);  // the copies, as Python runs them (assigned_comprehension is reset)
    }
    // `[[<tile of r, k> for k in range(KT)] for r in range(R)]`: a loop nest (lift_nested_rolled.cpp).
    if (from_zero && c.elt->kind == ExprKind::ListComp)
      if (auto row = nested_roll_shape(items, item_nodes)) {
        const auto rows = static_cast<int64_t>(items.size());
        rollback(*before);
        assigned_statement = roll_statement;
        assigned_name = roll_name;
        try {
          return roll_nested_comprehension(c, rows, *row, range_kind);
        } catch (const LiftError&) {
        }
        rollback(*before);
        return comprehension(c);
      }
  }
  if (computes_tiles) {
    if (!current_ops) fail(c.span, "a comprehension computing tiles outside a statement of the kernel");
    pending_inline.push_back({kComprehensionHelper, std::move(item_nodes), current_ops->size()});
  }
  if (c.kind == ExprKind::DictComp) {
    AValue out = AValue::of_kind(K::Dict);
    for (size_t i = 0; i < keys.size(); ++i) dict_put(out, keys[i], items[i]);
    return out;
  }
  std::shared_ptr<AValue> per_item;
  if (range_of_first && c.generators.size() == 1 && c.generators[0].ifs.empty() && !items.empty() &&
      !computes_tiles) {
    auto env_before = env;
    try {
      bind_target(*c.generators[0].target,
                  AValue::of_int(IExpr(range_of_first->first) + IExpr::var(kHostIndex) * range_of_first->second));
      AValue t = eval(*c.elt);
      if ((!current_ops || current_ops->size() == ops_before) && template_matches(t, items))
        per_item = std::make_shared<AValue>(std::move(t));
    } catch (const LiftError&) {
    }
    env = std::move(env_before);
    if (current_ops && current_ops->size() != ops_before) current_ops->resize(ops_before);
  }
  AValue out = AValue::of_tuple(std::move(items));
  out.k = c.kind == ExprKind::ListComp ? K::List : K::Tuple;
  out.per_item = std::move(per_item);
  return out;
}

}  // namespace loopnest::detail
