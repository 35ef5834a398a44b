// A loop whose variable is read whole and as `i // G` split into the groups it walks. In
// grouped-query attention query head h reads K / V head `h // G`:
//
//   for h in nl.affine_range(QH):
//     kv_h = h // GROUP
//     grp = h % GROUP
//     for qi: q_tile = nl.load(q[qi, :, h, :]); ... k_tile = nl.load(k[..., kv_h, :]) ...
//
// K (its load and transposes) and V depend on h only through h // G, but no move sees that: every
// iteration of `for h` is another query head. A kernel engineer loops over the KV heads and runs
// the group's query heads inside, building K^T and V once per KV head. Strip-mining h by G,
//
//   for kv_h in nl.affine_range(QH // GROUP):
//     for grp in nl.affine_range(GROUP):
//       h = kv_h * GROUP + grp
//       (the body as written)
//
// runs the same iterations in the same order (legal for every loop kind), and `h // G` becomes
// the outer variable over the new loops' ranges: the K / V work is then invariant in `for grp`, and
// the hoists (hoist_expand, hoist_compute, hoist_transpose, hoist) take it out by their own rules.
// The author's bindings of `h // G` and `h % G` name the new loops (their statements stay as
// written); `h` is bound again from them. A statement that no longer uses the inner loop but names
// `h` (or a name computed from it) in an operand gets that operand printed from the form, since a
// hoist may take it where `h` is not bound.
//
// find_sites (transform.cpp) offers the hoists of the split kernel that move work out of a group
// loop, with the parameter groups=split: one step for the search; apply_site splits before the move.
#include <algorithm>
#include <functional>

#include <fmt/core.h>

#include "loopnest/emit.h"
#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "loopnest/unflatten.h"
#include "nki/ast_printer.h"

