// The lifter's loops: `for` over a range function (a loop node, with the names it carries from one
// iteration to the next), over a host sequence (unrolled, or a loop when its items are affine in
// the index), Python lists of tiles appended per iteration, and trace-time `while` loops.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/core.h>

#include "loopnest/api.h"
#include "loopnest/analysis.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"
#include "nki/ast_walk.h"
#include "nki/parser.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// Names a loop body reads before binding them itself and also binds: values carried from one
// iteration to the next through a Python name (the form holds one tensor per name: a carried tile
// becomes a buffer, lift_carry.cpp).
// With `branches_apart`, the two branches of an `if` are walked each from the names bound before
// it, as Python runs one of them: `if k == 0: acc = t` / `else: acc = acc + t` reads acc before
// binding it (in the else branch, bound by an earlier iteration's then branch).
std::set<std::string> carried_names(const Block& body, const std::set<std::string>& loop_vars,
                                    bool branches_apart = false) {
  std::set<std::string> bound, carried;
  std::function<void(const Block&)> walk_block;
  // The names an expression reads; a lambda's or a comprehension's body binds its own.
  auto names_read = [](const Expr& e, std::set<std::string>& out) {
    walk_pruned(e, [&](const Expr& x) {
      if (x.kind == ExprKind::Name) out.insert(static_cast<const NameExpr&>(x).id);
      return !opens_scope(x);
    });
  };
  std::set<std::string> read_first;
  walk_block = [&](const Block& b) {
    for (const auto& s : b) {
      std::set<std::string> r;
      const Expr* target = nullptr;
      switch (s->kind) {
        case StmtKind::Assign: {
          auto& a = static_cast<const AssignStmt&>(*s);
          names_read(*a.value, r);
          target = a.targets[0].get();
          if (target->kind == ExprKind::Subscript) names_read(*target, r), target = nullptr;
          break;
        }
        case StmtKind::AugAssign: {
          auto& a = static_cast<const AugAssignStmt&>(*s);
          names_read(*a.value, r);
          names_read(*a.target, r);
          break;
        }
        case StmtKind::Expr: names_read(*static_cast<const ExprStmt&>(*s).value, r); break;
        case StmtKind::For: {
          auto& f = static_cast<const ForStmt&>(*s);
          names_read(*f.iter, r);
          for (auto& n : r)
            if (!bound.count(n)) read_first.insert(n);
          r.clear();
          if (f.target->kind == ExprKind::Name) bound.insert(static_cast<const NameExpr&>(*f.target).id);
          if (!branches_apart) {
            walk_block(f.body);
            break;
          }
          // A name the nested loop carries itself (read in a later iteration of it, bound in an
          // earlier one) is that loop's concern, not a value carried by this one.
          std::set<std::string> inner_vars = loop_vars;
          if (f.target->kind == ExprKind::Name) inner_vars.insert(static_cast<const NameExpr&>(*f.target).id);
          const std::set<std::string> inner = carried_names(f.body, inner_vars, true);
          const std::set<std::string> read_before = read_first;
          walk_block(f.body);
          for (const auto& n : inner)
            if (!read_before.count(n)) read_first.erase(n), carried.erase(n);
          break;
        }
        case StmtKind::If: {
          auto& i = static_cast<const IfStmt&>(*s);
          names_read(*i.test, r);
          for (auto& n : r)
            if (!bound.count(n)) read_first.insert(n);
          r.clear();
          if (!branches_apart) {
            walk_block(i.body);
            walk_block(i.orelse);
            break;
          }
          const std::set<std::string> before = bound;
          walk_block(i.body);
          std::set<std::string> after_then = std::exchange(bound, before);
          walk_block(i.orelse);
          bound.insert(after_then.begin(), after_then.end());
          for (const auto& n : bound)
            if (!before.count(n) && read_first.count(n) && !loop_vars.count(n)) carried.insert(n);
          break;
        }
        default: break;
      }
      for (auto& n : r)
        if (!bound.count(n)) read_first.insert(n);
      if (target) {
        std::set<std::string> t;
        names_read(*target, t);
        for (auto& n : t) {
          if (read_first.count(n) && !loop_vars.count(n)) carried.insert(n);
          bound.insert(n);
        }
      }
    }
  };
  walk_block(body);
  return carried;
}

}  // namespace

