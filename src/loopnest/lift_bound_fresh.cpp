// A list of fresh tiles (`carry = [nl.zeros((P, 1), ...) for _ in range(S)]`, one buffer with a
// block dim over its items: merge_fresh_tiles, Tensor::host_list) whose items a loop rebinds
// (`carry[s] = h[:, w - 1:w]` after `h = scan(..., initial=carry[s])`, inside `for s in range(S)`
// inside a loop over sequence chunks): the binding is a write of block s of that buffer, so the
// loops stay loops of the form, the carried value a dependence of the buffer from one chunk to the
// next. Python reads the zeros until the first binding of an item and the tile bound after it;
// the buffer, zeroed where it is declared and written by each binding, holds the same values.
// Before, the binding was Python's item assignment in a loop (list_item_assign), which made every
// enclosing loop lift as its unrolled copies (author42 mamba: 777 sites, one per copy).
// Refused (the old rule then applies): outside a loop, an item of another shape, dtype or memory
// than the list's, an index not within the list, a list whose items are not one buffer's blocks,
// a view of a tile made outside the innermost loop (Python's alias would see its later writes).
// Printed as written while unchanged; from the form as `carry[s] = <value>` (Tensor::bound_items:
// an item is rebound, never written into).
#include "loopnest/analysis.h"
#include "loopnest/lifter.h"

namespace loopnest::detail {

using namespace nki;
using K = AValue::K;

bool Lifter::bind_fresh_item(const AssignStmt& s, const SubscriptExpr& target, const AValue& v, std::vector<Op>& ops,
                             std::vector<Node>& out) {
  if (loop_stack.empty() || target.value->kind != ExprKind::Name || v.k != K::Tile || v.gather) return false;
  auto it = env.find(static_cast<const NameExpr&>(*target.value).id);
  if (it == env.end() || it->second.k != K::List || it->second.items.empty()) return false;
  const std::vector<AValue>& items = it->second.items;
  const int id = items[0].k == K::Tile ? items[0].access.tensor : -1;
  if (id < 0) return false;
  const Tensor& t = k.tensor(id);
  if (!t.host_list || t.list_loop >= 0 || t.shape.empty() || !t.shape[0].is_constant() ||
      t.shape[0].constant() != static_cast<int64_t>(items.size()))
    return false;
  // Every item still its own block (none rebound to another tile while tracing).
  for (size_t i = 0; i < items.size(); ++i) {
    const Access& a = items[i].access;
    if (items[i].k != K::Tile || a.tensor != id || a.dims.empty() || !(a.dims[0].start == IExpr(static_cast<int64_t>(i))) ||
        !a.dims[0].terms.empty())
      return false;
  }
  AValue index = eval(*target.index);
  if (index.k != K::Int) return false;
  auto r = index.i.bounds(ranges());
  if (!r || r->first < 0 || r->second >= t.shape[0].constant()) return false;
  const Tensor& src = k.tensor(v.access.tensor);
  std::vector<IExpr> item(t.shape.begin() + 1, t.shape.end());
  if (v.access.tile_shape() != item || src.dtype != t.dtype || src.memory != t.memory) return false;
  // A view bound as it is (`h[:, w - 1:w]`, no operation of the statement makes it) is Python's
  // alias of that tile: a copy holds the same values only while no later iteration writes the
  // tile again, so the tile must be made in the innermost loop's iteration (one per iteration).
  // (Not checked here: a write to it later in the same iteration; in_place, which would make one,
  // refuses it: in_place.cpp viewed().)
  Op* root = producer(ops, v, k);
  if (!(root && root->result >= 0) && src.scope_loop != loop_stack.back()) return false;
  Access dst;
  dst.tensor = id;
  dst.dims.push_back({index.i, {}});
  for (size_t d = 1; d < t.shape.size(); ++d) dst.dims.push_back({IExpr(0), {{static_cast<int>(d - 1), t.shape[d], 1}}});
  k.tensor(id).bound_items = true;
  write_value(ops, v, dst, *s.targets[0], s.value.get());
  out.push_back(ops_node(s, std::move(ops)));
  return true;
}

}  // namespace loopnest::detail
