// A read of an item of a list of None inside the loops that bind its items (lift_none_list.cpp):
// Python reads None there in every iteration before the one that first binds the item, and the
// kernel then fails at trace time, while the form would read a block of the buffer nothing wrote
// yet. Each binding numbers the items once over its loops (numbers_each_once), so the iteration
// binding item g is g's digits in that mixed radix; the read is lifted where, in every iteration
// reaching it (its loops' values and the conditions around it, Lifter::guards), some binding seen
// so far bound its item in an earlier iteration of the loops the two share, or in the same one
// (the binding is above the read in that iteration, or in loops of it that have finished).
// Otherwise it is refused at the read. After the binding's loops the whole list is bound.
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loopnest/lifter.h"
#include "nki/ast_printer.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

namespace {

// The loops `a` and `b` open alike, from the outermost.
size_t common_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

void Lifter::check_none_item_read(const AValue& item, const Expr& at) const {
  if (item.k != K::Tile) return;
  auto found = none_bindings.find(item.access.tensor);
  if (found == none_bindings.end()) return;
  const std::vector<NoneBinding>& bindings = found->second;
  // Every binding's loops finished: every item is bound.
  std::vector<size_t> shared;
  for (const NoneBinding& b : bindings) {
    shared.push_back(common_prefix(b.loops, loop_stack));
    if (shared.back() == 0) return;
  }
  const Tensor& t = k.tensor(item.access.tensor);
  const size_t levels = t.outer_lists.size() + 1;
  auto refuse = [&](const std::string& why) {
    fail(at.span, fmt::format("'{}': an item of a list of None read inside the loops binding its items, {}",
                              print_expr(at), why));
  };
  // The item's flat index (row-major over the list's levels).
  IExpr flat(0);
  int64_t items = 1;
  for (size_t d = 0; d < levels; ++d) {
    if (d >= item.access.dims.size() || !item.access.dims[d].terms.empty() || !t.shape[d].is_constant())
      refuse("as a range of items");
    flat = flat * t.shape[d].constant() + item.access.dims[d].start;
    items *= t.shape[d].constant();
  }
  // The loops whose values decide it: those of the index, of the shared loops, of the conditions
  // around the read, and of their bounds.
  std::set<int> vars;
  for (int v : flat.vars()) vars.insert(v);
  for (size_t i = 0; i < bindings.size(); ++i)
    vars.insert(bindings[i].loops.begin(), bindings[i].loops.begin() + static_cast<long>(shared[i]));
  for (const Guard& g : guards) {
    for (int v : g.l.vars()) vars.insert(v);
    for (int v : g.r.vars()) vars.insert(v);
  }
  for (std::set<int> todo = vars; !todo.empty();) {
    std::set<int> more;
    for (int v : todo) {
      auto loop = k.loops.find(v);
      if (loop == k.loops.end()) refuse("indexed by a value that is no loop variable");
      for (const IExpr* e : {&loop->second.start, &loop->second.stop})
        for (int u : e->vars())
          if (vars.insert(u).second) more.insert(u);
    }
    todo = std::move(more);
  }
  // Loops are numbered as they open: an outer loop's value is set before the bounds that use it.
  const std::vector<int> order(vars.begin(), vars.end());
  // Every iteration of those loops is visited: no more than the times Python's trace, which runs
  // each of them, comes to the read's statement.
  std::map<int, int64_t> at_iteration;  // loop -> its value
  auto value = [&](const IExpr& e) {
    auto v = e.eval(at_iteration);
    if (!v) refuse("indexed by a value that is no loop variable");
    return *v;
  };
  // Whether binding `b` bound item g before the read in this iteration.
  auto bound_before = [&](const NoneBinding& b, size_t common, int64_t g) {
    for (size_t i = 0; i < common; ++i) {
      const int l = b.loops[i];
      const Loop& loop = k.loops.at(l);
      const int64_t now = (at_iteration.at(l) - value(loop.start)) / loop.step;
      // A loop the index does not use binds every item in each of its iterations: first in its first.
      int64_t then = 0;
      for (const auto& [digit_loop, coeff, trip] : b.digits)
        if (digit_loop == l) then = g / coeff % trip;
      if (then != now) return then < now;
    }
    return true;  // in this iteration, above the read or in its finished loops
  };
  std::function<void(size_t)> visit = [&](size_t depth) {
    if (depth == order.size()) {
      for (const Guard& g : guards)
        if (holds(value(g.l), g.cmp, value(g.r)) != g.holds) return;  // this iteration does not reach the read
      const int64_t g = value(flat);
      if (g < 0 || g >= items) refuse(fmt::format("at item {}, outside the list's {} items", g, items));
      for (size_t i = 0; i < bindings.size(); ++i)
        if (bound_before(bindings[i], shared[i], g)) return;
      std::vector<std::string> where;
      for (int l : order) where.push_back(fmt::format("{} = {}", k.loops.at(l).var, at_iteration.at(l)));
      std::string index;  // as Python indexes the list: `[0][3]`
      for (size_t d = levels, rest = static_cast<size_t>(g); d-- > 0;) {
        const auto n = static_cast<size_t>(t.shape[d].constant());
        index = fmt::format("[{}]", rest % n) + index;
        rest /= n;
      }
      refuse(fmt::format("where it is still None (item {} at {}: a later iteration binds it first)", index,
                         fmt::join(where, ", ")));
    }
    const Loop& loop = k.loops.at(order[depth]);
    const int64_t start = value(loop.start), stop = value(loop.stop);
    for (int64_t x = start; loop.step > 0 ? x < stop : x > stop; x += loop.step) {
      at_iteration[order[depth]] = x;
      visit(depth + 1);
    }
    at_iteration.erase(order[depth]);
  };
  visit(0);
}

}  // namespace loopnest::detail
