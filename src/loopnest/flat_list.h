// A flattened list of tiles (`probs_t = [nl.transpose(p[j][:, c * 128:(c + 1) * 128]) for j in
// range(J) for c in range(C)]`, lift_flat_rolled.cpp): one list tensor with a block dim per loop of
// the nest, as a list of lists has (Tensor::outer_lists), whose Python list is nevertheless one
// level, its blocks in row-major order (item f is block (f // C, f % C)). Marked by both levels
// bearing the list's one name (a list of lists names its levels apart: `rows` and `row`), so that
// an access prints `probs_t[C * j + c]` rather than `probs_t[j][c]`.
#pragma once

#include "loopnest/form.h"

namespace loopnest {

inline bool flat_list(const Tensor& t) {
  return t.list_loop >= 0 && !t.list_name.empty() && t.outer_lists.size() == 1 && t.outer_lists[0].first == t.list_name &&
         t.shape.size() >= 2 && t.shape[1].is_constant();
}

// The flat index of block (outer, inner) of a flat list of `inner_count` items per outer index:
// the `f` itself where the two are `f // C` and `f % C` (a loop reading the list in order).
inline IExpr flat_index(const IExpr& outer, const IExpr& inner, int64_t inner_count) {
  if (outer.terms().size() == 1 && inner.terms().size() == 1 && outer.constant() == 0 && inner.constant() == 0) {
    const auto& [ot, oc] = outer.terms().begin()->second;
    const auto& [it, ic] = inner.terms().begin()->second;
    if (oc == 1 && ic == 1 && ot.kind == TermKind::FloorDiv && it.kind == TermKind::Mod && ot.divisor == inner_count &&
        it.divisor == inner_count && ot.args.size() == 1 && it.args.size() == 1 && ot.args[0] == it.args[0])
      return ot.args[0];
  }
  return outer * inner_count + inner;
}

}  // namespace loopnest
