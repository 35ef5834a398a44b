// Host counters as induction variables. A kernel keeps a Python int that helpers bump while the
// loops run (`tcount = [0]`, `j = tcount[0] % NBUF; tcount[0] += 1` in a PE transpose closure called
// per iteration; `nonlocal count`; `count += 1` in a loop's body), and uses its value as a buffer
// index. Python's trace runs the loops concretely, so at each call the counter holds its value
// before the loop plus the number of bumps run before it: a function of the enclosing loops'
// indices. Lifted once with the index symbolic, the body would see the value before the loop in
// every iteration; refused before, the loop lifted as its copies where its trip was a constant
// (held-out author62's matmul_add_rmsnorm: every row group unrolled) or not at all (a list item's
// bump: "the accumulation into 'tcount[0]'", author62's gqa_full).
//
// Chosen: a loop whose body bumps a counter bound outside it lifts its body once to learn the bump
// of one iteration (an expression of the index: a constant, or constants under the conditions on
// the index the bumps sit under, `if i + 1 < n`, `if (i + 1) % per_kv == 0`), then again with the
// counter bound to its value before the loop plus the sum of the bumps of the iterations before
// (counter_sum.h: min / max / floor divisions of the index, as a compiler's scalar evolution counts
// an induction variable), and leaves it after the loop at that sum over every iteration. The second
// lift's bumps are checked to be the first's at every iteration (a bump under a condition on the
// counter's own value is not), else the loop is refused with the counter named, as is a bump the
// sum cannot count (by the loop index, under a condition neither a range nor a congruence of it).
// The printed kernel keeps the author's counter: its bumps are bindings copied as written, and a
// move whose printed kernel would count differently does not lift back to its form (emit_checked).
#include <functional>
#include <set>

#include <fmt/core.h>

#include "loopnest/counter_sum.h"
#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// A cell's name and, for a list's item, its index (`tcount[0]` -> tcount, 0).
std::pair<std::string, int64_t> parse_cell(const std::string& cell) {
  auto open = cell.find('[');
  if (open == std::string::npos) return {cell, -1};
  return {cell.substr(0, open), std::stoll(cell.substr(open + 1))};
}

const AValue* find_cell(const std::map<std::string, AValue>& env, const std::string& cell) {
  auto [name, index] = parse_cell(cell);
  auto it = env.find(name);
  if (it == env.end()) return nullptr;
  const AValue* v = &it->second;
  if (index >= 0) {
    if (v->k != K::List || index >= static_cast<int64_t>(v->items.size())) return nullptr;
    v = &v->items[static_cast<size_t>(index)];
  }
  return v->k == K::Int ? v : nullptr;
}

AValue* cell_in(std::map<std::string, AValue>& env, const std::string& cell) {
  return const_cast<AValue*>(find_cell(env, cell));  // the same lookup in a map the caller may change
}

std::optional<IExpr> cell_value(const std::map<std::string, AValue>& env, const std::string& cell) {
  const AValue* v = find_cell(env, cell);
  return v ? std::optional<IExpr>(v->i) : std::nullopt;
}

}  // namespace

bool Lifter::counter_item(const AugAssignStmt& s, const SubscriptExpr& target, const AValue& list, const AValue& by,
                          bool no_ops, std::vector<Node>& out) {
  if (target.value->kind != ExprKind::Name || list.k != K::List || by.k != K::Int || !no_ops) return false;
  if (s.op != BinOp::Add && s.op != BinOp::Sub) return false;
  std::vector<Op> ops;
  auto* saved = current_ops;
  current_ops = &ops;
  AValue index = eval(*target.index);
  current_ops = saved;
  if (!ops.empty() || index.k != K::Int || !index.i.is_constant()) return false;
  int64_t i = index.i.constant();
  if (i < 0) i += static_cast<int64_t>(list.items.size());
  const std::string cell = fmt::format("{}[{}]", static_cast<const NameExpr&>(*target.value).id, i);
  AValue* item = cell_in(env, cell);
  if (!item) return false;
  item->i = s.op == BinOp::Add ? item->i + by.i : item->i - by.i;
  bump_cell(cell, s);
  push_meta(s, MetaKind::Binding, out);
  return true;
}

