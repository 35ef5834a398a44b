// Masks that hold everywhere: the constraints of an op's mask that some element of some iteration
// can fail (live_mask.cpp), applied by the lift to every op it makes and by printing to a form a
// move made, so that a printed kernel lifts again to the form printed.
#pragma once

#include <vector>

#include "loopnest/form.h"

namespace loopnest {

// The constraints of a mask that some element of some iteration can fail. One that holds at every
// element of the op's tiles in every iteration the loops around it run (`ch < C` where the channel
// tiles divide C, `j < M` where the column tiles do: an index-space author guards every edge) masks
// nothing (its predicate is all true): dropped, so the op is unmasked to the moves (most refuse a
// masked op) and prints without it once a move changed it. Interval bounds: a
// constraint is dropped only when its left side's whole range satisfies it; each axis reaches the
// largest extent any of the op's tiles has on it (a reduction's [P, 1] result beside its [P, F]
// input).
std::vector<Constraint> live_constraints(const std::vector<Constraint>& mask, const std::vector<std::vector<IExpr>>& tiles,
                                         const Ranges& ranges);

// `op`'s mask without its constraints that hold everywhere over `dst` (its destination's region,
// null when none) and its tile operands (an op left with none is unmasked). The lift calls it
// before `op.dst` is set, so the destination comes apart.
void drop_dead_constraints(Op& op, const Access* dst, const Ranges& ranges);

// The same for every op of `k` (a form a move made).
void drop_dead_mask_constraints(Kernel& k);

}  // namespace loopnest