void Lifter::for_loop(const ForStmt& s, std::vector<Node>& out) {
  std::vector<Op> ops;
  current_ops = &ops;
  AValue r = eval(*s.iter);
  if (!ops.empty()) fail(s.iter->span, "a loop range computed by an operation");
  if (r.k != K::Range) return host_for(s, r, out);
  if (s.target->kind != ExprKind::Name) fail(s.target->span, "a loop with a target that is not one name");
  // `for k in nl.affine_range(n): ... else: LIMIT = 2`: the else block runs once the loop ends; a
  // loop node has no place for it, and dropping it would print a different kernel back.
  if (!s.orelse.empty()) fail(s.span, "a for ... else on a loop of the kernel");
  const std::string& var = static_cast<const NameExpr&>(*s.target).id;
  std::map<std::string, int> carried_here;
  // nl.static_range is unrolled while tracing (nki-language.md 5): its copies of the body, each
  // with the variable a host int, are what the trace runs (host_for lifts them, each copy frozen).
  std::optional<AValue> copies, attr_copies;
  {
    IExpr lo = int_of(r.items[0], *s.iter), hi = int_of(r.items[1], *s.iter), st = int_of(r.items[2], *s.iter);
    const bool constant_range = lo.is_constant() && hi.is_constant() && st.is_constant() && st.constant() != 0;
    // The values the loop variable takes, as the copies' host ints.
    auto values = [&] {
      std::vector<AValue> items;
      for (int64_t i = lo.constant(); st.constant() > 0 ? i < hi.constant() : i > hi.constant(); i += st.constant()) {
        if (items.size() > 1024) break;  // host_for refuses it by its size
        items.push_back(AValue::of_int(i));
      }
      return AValue::of_tuple(std::move(items));
    };
    if (!unrolling_static) {
      if (auto name = first_iteration_binding(s.body, var)) {
        // The trace's copies of the body, each with its own host index, run as Python runs them.
        if (constant_range) return host_for(s, values(), out);
        fail(s.span, fmt::format("the name '{}', which this loop's body reads before binding it (bound only by an "
                                 "earlier iteration), in a loop whose trip count is not a constant",
                                 *name));
      }
    }
    if (r.range_kind == LoopKind::Static && constant_range) {
      copies = values();
    } else if (constant_range && (sets_attributes(s.body) || !fill_probe)) {
      // A body setting an instance's attribute (`self.step += 1` of a helper object) may carry a
      // host value from one iteration to the next, which one loop of the form cannot hold
      // (check_carried_attrs); so may one updating a Python number (`count += 1`, also through a
      // helper's `nonlocal`), choosing a function by the loop variable, doing float arithmetic on
      // it (`k * 1.0`) or rebinding an item of a host list (`accs[g] = ...`): then the loop lifts as
      // the copies Python's trace runs (only when lifting it as one loop fails for such a value). (Not in the filled-list probe's first-iteration lift: its
      // copies would bind the list's items one by one, which is not what the loop does.)
      attr_copies = values();
    }
  }
  if ((copies || attr_copies) && !unrolling_static) {
    // The body lifts as one loop where it can (the moves see a loop); where it cannot (float
    // arithmetic on the variable, `nl.add(t, j * 10.0)`, has no integer form) it lifts as the copies.
    const Checkpoint saved = checkpoint();
    auto restore = [&] { rollback(saved); };
    size_t before = out.size();
    carried_attr_refused = false;
    per_iteration_host_refused = false;
    try {
      unrolling_static = true;
      for_loop(s, out);
      unrolling_static = false;
      return;
    } catch (const LiftError& as_loop) {
      unrolling_static = false;
      restore();
      out.resize(before);
      bool host_doing = std::exchange(carried_attr_refused, false);
      host_doing = std::exchange(per_iteration_host_refused, false) || host_doing;
      if (!copies && !host_doing) throw;  // not an attribute's or a per-iteration host value's doing
      // A number carried into a tile (`carry = 0.0`, then `carry = h[:, w - 1:w]`): one loop where
      // the trace's values allow (lift_host_carry.cpp).
      const AValue& values_of = copies ? *copies : *attr_copies;
      if (host_doing && !values_of.items.empty() && carry_from_host_number(s, values_of.items[0], out)) return;
      try {
        return host_for(s, copies ? *copies : *attr_copies, out);
      } catch (const LiftError& as_copies) {
        restore();
        out.resize(before);
        // The copies are what Python's trace runs: where they fail as the kernel itself does (None
        // read as a tile, a TypeError: lift_call.cpp), that is the error.
        if (as_copies.diag.kind == ErrorKind::Type) throw;
        throw as_loop;  // the copies fail too: the loop's own error says more
      }
    }
  }
  unrolling_static = false;
  if (auto name = carried_value(s.body, var)) {
    // A name carried from one copy of the body to the next (Horner's `acc = nl.add(nl.multiply(acc,
    // x), c[k])`) is Python rebinding, as in a loop over a host sequence, and lifts as one.
    if (copies) return host_for(s, *copies, out);
    // Through an affine or sequential loop the carried tile is a buffer of the form (lift_carry.cpp).
    carried_here = carry_buffers(s, carried_values(s.body, var));
  }
  IExpr step = int_of(r.items[2], *s.iter);
  // A constant step either way: a negative one walks backwards (`nl.static_range(n - 1, -1, -1)`);
  // moves that need start 0 and step 1 check for it themselves.
  if (!step.is_constant()) fail(s.iter->span, "a loop with a step that is not a constant");
  if (step.constant() == 0) fail(s.iter->span, "a loop with a step of zero");
  const Loop loop = new_loop({.var = var,
                              .kind = r.range_kind,
                              .start = int_of(r.items[0], *s.iter),
                              .stop = int_of(r.items[1], *s.iter),
                              .step = step.constant(),
                              .dynamic = r.range_dynamic});
  Node n = new_node(NodeKind::Loop, s);
  n.loop = loop.id;
  auto saved = env.find(var) == env.end() ? std::optional<AValue>() : std::optional<AValue>(env[var]);
  env[var] = AValue::of_int(IExpr::var(loop.id));
  loop_stack.push_back(loop.id);
  auto before = env;
  auto outer_carried = carried;
  for (const auto& [name, t] : carried_here) carried[name] = t;
  const std::vector<std::string> fills = fill_lists(s);
  break_loop = loop.id;
  const AttrsSnapshot attrs_before = save_attrs();
  // Counters the body bumps (lift_counter.cpp): the body lifted again with each at its value per
  // iteration. The bumps since this body began are this loop's, then its enclosing loop's too.
  {
    BumpScope bumps(*this);
    const Checkpoint at_body = checkpoint();
    try {
      loop_body(s.body, n.body);
      if (!bumped_cells.empty()) count_bumps(s, loop, n, at_body, std::map<std::string, const Stmt*>(bumped_cells));
    } catch (const LiftError&) {
      // A body that bumped a counter and then failed: the copies the trace runs may still lift, as
      // they did when the bump itself was refused.
      if (!bumped_cells.empty()) per_iteration_host_refused = true;
      throw;
    }
  }
  break_loop = -1;
  check_carried_attrs(s, attrs_before);
  for (const auto& name : fills) filled.at(name).done = true;
  carried = std::move(outer_carried);
  loop_stack.pop_back();
  env.erase(var);
  if (saved) env[var] = *saved;
  forget_loop_bindings(before, loop.id);
  out.push_back(std::move(n));
}