namespace loopnest {

namespace {

// The author's binding, directly in the loop's body, of `var // G` (op FloorDiv) or `var % G` (Mod):
// `kv_h = h // GROUP`. Its right operand is G as the author spells it.
const nki::BinOpExpr* bound_by(const Node& b, const std::string& var, nki::BinOp op) {
  if (b.kind != NodeKind::Meta || b.meta != MetaKind::Binding || b.binds.size() != 1 || !b.origin ||
      b.origin->kind != nki::StmtKind::Assign)
    return nullptr;
  const auto& a = static_cast<const nki::AssignStmt&>(*b.origin);
  if (a.targets.size() != 1 || !a.value || a.value->kind != nki::ExprKind::BinOp) return nullptr;
  const auto& e = static_cast<const nki::BinOpExpr&>(*a.value);
  if (e.op != op || !e.left || !e.right || e.left->kind != nki::ExprKind::Name ||
      static_cast<const nki::NameExpr&>(*e.left).id != var)
    return nullptr;
  return &e;
}

// The group sizes G the loop's `// G` and `% G` terms pack that divide its trip (1 < G < trip).
std::set<int64_t> group_sizes(const Kernel& k, const Node& n, int64_t trip) {
  std::set<int64_t> out;
  for_each_index_expr(k, n.body, [&](const IExpr& e) {
    for_each_quasi_term(e, [&](const Term& t) {
      const int64_t d = packed_divisor(t, n.loop);
      if (d > 1 && d < trip && trip % d == 0) out.insert(d);
    });
  });
  return out;
}

// Whether some operation of `body` reads only what does not vary with `inner` although it read
// through the split loop (`outer` now): work the group's iterations share.
bool shares_work(const std::vector<Node>& body, int outer, int inner) {
  bool shared = false;
  for_each_node(body, [&](const Node& n, const std::vector<int>&) {
    for (const auto& op : n.ops) {
      if (is_declaration(op)) continue;
      auto rd = reads(op);
      bool by_outer = false, by_inner = false;
      for (const Access* a : rd) by_outer = by_outer || uses_loop(*a, outer), by_inner = by_inner || uses_loop(*a, inner);
      shared = shared || (by_outer && !by_inner && !mask_uses(op, inner));
    }
  });
  return shared;
}

// The statements' operands that name one of `names` (bound inside the inner loop) as written but
// whose access no longer uses `inner` are printed from the form: a hoist may take them out.
void free_invariant_operands(std::vector<Node>& body, const std::set<std::string>& names, int inner) {
  auto names_them = [&](const nki::Expr* e) {
    if (!e) return false;
    std::set<std::string> read;
    names_of(*e, read);
    return reads_any(read, names);
  };
  for_each_node(body, [&](Node& n, const std::vector<int>&) {
    if (n.kind != NodeKind::Stmt) return;
    for (auto& op : n.ops) {
      if (op.dst && !uses_loop(*op.dst, inner) && names_them(op.dst_origin)) op.dst_origin = nullptr, n.dirty = true;
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile && !uses_loop(a.value.access, inner) && names_them(a.value.origin))
          a.value.origin = nullptr, n.dirty = true;
    }
  });
}

// Splits loop node `id` (variable v, trip T) by G = `d` into an outer loop over T / d around an
// inner one over d, `v = outer * G + inner` bound first in the inner body. `named`: the new loops
// take the names of the author's bindings of `v // G` and `v % G` (which go) and G its text; false
// (nothing changed) when there is no binding of `v // G` to name the outer loop. Returns the inner
// loop's id, -1 when not split.
int split_group(Kernel& k, int id, int64_t d, bool named) {
  Node* n = find_node(k, id);
  const Loop old = k.loops.at(n->loop);
  std::string outer_var, inner_var, group = std::to_string(d);
  std::set<int> dropped;
  if (named) {
    std::string mod_group;
    for (const Node& b : n->body) {
      if (const auto* e = bound_by(b, old.var, nki::BinOp::FloorDiv); e && outer_var.empty()) {
        outer_var = b.binds[0], group = nki::print_expr(*e->right), dropped.insert(b.id);
      } else if (const auto* m = bound_by(b, old.var, nki::BinOp::Mod); m && inner_var.empty()) {
        inner_var = b.binds[0], mod_group = nki::print_expr(*m->right), dropped.insert(b.id);
      }
    }
    if (outer_var.empty()) return -1;
    if (!inner_var.empty() && mod_group != group) return -1;
    for (const auto& [lid, l] : k.loops)
      if (l.var == outer_var || l.var == inner_var) return -1;
  }
  if (outer_var.empty()) outer_var = fresh_loop_var(k, old.var + "_blk");
  if (inner_var.empty()) inner_var = fresh_loop_var(k, old.var + "_in");
  Loop outer = old, inner = old;
  outer.var = outer_var;
  outer.stop = IExpr(*old.trip() / d);
  inner.var = inner_var;
  inner.stop = IExpr(d);
  const int outer_id = add_loop(k, outer), inner_id = add_loop(k, inner);
  std::vector<Node> body = std::move(n->body);
  body.erase(std::remove_if(body.begin(), body.end(), [&](const Node& b) { return dropped.count(b.id) > 0; }), body.end());
  Ranges ranges = k.ranges();
  substitute_nodes(k, body, old.id, IExpr::var(outer_id) * d + IExpr::var(inner_id), &ranges);
  // `v` and the names bound from it inside the loop (transitively) mean per-iteration values.
  std::set<std::string> names = {old.var};
  for_each_node(body, [&](const Node& b, const std::vector<int>&) {
    if (b.kind == NodeKind::Meta && b.meta == MetaKind::Binding &&
        std::any_of(names.begin(), names.end(), [&](const std::string& x) { return mentions(k, b, x); }))
      names.insert(b.binds.begin(), b.binds.end());
  });
  free_invariant_operands(body, names, inner_id);
  for (auto& t : k.tensors)
    if (t.scope_loop == old.id) t.scope_loop = inner_id;
  Node bind = split_index_binding(k, old.var, outer_var, fmt::format("{}", group), inner_var);
  Node loop;
  loop.kind = NodeKind::Loop;
  loop.id = k.next_node++;
  loop.loop = inner_id;
  loop.dirty = true;
  if (named) loop.patch = range_header(*n, inner_var, group);
  loop.body.push_back(std::move(bind));
  for (auto& b : body) loop.body.push_back(std::move(b));
  n->patch = named ? authored_header(*n, outer_var, group) : "";
  n->loop = outer_id;
  n->dirty = true;
  n->origin = nullptr;
  n->body.clear();
  n->body.push_back(std::move(loop));
  k.loops.erase(old.id);
  return inner_id;
}

// Splits one loop by a group size that removes `//` / `%` terms and leaves work the group shares,
// checked to print back (named after the author's bindings where that prints, else `v_blk`,
// `v_in`); false when no loop is split.
bool split_one_group(Kernel& k, const std::vector<ArgSpec>& args, std::vector<std::string>& inner_vars) {
  for (int id : open_loop_ids(k)) {
    const Node* n = find_node(k, id);
    auto trip = splittable_trip(k, *n);
    if (!trip) continue;
    const int before = quasi_terms_using(k, n->body, {n->loop});
    if (before == 0) continue;
    const auto sizes = group_sizes(k, *n, *trip);
    for (auto d = sizes.rbegin(); d != sizes.rend(); ++d)
      for (bool named : {true, false}) {
        Kernel trial = k;
        const int inner = split_group(trial, id, *d, named);
        if (inner < 0) continue;
        const Node* t = find_node(trial, id);
        if (quasi_terms_using(trial, t->body, {t->loop, inner}) >= before || !shares_work(t->body, t->loop, inner))
          break;  // the other naming splits alike
        try {
          emit_checked(trial, args);
        } catch (const EmitError&) {
          continue;
        }
        inner_vars.push_back(trial.loops.at(inner).var);
        k = std::move(trial);
        return true;
      }
  }
  return false;
}

}  // namespace