void Lifter::count_bumps(const ForStmt& s, const Loop& loop, Node& n, const Checkpoint& at_body,
                         const std::map<std::string, const Stmt*>& cells) {
  struct Counter {
    std::string cell;
    const Stmt* at;
    IExpr entry, delta, before, total;
  };
  std::vector<Counter> counters;
  for (const auto& [cell, at] : cells) {
    auto entry = cell_value(at_body.env, cell), after = cell_value(env, cell);
    // A helper's own name (its frame is gone), or a name bound in the body: no counter of this loop.
    if (!entry || !after || *entry == *after) continue;
    counters.push_back({cell, at, *entry, *after - *entry, {}, {}});
  }
  if (counters.empty()) return;
  auto refuse = [&](const Counter& c, const std::string& why) {
    per_iteration_host_refused = true;  // a loop of a constant trip may still lift as its copies
    fail(c.at->span, fmt::format("the Python counter '{}' bumped in a loop by {} per iteration ({})", c.cell,
                                 k.str(c.delta), why));
  };
  const Ranges rg = ranges();
  const IExpr index = IExpr::var(loop.id);
  const auto trip = loop.trip();
  if (loop.step <= 0) refuse(counters.front(), "a loop walking backwards");
  // The iterations before the current one, and all of them, as counts from 0.
  const IExpr done = IExpr::floordiv(index - loop.start, loop.step, &rg);
  const IExpr all = trip ? IExpr(*trip)
                         : IExpr::max(IExpr::floordiv(loop.stop - loop.start + (loop.step - 1), loop.step, &rg), IExpr(0), &rg);
  const IExpr at_iteration = loop.start + IExpr::var(kSumIndex) * loop.step;
  for (auto& c : counters) {
    const IExpr f = c.delta.substitute(loop.id, at_iteration, &rg);
    auto before = sum_over(f, IExpr(0), done, &rg), total = sum_over(f, IExpr(0), all, &rg);
    if (!before || !total)
      refuse(c, "not a count of the iterations: a bump by the loop index, or under a condition on it that is neither "
                "a range nor a congruence");
    c.before = c.entry + *before, c.total = c.entry + *total;
  }
  // The body again, each counter at its value when the iteration starts.
  rollback(at_body);
  n.body.clear();
  for (const auto& c : counters) cell_in(env, c.cell)->i = c.before;
  bumped_cells.clear();
  loop_body(s.body, n.body);
  for (const auto& c : counters) {
    auto after = cell_value(env, c.cell);
    if (!after) refuse(c, "rebound in the loop");
    const IExpr again = *after - c.before;
    bool same = again == c.delta;
    if (!same && trip && *trip <= 4096) {
      // The same bump at every iteration, the other loops' variables at their first value.
      std::map<int, int64_t> values;
      for (const IExpr* e : {&again, &c.delta})
        for (int v : e->vars()) values[v] = rg.count(v) ? rg.at(v).first : 0;
      same = true;
      for (int64_t m = 0; same && m < *trip; ++m) {
        values[loop.id] = loop.start.eval(values).value_or(0) + m * loop.step;
        auto x = again.eval(values), y = c.delta.eval(values);
        same = x && y && *x == *y;
      }
    }
    if (!same) refuse(c, "its bumps depend on its own value");
    cell_in(env, c.cell)->i = c.total;
  }
  // The author's bumps print as written, counting in the order the iterations run: a move that
  // reorders them (interchange, fusion, affine_loop) would print a kernel counting otherwise.
  k.loops.at(loop.id).ordered = true;
}

}  // namespace loopnest::detail

namespace loopnest::detail {

namespace {

// The helper binds `name` itself: a parameter, or a name target of an assignment or a loop in its
// body (not in a nested def, whose names are its own).
bool binds_locally(const FunctionCode& code, const std::string& name) {
  for (const Parameter& p : code.params)
    if (p.name == name) return true;
  auto names = [&](const Expr& e) {
    bool hit = false;
    if (e.kind == ExprKind::Name) hit = static_cast<const NameExpr&>(e).id == name;
    if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List)
      for (const auto& x : static_cast<const SequenceExpr&>(e).elts)
        hit = hit || (x->kind == ExprKind::Name && static_cast<const NameExpr&>(*x).id == name);
    return hit;
  };
  std::function<bool(const Block&)> walk = [&](const Block& b) {
    for (const auto& s : b) {
      switch (s->kind) {
        case StmtKind::Assign:
          for (const auto& t : static_cast<const AssignStmt&>(*s).targets)
            if (names(*t)) return true;
          break;
        case StmtKind::AugAssign:
          if (names(*static_cast<const AugAssignStmt&>(*s).target)) return true;
          break;
        case StmtKind::For: {
          auto& f = static_cast<const ForStmt&>(*s);
          if (names(*f.target) || walk(f.body) || walk(f.orelse)) return true;
          break;
        }
        case StmtKind::If: {
          auto& i = static_cast<const IfStmt&>(*s);
          if (walk(i.body) || walk(i.orelse)) return true;
          break;
        }
        case StmtKind::While: {
          auto& w = static_cast<const WhileStmt&>(*s);
          if (walk(w.body) || walk(w.orelse)) return true;
          break;
        }
        case StmtKind::With:
          if (walk(static_cast<const WithStmt&>(*s).body)) return true;
          break;
        default: break;
      }
    }
    return false;
  };
  return walk(code.body);
}

}  // namespace

void Lifter::keep_counter_bumps(const FunctionCode& code, const std::set<std::string>& declared_outer,
                                bool free_names_are_kernels, std::map<std::string, AValue>* defining_env,
                                const CallExpr& c) {
  std::map<std::string, const Stmt*> outer;
  for (const auto& [cell, at] : bumped_cells) {
    auto [name, index] = parse_cell(cell);
    if (index < 0) {
      // A name: the helper's unless declared outer (written back by inline_call).
      if (declared_outer.count(name)) outer.emplace(cell, at);
      continue;
    }
    if (binds_locally(code, name)) {
      bool parameter = false;
      for (const Parameter& p : code.params) parameter = parameter || p.name == name;
      if (parameter)
        fail(c.span, fmt::format("the call of '{}' bumping the item '{}' of a list passed as its parameter '{}' (a "
                                 "host counter shared with the caller)",
                                 code.name, cell, name));
      continue;  // the helper's own list
    }
    AValue* item = free_names_are_kernels ? cell_in(env, cell) : nullptr;
    AValue* home = item ? cell_in(*defining_env, cell) : nullptr;
    if (!home)
      fail(c.span, fmt::format("the call of '{}' bumping the item '{}' of a list it does not bind (a host counter "
                               "shared with its caller)",
                               code.name, cell));
    home->i = item->i;
    outer.emplace(cell, at);
  }
  bumped_cells = std::move(outer);
}

}  // namespace loopnest::detail
