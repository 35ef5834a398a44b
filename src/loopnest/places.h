// One move at every copy of a statement (places.cpp). After jam_rows a loop's body holds F copies
// of a row's statements (`probs_0 = exp(...)`, `probs_1 = exp(...)`), and a move that rewrites one
// statement is offered once per copy: each site gains about 1/F of the move's value, and a search of
// a few rounds spends a round per copy. The sites of one move with the same parameters whose anchors
// are copies of one statement (same operation on the same operands up to the copies' own tiles and
// a constant row offset) are offered as one site, `places=N`, which applies the move at each copy in
// turn, each found again and its legality decided on the kernel the one before left.
#pragma once

#include <vector>

#include "loopnest/form.h"
#include "loopnest/transform.h"

namespace loopnest {

// Whether the nodes `a` and `b` of `k` (distinct) are copies of one statement or nest: the same
// operations, loops and branches, each operand the same tile or the corresponding tile of the copy
// (one to one, of the same shape, dtype and memory, named alike up to a trailing copy index `_0`,
// `_1`, ...), index starts equal up to a constant (the row `2*b + 1` against `2*b`), and their
// enclosing loops the same or loops of the same range.
bool copies_of_one_statement(const Kernel& k, int a, int b);

// `sites` (found by `t` on `k`) with every group of two or more sites that are the same move at
// copies of one statement replaced by one site (the first's anchor, `places=N`), when applying them
// one after the other on a copy of `k` succeeds; the others are left as found. A move between
// engines (Transform::balances_engines) keeps the first copy's own site beside it.
void gather_places(const Kernel& k, const Transform& t, std::vector<Site>& sites);

// Applies a site gather_places made (`places=N` and the move's parameters) to `k`: the group is
// found again, and each of its sites applied in turn. False when `k` has no such group.
bool apply_at_places(Kernel& k, const Transform& t, const Site& site);

}  // namespace loopnest
