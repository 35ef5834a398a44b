// `x_t.append([nl.load_transpose2d(x[r, :, k, :]) for k in range(K)])` once per iteration of a loop
// over r from 0 by 1 (Lifter::append): the comprehension rolled as its loop inside the appending
// one (roll_comprehension, lift_rolled.cpp, its list named after the appended list), and the list
// tensor gets one more block dim, over the appending loop, as a nested comprehension's rows do
// (lift_nested_rolled.cpp): `x_t[r][k]` is block (r, k) of one tensor, `x_t[r]` (r a loop variable,
// handed to a helper indexing it by k) the list of row r's blocks (progression_list_item). The
// statement is that loop, printed back as written or as the append of a comprehension of its
// changed element (emit_rolled.cpp).
#include <fmt/core.h>

#include "loopnest/analysis.h"
#include "loopnest/lifter.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

std::vector<Op> Lifter::appended_rows(const CallExpr& c, const std::string& list, const AValue& row) {
  const int l = loop_stack.back();
  const Loop& loop = k.loops.at(l);
  const auto trip = loop.trip();
  if (row.k != K::List || row.items.empty() || row.items[0].k != K::Tile)
    fail(c.args[0]->span, "an appended comprehension of no tile");
  Tensor& t = k.tensor(row.items[0].access.tensor);
  // The row's list tensor, made in this iteration: one block dim over the comprehension's loop.
  if (!trip || t.list_loop < 0 || t.scope_loop != l || !t.outer_lists.empty() || t.list_name != list ||
      static_cast<int64_t>(row.items.size()) != t.shape[0].constant())
    fail(c.args[0]->span, "an appended comprehension whose list is not one list tensor per iteration");
  t.shape.insert(t.shape.begin(), IExpr(*trip));
  if (t.on_chip()) t.partition_dim += 1;
  t.outer_lists = {{list, l}};
  // The inner level has no name in the text (as a nested comprehension's rows have none): an access
  // printed through it alone fails the print's check.
  t.list_name = list + "_row";
  t.scope_loop = loop_stack.size() >= 2 ? loop_stack[loop_stack.size() - 2] : -1;
  // The list holds every row once the loop has run: row i's blocks (i, j), read by a loop variable
  // as a progression of rows (`x_t[r]`, progression_list_item) like a nested comprehension's.
  auto& rows = env.at(list).items;
  for (auto& r : block_rows(t, *trip, t.shape[1].constant())) rows.push_back(std::move(r));
  return {};
}

}  // namespace loopnest::detail