std::vector<std::string> Lifter::carried_values(const Block& body, const std::string& var) const {
  std::vector<std::string> out;
  for (const auto& name : carried_names(body, {var})) {
    auto it = env.find(name);
    if (it == env.end()) continue;
    const AValue& v = it->second;
    // A tuple of tiles under one name (`state = (m, s)` rebound as a whole) is carried item by item.
    bool tiles = v.k == K::Tuple && !v.items.empty() &&
                 std::all_of(v.items.begin(), v.items.end(), [](const AValue& x) { return x.k == K::Tile; });
    if (v.k == K::Tile || v.k == K::Int || v.k == K::Float || tiles) out.push_back(name);
  }
  return out;
}

// A name the body reads before binding it whose value before the loop is no tile or number: unbound
// (`if k == 0: acc = t else: acc = acc + t`) or a host marker (`acc = None`, then `acc = t if acc
// is None else nl.add(acc, t)`). Python's first iteration runs other code than the later ones, so
// one loop of the form, lifted once with the value before the loop, would hold only the first.
std::optional<std::string> Lifter::first_iteration_binding(const Block& body, const std::string& var) const {
  for (const auto& name : carried_names(body, {var}, true)) {
    auto it = env.find(name);
    if (it == env.end() || it->second.k == K::None || it->second.k == K::Bool) return name;
  }
  return std::nullopt;
}