int split_groups(Kernel& k, std::vector<std::string>* inner_vars) {
  auto args = own_arguments(k);
  if (!args) return 0;
  std::vector<std::string> inner;
  int count = 0;
  while (count < 8 && split_one_group(k, *args, inner)) ++count;
  if (inner_vars) *inner_vars = inner;
  return count;
}

int split_group_loops(Kernel& k) { return split_groups(k, nullptr); }

namespace {

// The operations (declarations aside) inside the loops whose variable is one of `vars`.
int ops_in_loops(const Kernel& k, const std::vector<std::string>& vars) {
  int count = 0;
  std::function<void(const std::vector<Node>&, bool)> walk = [&](const std::vector<Node>& block, bool inside) {
    for (const Node& n : block) {
      const bool in = inside || (n.kind == NodeKind::Loop &&
                                 std::find(vars.begin(), vars.end(), k.loops.at(n.loop).var) != vars.end());
      if (in)
        for (const Op& op : n.ops) count += is_declaration(op) ? 0 : 1;
      walk(n.body, in), walk(n.orelse, in);
    }
  };
  walk(k.body, false);
  return count;
}

}  // namespace

std::vector<Site> group_hoist_sites(const Kernel& grouped, const std::vector<std::string>& inner_vars,
                                    std::vector<Site> (*sites)(const Kernel&)) {
  static const std::set<std::string> hoists = {"hoist_expand", "hoist_compute", "hoist_transpose"};
  std::vector<Site> out;
  const int before = ops_in_loops(grouped, inner_vars);
  for (auto& s : sites(grouped)) {
    // Out of the group loop and a loop inside it (`out_of` >= 2): work repeated per query tile as
    // well as per head. Work done once per head (K^T built in the head loop itself) is what
    // jam_rows shares between the heads of a group already (its sites and the planner's draws on
    // such kernels stay as they were); the split adds the case no move reached.
    auto out_of = s.params.find("out_of");
    if (!hoists.count(s.transform) || out_of == s.params.end() || std::stoi(out_of->second) < 2) continue;
    Kernel after = grouped;
    try {
      find_transform(s.transform)->apply(after, s);
    } catch (const TransformError&) {
      continue;
    }
    if (ops_in_loops(after, inner_vars) < before) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace loopnest
