// `if c: ...; break` at the top of a tile loop's body. Python runs the iterations up to the first
// where c holds, that one up to the break (nki-language.md 12.1: Python semantics hold for loops and
// branches). The form holds it as the loop ending after that iteration, its break guard then the
// continue the form reads (Node::continues): taken at most on the loop's last iteration, where
// skipping the rest of the body and leaving the loop are the same thing.
//
// The new stop depends on the loops around it when c reads their variables (`if j == i: break`: a
// triangular nest, stop `min(T, i + 1)`). It is looked for among the expressions that solve c for
// the loop's variable, and kept only when, for every value of the outer variables c and the bounds
// read, the iterations it leaves are exactly those Python runs; otherwise the break is refused with
// the condition named. Nothing is assumed about c's form beyond what this check runs.
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "loopnest/lifter.h"

namespace loopnest::detail {

namespace {

constexpr int64_t kMaxChecks = 1 << 20;  // outer values times iterations checked

// Every assignment of `vars` within `rg` (inclusive ranges), until `f` returns false.
bool each_assignment(const std::vector<int>& vars, const Ranges& rg, std::map<int, int64_t>& vals, size_t at,
                     const std::function<bool()>& f) {
  if (at == vars.size()) return f();
  auto [lo, hi] = rg.at(vars[at]);
  for (int64_t v = lo; v <= hi; ++v) {
    vals[vars[at]] = v;
    if (!each_assignment(vars, rg, vals, at + 1, f)) return false;
  }
  return true;
}

}  // namespace

void Lifter::stop_at_break(int id, const IExpr& l, Cmp c, const IExpr& r, const nki::Span& at) {
  Loop& lp = k.loops.at(id);
  const std::string what = fmt::format("a break under the condition '{} {} {}'", k.str(l), symbol(c), k.str(r));
  if (lp.step <= 0) fail(at, what + " in a loop walking backwards (it lifts in a loop with a positive step)");
  const IExpr d = l - r;
  std::set<int> outer_set;
  for (const IExpr* e : std::initializer_list<const IExpr*>{&d, &lp.start, &lp.stop})
    for (int v : e->vars())
      if (v != id) outer_set.insert(v);
  const Ranges rg = ranges();
  for (int v : outer_set)
    if (!rg.count(v)) fail(at, what + " reading a loop variable of unknown range");
  const std::vector<int> outer(outer_set.begin(), outer_set.end());

  // Candidates: the stop as written (the condition never holds), the variable's value where the
  // condition turns (d == 0 solved for it, when it occurs with coefficient +-1 and nowhere else)
  // plus 1 or 2, bounded by the stop; with no outer variable, the first iteration where c holds.
  std::vector<IExpr> candidates{lp.stop};
  const IExpr var = IExpr::var(id);
  const int64_t a = d.coeff(id);
  if ((a == 1 || a == -1) && !(d - var * a).uses(id)) {
    IExpr root = (d - var * a) * (-a);  // d == 0 at var == root
    for (int64_t plus : {1, 2, 0}) {
      candidates.push_back(IExpr::min(lp.stop, root + IExpr(plus), &rg));
      candidates.push_back(IExpr::max(lp.start + IExpr(lp.step), IExpr::min(lp.stop, root + IExpr(plus), &rg), &rg));
    }
  }
  if (outer.empty() && lp.start.is_constant() && lp.stop.is_constant()) {
    std::map<int, int64_t> vals;
    for (int64_t j = lp.start.constant(); j < lp.stop.constant(); j += lp.step) {
      vals[id] = j;
      if (auto l0 = l.eval(vals), r0 = r.eval(vals); l0 && r0 && holds(*l0, c, *r0)) {
        candidates.push_back(IExpr(j + lp.step));
        break;
      }
    }
  }

  int64_t checks = 0;
  for (const IExpr& stop : candidates) {
    std::map<int, int64_t> vals;
    bool ok = each_assignment(outer, rg, vals, 0, [&]() -> bool {
      auto s0 = lp.start.eval(vals), s1 = lp.stop.eval(vals), s2 = stop.eval(vals);
      if (!s0 || !s1 || !s2) return false;
      // Python's iterations: up to and including the first where c holds.
      int64_t end = *s0;
      for (int64_t j = *s0; j < *s1; j += lp.step) {
        if (++checks > kMaxChecks) return false;
        end = j + lp.step;
        vals[id] = j;
        auto l0 = l.eval(vals), r0 = r.eval(vals);
        if (!l0 || !r0) return false;
        if (holds(*l0, c, *r0)) break;
      }
      vals.erase(id);
      // The candidate's iterations: the same first value and as many of them.
      auto count = [&](int64_t stop_v) { return stop_v <= *s0 ? 0 : (stop_v - *s0 + lp.step - 1) / lp.step; };
      return count(*s2) == count(end);
    });
    if (ok) {
      lp.stop = stop;
      return;
    }
    if (checks > kMaxChecks) break;
  }
  fail(at, what + " (the iterations before the first where it holds are no range of the loop's variable "
                  "the form can write; it lifts when the condition compares loop variables and constants "
                  "so that the loop's end is an expression of the outer loops)");
}

}  // namespace loopnest::detail