std::optional<std::string> Lifter::carried_value(const Block& body, const std::string& var) const {
  auto names = carried_values(body, var);
  return names.empty() ? std::nullopt : std::optional<std::string>(names.front());
}

void Lifter::forget_loop_bindings(const std::map<std::string, AValue>& before, int loop) {
  // After the loop a name bound in it holds its last iteration's value, which the form does not
  // express when it depends on the loop: such names are unusable after the loop.
  for (auto it = env.begin(); it != env.end();) {
    auto old = before.find(it->first);
    bool rebound = old == before.end() || !same_binding(old->second, it->second);
    if (rebound && depends_on(it->second, loop)) it = env.erase(it);
    else ++it;
  }
}

namespace {

// `v` with the variable `from` replaced by `with` in its integers (a per-item template).
AValue substitute_value(const AValue& v, int from, const IExpr& with) {
  AValue out = v;
  if (v.k == K::Int) out.i = v.i.substitute(from, with);
  for (auto& x : out.items) x = substitute_value(x, from, with);
  return out;
}

// The name the target binds to exactly the item's index (`c` of `for c, (k0, kn) in ...`), "".
std::string index_name(const Expr& target, const AValue& item) {
  if (target.kind == ExprKind::Name)
    return item.k == K::Int && item.i == IExpr::var(kHostIndex) ? static_cast<const NameExpr&>(target).id : "";
  if ((target.kind == ExprKind::Tuple || target.kind == ExprKind::List) && (item.k == K::Tuple || item.k == K::List)) {
    auto& t = static_cast<const SequenceExpr&>(target);
    if (t.elts.size() != item.items.size()) return "";
    for (size_t i = 0; i < t.elts.size(); ++i)
      if (auto n = index_name(*t.elts[i], item.items[i]); !n.empty()) return n;
  }
  return "";
}

}  // namespace

// `for c, (k0, kn) in enumerate(chunks)` over a list whose items are one expression of their index
// (AValue::per_item: a comprehension over a constant range): the kernel's Python unrolls it while
// tracing, and every copy of the body is the same body at another index, so the form holds it as
// one loop over the index (static: unrolled, like nl.static_range), the target's names bound to
// their expressions of it; a condition on the index (`if c == 0:`) is a condition of the loop. The
// header is kept as written (Loop::host_items). When the body does not lift that way (it indexes
// host values by the item, say), nothing changed: the loop unrolls as before.
bool Lifter::host_for_as_loop(const ForStmt& s, const AValue& seq, std::vector<Node>& out) {
  if (!seq.per_item || seq.items.empty()) return false;
  std::string var = index_name(*s.target, *seq.per_item);
  if (var.empty()) return false;
  if (carried_value(s.body, var)) return false;
  const Checkpoint saved = checkpoint();
  try {
    const Loop loop = new_loop({.var = var,
                                .kind = LoopKind::Static,
                                .start = IExpr(0),
                                .stop = IExpr(static_cast<int64_t>(seq.items.size())),
                                .host_items = true});
    Node n = new_node(NodeKind::Loop, s);
    n.loop = loop.id;
    auto before = env;  // before the target's names are bound: after the loop they are unusable
    bind_target(*s.target, substitute_value(*seq.per_item, kHostIndex, IExpr::var(loop.id)));
    loop_stack.push_back(loop.id);
    loop_body(s.body, n.body);
    loop_stack.pop_back();
    forget_loop_bindings(before, loop.id);
    out.push_back(std::move(n));
    return true;
  } catch (const LiftError&) {
    rollback(saved);
    return false;
  }
}

