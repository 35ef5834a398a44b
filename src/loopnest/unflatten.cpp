// Flattened loops split back into their nest. Authors coming from CUDA or tensor compilers walk a
// tile grid with one loop and recover the coordinates by division:
//
//   for t in nl.affine_range(R * NJ):        # one loop over all tiles
//     i = t // NJ
//     j = t % NJ
//     a = nl.load(x[:, i, nl.ds(j * F, F)])
//
// The form then holds `t // 14` and `t % 14` (quasi-affine starts), and the moves that change one
// coordinate's loop (tile_size coarsens the column loop, interchange swaps the two, hoist takes a
// load that depends on i alone out of the j loop) find no site: there is no j loop. Splitting t
// into `t_blk` over R and `t_in` over NJ with t = t_blk * NJ + t_in runs the same iterations in
// the same order (so it is legal for every loop kind, in order or not), and the divisions simplify
// over the new loops' ranges (t // NJ is t_blk, t % NJ is t_in): the same nest as the author who
// wrote two loops, with the same sites. The statements naming t (or a name computed from it) are
// printed over t_blk and t_in, the bindings of those names dropped; the rest is kept as written.
//
// find_sites (transform.cpp) offers, besides the kernel's own sites, the ones its unflattened form
// adds, with the parameter flat_loops=split; apply_site splits the loops before the move.
#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

#include "loopnest/nest_walk.h"
#include "loopnest/transform.h"
#include "loopnest/unflatten.h"