// `scores.append(row)` once per iteration of the innermost loop, `row` that iteration's tile: the
// list is the tile's tensor with a block dim over the loop (accesses get the loop variable as
// their first index at the end of the lift, list subscripts their index). The tile may also be
// made in the call (`blocks.append(nl.load(b[k]))`): the statement is then that operation, its
// result the list's element (named `blocks_item`, as no name of the author's holds it).
const Tensor* Lifter::list_tensor(const AValue& v) const {
  if (v.k != K::List || v.items.size() != 1 || v.items[0].k != K::Tile) return nullptr;
  // A list of one block of such a tensor (`exps[1:]` of a comprehension's list of two, lift_rolled.cpp)
  // is that one tile.
  if (!whole_access(v.items[0].access)) return nullptr;
  const Tensor& t = k.tensor(v.items[0].access.tensor);
  return t.list_loop >= 0 ? &t : nullptr;
}

std::vector<Op> Lifter::append(const CallExpr& c) {
  auto& attr = static_cast<const AttributeExpr&>(*c.func);
  if (attr.value->kind != ExprKind::Name || c.args.size() != 1)
    fail(c.span, "an append other than `name.append(tile)`");
  const std::string& list = static_cast<const NameExpr&>(*attr.value).id;
  auto find_list = [&] {
    auto at = env.find(list);
    if (at == env.end() || at->second.k != K::List) fail(attr.value->span, fmt::format("'{}' is not a list", list));
    return at;
  };
  find_list();
  // `x_t.append([nl.load(x[r, :, k, :]) for k in range(K)])` once per iteration of a loop from 0 by 1:
  // lifted as `row = [...]; x_t.append(row)` would be, the comprehension rolled as its loop
  // (lift_rolled.cpp) inside the appending one; appended_rows then gives its list tensor the outer
  // block dim, a list of lists as a nested comprehension makes (lift_nested_rolled.cpp).
  const bool per_iteration = !loop_stack.empty() && !(list_depth.count(list) && list_depth.at(list) == loop_stack.size());
  const Loop* appending = per_iteration ? &k.loops.at(loop_stack.back()) : nullptr;
  const bool rolls = appending && c.args[0]->kind == ExprKind::ListComp && appending->trip() &&
                     appending->start == IExpr(0) && appending->step == 1;
  const size_t pending_before = pending_inline.size();
  if (rolls) {
    assigned_comprehension = c.args[0].get();
    assigned_name = list;
  }
  std::vector<Op> made;
  current_ops = &made;
  AValue v = eval(*c.args[0]);
  assigned_comprehension = nullptr;
  const bool rolled = rolls && made.empty() && pending_inline.size() == pending_before + 1 &&
                      pending_inline.back().name == kComprehensionLoop;
  // Found after the argument: a helper called in it restores the names it saw (inline_call
  // assigns `env`), which leaves an iterator taken before the call dangling.
  auto it = find_list();
  if (auto d = list_depth.find(list); d != list_depth.end() && d->second == loop_stack.size()) {
    // `cols = []; cols.append(a); cols.append(b)` in one iteration: the values themselves, in order.
    // Under a condition on a loop variable both branches are lifted, so which items the list holds
    // is known only per iteration: refused.
    if (guarded > 0) fail(c.span, "an append to a host list under a condition on a loop variable");
    it->second.items.push_back(v);
    return made;
  }
  if (loop_stack.empty() || !it->second.items.empty())
    fail(c.span, "a list appended more than once per iteration of one loop");
  // `xT = []` bound outside a loop that encloses the appending one (`xT = []; for g: for kb:
  // xT.append(..)`) grows across that loop's iterations: `xT[kb]` then reads the first iteration's
  // tiles, not a tile per iteration of the appending loop.
  if (auto d = list_depth.find(list); d != list_depth.end() && d->second + 1 < loop_stack.size())
    fail(c.span, "a list bound empty outside a loop around the loop appending to it (it grows across that loop)");
  if (rolled) return appended_rows(c, list, v);
  int l = loop_stack.back();
  const Loop& loop = k.loops.at(l);
  auto trip = loop.trip();
  if (made.empty() && list_tensor(v)) {
    // `block_tiles.append(row)`, `row` a list of tiles built by a loop inside this one: one more
    // block dim, over this loop, before the row's.
    Tensor& t = k.tensor(v.items[0].access.tensor);
    if (!trip || !(loop.start == IExpr(0)) || loop.step != 1 || t.scope_loop != l)
      fail(c.span, "a list of lists other than one list per iteration of a loop from 0");
    t.shape.insert(t.shape.begin(), IExpr(*trip));
    if (t.on_chip()) t.partition_dim += 1;
    t.outer_lists.insert(t.outer_lists.begin(), {list, l});
    t.scope_loop = loop_stack.size() >= 2 ? loop_stack[loop_stack.size() - 2] : -1;
    it->second.items.push_back(AValue::of_tile(whole(t.id)));
    return {};
  }
  // An operation's own result, whole: anything else (a view of a tile made in the call, several
  // results) has no tile of its own to become the list's element.
  // `tiles.append(nl.ndarray(...))` appends the tile the declaration makes (its dst).
  Op* root = made.empty() ? nullptr : producer(made, v, k);
  int made_tile = !root ? -1 : root->result >= 0 ? root->result : is_declaration(*root) && root->dst ? root->dst->tensor : -1;
  if ((!made.empty() && made_tile < 0) || v.k != K::Tile || !whole_access(v.access))
    fail(c.args[0]->span, "an append of something other than a whole tile (or a list of tiles)");
  if (made_tile >= 0 && k.tensor(made_tile).name.empty()) k.tensor(made_tile).name = list + "_item";
  Tensor& t = k.tensor(v.access.tensor);
  if (!trip || !(loop.start == IExpr(0)) || loop.step != 1 || t.scope_loop != l || t.list_loop >= 0)
    fail(c.span, "a list of tiles other than one tile per iteration of a loop from 0");
  list_ranks[t.id] = t.shape.size();
  t.shape.insert(t.shape.begin(), IExpr(*trip));
  if (t.on_chip()) t.partition_dim += 1;
  t.list_name = list;
  t.list_loop = l;
  t.scope_loop = loop_stack.size() >= 2 ? loop_stack[loop_stack.size() - 2] : -1;
  AValue element = AValue::of_tile(whole(t.id));
  it->second.items.push_back(element);
  return made;
}

void Lifter::finish_lists(std::vector<Node>& body) {
  auto fix = [&](Access& a) {
    auto r = list_ranks.find(a.tensor);
    if (r == list_ranks.end() || a.dims.size() != r->second) return;
    const Tensor& t = k.tensor(a.tensor);
    a.dims.insert(a.dims.begin(), DimIndex{IExpr::var(t.list_loop), {}});
    for (auto o = t.outer_lists.rbegin(); o != t.outer_lists.rend(); ++o)
      a.dims.insert(a.dims.begin(), DimIndex{IExpr::var(o->second), {}});
  };
  for_each_node(body, [&](Node& n, const std::vector<int>&) {
    for (auto& op : n.ops) {
      if (op.dst) fix(*op.dst);
      for (auto& a : op.args)
        if (a.value.kind == Operand::Kind::Tile) fix(a.value.access);
    }
    if (n.view) fix(*n.view);
  });
}

bool Lifter::depends_on(const AValue& v, int loop) const {
  switch (v.k) {
    case K::Int: case K::ParDim: return v.i.uses(loop);
    case K::Tile: {
      for (const auto& d : v.access.dims) {
        if (d.start.uses(loop)) return true;
        for (const auto& t : d.terms)
          if (t.size.uses(loop)) return true;
      }
      return false;
    }
    case K::Grid: {
      if (v.grid.base.uses(loop)) return true;
      for (const auto& [p, ax] : v.grid.axes)
        if (ax.size.uses(loop)) return true;
      return false;
    }
    case K::Tuple: case K::List:
      for (const auto& x : v.items)
        if (depends_on(x, loop)) return true;
      return false;
    default: return false;
  }
}