namespace loopnest {

// Calls fn(term) for every `//` and `%` term of `e`, nested ones too.
void for_each_quasi_term(const IExpr& e, const std::function<void(const Term&)>& fn) {
  for (const auto& [key, tc] : e.terms()) {
    const Term& t = tc.first;
    if (t.kind == TermKind::FloorDiv || t.kind == TermKind::Mod) fn(t);
    for (const auto& a : t.args) for_each_quasi_term(a, fn);
  }
}

// How many `//` / `%` terms of the body's expressions involve one of `vars`.
int quasi_terms_using(const Kernel& k, const std::vector<Node>& body, const std::set<int>& vars) {
  int n = 0;
  for_each_index_expr(k, body, [&](const IExpr& e) {
    for_each_quasi_term(e, [&](const Term& t) {
      if (std::any_of(vars.begin(), vars.end(), [&](int v) { return t.args[0].uses(v); })) ++n;
    });
  });
  return n;
}

namespace {

// Whether `e` reads variable `v` other than through a `//` or `%` term (`t * 128`, `min(t, 3)`).
bool reads_directly(const IExpr& e, int v) {
  for (const auto& [key, tc] : e.terms()) {
    const Term& t = tc.first;
    if (t.kind == TermKind::Var && t.var == v) return true;
    if (t.kind == TermKind::FloorDiv || t.kind == TermKind::Mod) continue;
    for (const auto& a : t.args)
      if (reads_directly(a, v)) return true;
  }
  return false;
}

// A flattened loop reads its variable only through quotients and remainders (`t // NJ`, `t % NJ`):
// the coordinates it packs. A loop that also reads it whole (`x[h]` beside `kv = h // group`) walks
// a dim of its own, and is left as written.
bool only_packed_coordinates(const Kernel& k, const Node& n) {
  bool packed = true;
  for_each_index_expr(k, n.body, [&](const IExpr& e) { packed = packed && !reads_directly(e, n.loop); });
  return packed;
}

}  // namespace

// The loop's trip divisor that a `// d` or `% d` term packs: d for `t // d`; for a row offset
// `(c * t) // d` (a GPU port's `row0 = t * 64` into 128-row HBM tiles, `row0 // 128`,
// `row0 % 128`) d / gcd(c, d) iterations share a quotient. 0 when the term packs none.
int64_t packed_divisor(const Term& t, int v) {
  if (!t.args[0].uses(v) || t.divisor <= 1) return 0;
  const int64_t c = t.args[0].coeff(v);
  if (c <= 0 || (t.args[0] - IExpr::var(v) * c).uses(v)) return 0;
  return t.divisor / std::gcd(c, t.divisor);
}

namespace {

// The divisors d of the loop's `// d` and `% d` terms that split its trip (1 < d < trip, d | trip),
// largest first: the outermost coordinate comes off first.
std::vector<int64_t> split_divisors(const Kernel& k, const Node& n, int64_t trip) {
  std::set<int64_t> ds;
  for_each_index_expr(k, n.body, [&](const IExpr& e) {
    for_each_quasi_term(e, [&](const Term& t) {
      const int64_t d = packed_divisor(t, n.loop);
      if (d > 1 && d < trip && trip % d == 0) ds.insert(d);
    });
  });
  return {ds.rbegin(), ds.rend()};
}

// Whether a `//` / `%` term packs the loop's variable scaled (`(64 * t) // 128`): the variable
// is then a row-block count also read directly (`x[64 * t:64 * t + 64]`), and the split gives the
// row blocks a loop of their own.
bool packs_scaled(const Kernel& k, const Node& n) {
  bool scaled = false;
  for_each_index_expr(k, n.body, [&](const IExpr& e) {
    for_each_quasi_term(e, [&](const Term& t) { scaled = scaled || (packed_divisor(t, n.loop) > 1 && t.args[0].coeff(n.loop) > 1); });
  });
  return scaled;
}

}  // namespace

// Whether the loop may be split at all: a known trip from 0 by 1, not a host sequence, no tile
// carried through its iterations and no Python list built by them (the form's carries and lists
// name the loop; a split would have to re-derive them), not frozen.
std::optional<int64_t> splittable_trip(const Kernel& k, const Node& n) {
  const Loop& l = k.loops.at(n.loop);
  auto trip = l.trip();
  if (!trip || *trip < 4 || l.step != 1 || !(l.start == IExpr(0)) || l.host_items || n.frozen) return std::nullopt;
  if (!carried_tensors(k, n.loop).empty()) return std::nullopt;
  for (const auto& t : k.tensors) {
    if (t.list_loop == n.loop) return std::nullopt;
    for (const auto& [name, loop] : t.outer_lists)
      if (loop == n.loop) return std::nullopt;
  }
  return trip;
}

namespace {

// Splits loop node `id` (variable t, trip T) into t_blk over T / d around t_in over d, every index
// rewritten over the new loops' ranges; false (`k` then partly changed: split_one tries it on a
// copy) when its body cannot be printed over them.
bool split(Kernel& k, int id, int64_t d) {
  Node* n = find_node(k, id);
  const Loop old = k.loops.at(n->loop);
  Loop outer = old, inner = old;
  outer.var = fresh_loop_var(k, old.var + "_blk");
  outer.stop = IExpr(*old.trip() / d);
  inner.var = fresh_loop_var(k, old.var + "_in");
  inner.stop = IExpr(d);
  int outer_id = add_loop(k, outer);
  int inner_id = add_loop(k, inner);
  IExpr index = IExpr::var(outer_id) * d + IExpr::var(inner_id);
  std::vector<Node> body = std::move(n->body);
  Ranges ranges = k.ranges();
  substitute_nodes(k, body, old.id, index, &ranges);
  if (!print_over_new_loops(k, body, old.var)) return false;
  for (auto& t : k.tensors) {
    if (t.scope_loop == old.id) t.scope_loop = inner_id;
    // A tile whose size names the variable (a ragged last row tile: `min(P, M - (t // C) * P)` rows).
    for (auto& d : t.shape) d = d.substitute(old.id, index, &ranges);
  }
  Node loop;
  loop.kind = NodeKind::Loop;
  loop.id = k.next_node++;
  loop.loop = inner_id;
  loop.dirty = true;
  loop.body = std::move(body);
  n = find_node(k, id);
  n->loop = outer_id;
  n->dirty = true;
  n->patch.clear();
  n->origin = nullptr;  // its header is no longer the author's (interchange copies an origin's header)
  n->body.clear();
  n->body.push_back(std::move(loop));
  k.loops.erase(old.id);
  return true;
}

// Splits one loop whose split removes `//` / `%` terms (by its largest such divisor); false when
// no loop has one.
bool split_one(Kernel& k) {
  for (int id : open_loop_ids(k)) {
    Node* n = find_node(k, id);
    auto trip = splittable_trip(k, *n);
    if (!trip || !(only_packed_coordinates(k, *n) || packs_scaled(k, *n))) continue;
    const int before = quasi_terms_using(k, n->body, {n->loop});
    if (before == 0) continue;
    for (int64_t d : split_divisors(k, *n, *trip)) {
      Kernel trial = k;
      if (!split(trial, id, d)) continue;
      const Node* t = find_node(trial, id);
      const Node& in = t->body.front();
      if (quasi_terms_using(trial, t->body, {t->loop, in.loop}) < before) {
        k = std::move(trial);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

// Whether the source line `line` names one of `names`.
static bool line_names(const Kernel& k, uint32_t line, const std::set<std::string>& names) {
  const std::string text = k.module->file->line_text(line);
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return names_word(text, n); });
}

// The author's text of the body names the flattened variable and what was computed from it (`r = t
// // C`, then `x[r * P:(r + 1) * P]`): those bindings go, and every node naming them is printed
// from the form (over t_blk and t_in), so no move later copies a statement reading a name that is
// no longer bound. False when a node cannot be printed from the form (a condition, a helper call,
// an operand kept only as text, a list append naming them).
bool print_over_new_loops(Kernel& k, std::vector<Node>& body, const std::string& var) {
  std::set<std::string> names = {var};
  auto named = [&](const Node& n) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& x) { return mentions(k, n, x); });
  };
  bool ok = true;
  std::set<int> dropped;
  for_each_node(body, [&](Node& n, const std::vector<int>&) {
    if (n.kind == NodeKind::Meta && (n.meta == MetaKind::Binding || n.meta == MetaKind::View) && named(n)) {
      dropped.insert(n.id);
      names.insert(n.binds.begin(), n.binds.end());
    }
  });
  for_each_node(body, [&](Node& n, const std::vector<int>&) {
    if (dropped.count(n.id) || !n.origin) return;
    switch (n.kind) {
      case NodeKind::Loop:
        if (line_names(k, n.origin->span.line, names)) n.dirty = true;  // its header
        return;
      case NodeKind::If: case NodeKind::Inline:
        if (line_names(k, n.origin->span.line, names)) ok = false;
        return;
      case NodeKind::Meta: {
        // A string statement (`''' end loop i1 '''`, a tool's loop marker) names nothing it reads.
        if (n.meta == MetaKind::Docstring || n.meta == MetaKind::Pass || n.meta == MetaKind::Import) return;
        if (named(n)) ok = false;
        return;
      }
      case NodeKind::Stmt: {
        if (!named(n)) return;
        n.dirty = true;
        // Only the operands whose text names them are printed from the form: the others (`np.exp`,
        // `dtype=np.float32`, a tile named whole) keep the author's text.
        auto names_them = [&](const nki::Expr* e) {
          if (!e) return false;
          std::set<std::string> read;
          names_of(*e, read);
          return reads_any(read, names);
        };
        for (auto& op : n.ops) {
          if (names_them(op.dst_origin) || (op.dst && !op.dst_origin)) op.dst_origin = nullptr;
          for (auto& a : op.args) {
            if (a.value.kind == Operand::Kind::Other &&
                std::any_of(names.begin(), names.end(), [&](const std::string& x) { return names_word(a.value.text, x); }))
              ok = false;
            if (names_them(a.value.origin)) a.value.origin = nullptr;
          }
        }
        return;
      }
    }
  });
  if (!ok) return false;
  std::function<void(std::vector<Node>&)> drop = [&](std::vector<Node>& nodes) {
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [&](const Node& n) { return dropped.count(n.id) > 0; }),
                nodes.end());
    for (auto& n : nodes) drop(n.body), drop(n.orelse);
  };
  drop(body);
  return true;
}


int unflatten_loops(Kernel& k) {
  int count = 0;
  // Each split leaves fewer `//` / `%` terms on its loops; a three-level flattening takes two.
  while (count < 16 && split_one(k)) ++count;
  return count;
}

}  // namespace loopnest