bool Lifter::same_binding(const AValue& a, const AValue& b) const {
  if (a.k != b.k) return false;
  if (a.k == K::Int) return a.i == b.i;
  if (a.k == K::Tile) return a.access == b.access;
  return a.k != K::Tuple && a.k != K::List && a.k != K::Grid;
}

// A while loop of host Python (counters, shape arithmetic): run while lifting, its condition known
// at every step; kept as one verbatim statement. A while loop doing tile work is refused (its trip
// count would be a loop of the form only if the condition were a range).
// A while loop whose condition is a host value (a trace-time bound: `while r * 128 < M`) runs while
// tracing as Python runs it. Host work only: nothing of it stays in the form but the statement.
// Tile work: its copies of the body are one Inline node, printed as the loop written, as a loop
// over a host sequence is (host_for). A break / continue in it is followed as Python takes it
// (host_jump_block), each deciding condition a host value: `while True: if r >= M: break; ...`.
//
// One copy of a while body holding a break / continue: its statements up to the jump the branches
// taken reach; 1 after a break, 2 after a continue, 0 when the body ran to its end.
int Lifter::host_jump_block(const Block& b, std::vector<Node>& out) {
  for (const auto& st : b) {
    if (st->kind == StmtKind::Break) return 1;
    if (st->kind == StmtKind::Continue) return 2;
    if (st->kind == StmtKind::If) {
      auto& i = static_cast<const IfStmt&>(*st);
      if (has_jump(i.body) || has_jump(i.orelse)) {
        // Python takes one branch, decided by a host value here (the copy's cursor against a bound).
        std::vector<Op> ops;
        current_ops = &ops;
        std::optional<bool> taken = host_truth(eval(*i.test));
        if (!ops.empty() || !taken)
          fail(i.test->span, fmt::format("the condition '{}' of a break / continue in a while loop doing tile work "
                                         "(not known at trace time)", print_expr(*i.test)));
        if (int r = host_jump_block(*taken ? i.body : i.orelse, out)) return r;
        continue;
      }
    }
    // A break / continue of this loop inside another statement (a with block) is not followed here.
    bool own_jump = (st->kind == StmtKind::With && has_jump(static_cast<const WithStmt&>(*st).body));
    if (own_jump) fail(st->span, "a break / continue inside a with block of a while loop doing tile work");
    statement(*st, out);  // the copies are frozen as one node (host_while)
  }
  return 0;
}

void Lifter::host_while(const WhileStmt& s, std::vector<Node>& out) {
  std::vector<Node> copies;
  for (int step = 0;; ++step) {
    if (step > 100000) fail(s.span, "a while loop running more than 100000 times while lifting");
    std::vector<Op> ops;
    current_ops = &ops;
    AValue t = eval(*s.test);
    if (!ops.empty() || t.k != K::Bool) fail(s.test->span, fmt::format("the while condition '{}'", print_expr(*s.test)));
    if (!t.b) {
      block(s.orelse, copies);
      break;
    }
    if (step >= 1024 && std::any_of(copies.begin(), copies.end(), [](const Node& n) { return n.kind != NodeKind::Meta; }))
      fail(s.span, "a while loop doing tile work more than 1024 times while lifting");
    if (!has_jump(s.body)) {
      block(s.body, copies);
      continue;
    }
    if (host_jump_block(s.body, copies) == 1) break;  // a break skips the else block too
  }
  bool tile_work = std::any_of(copies.begin(), copies.end(), [](const Node& n) { return n.kind != NodeKind::Meta; });
  if (!tile_work) {
    push_meta(s, MetaKind::Assert, out);
    return;
  }
  Node n = new_node(NodeKind::Inline, s);
  n.helper = "while";
  n.body = std::move(copies);
  freeze(n);
  out.push_back(std::move(n));
}

}  // namespace loopnest::detail
