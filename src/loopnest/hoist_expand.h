// The plans of hoist_expand (hoist_expand.cpp) for another move to build on: hoist_compute
// (hoist_compute.cpp) hoists the loads feeding an invariant instruction with them, then the
// instruction itself by the same expansion.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

struct ExpandPlan {
  int stmt = -1;                  // the statement's node id
  int outer = -1;                 // the loop node it leaves
  int tensor = -1;                // the tile it writes
  std::vector<int> used;          // loop ids it uses between `outer` and itself, outermost first
  std::vector<int> added;         // those that get a new dim of the tile
  std::vector<int> dropped;       // dims of the tile indexed by loops it leaves
  int64_t bytes = 0, live = 0, budget = 0;
  int64_t chunk = 0;              // > 0: used[0] is first cut into chunks of this many iterations
  int binding = -1;               // a binding heading used[0]'s body (`n = n_blk * C + n_in`), copied into the fill
};

// Every legal expansion of statement `s` (with `path`, the loops and conditions around it) out of
// an enclosing loop (the loop right around it too: a plain hoist): a load of an HBM tensor nothing
// writes, or (`compute`) a pure on-chip instruction (elementwise, activation, copy, broadcast, reduce) none of whose operands is written
// inside that loop. A load's plan whose buffer does not fit comes cut into chunks (chunk > 0) when
// that is legal and pays, or not at all; an instruction's plan comes whole, whatever its size (the
// caller judges the capacity on the kernel it makes).
std::vector<ExpandPlan> expand_plans(Kernel& k, Node& s, const std::vector<const Node*>& path, bool compute);
// The instructions hoist_compute moves (compute mode): elementwise, activation, copy, broadcast,
// reduce, with no accumulation, mask or index operand.
bool movable_compute(const Op& op);
// Applies a plan found on `k` as it is now.
void apply_expand(Kernel& k, const ExpandPlan& p);

// The statement node `id` with the loops and conditions around it (each_stmt's path); false when
// there is none.
bool locate_stmt(Kernel& k, int id, Node*& node, std::vector<const Node*>& path);
// The whole (unchunked) expansion of statement `id` out of the loop node `outer`, if legal.
std::optional<ExpandPlan> whole_expand_plan(Kernel& k, int id, int outer, bool compute);

// After several hoists out of one loop (hoist_fill.cpp): the nodes they put before it,
// block[from, to), declarations first, the fill loops fused into one where their ranges agree (each
// fill writes its buffer's block of this iteration and reads the blocks of the same iteration, so
// one loop computes the same); returns the fused fill's node id (-1: no fill loop).
int merge_fills(Kernel& k, std::vector<Node>& block, size_t from, size_t to);
// A load buffer of plan `p` only the fused fill `fill_id` touches (the block of its own iteration)
// becomes one tile of the fill's iteration again, as the author wrote it (the load's value when
// `was_value`, or a tile declared in the loop): only a buffer with one added dim and none dropped.
void private_tile(Kernel& k, const ExpandPlan& p, int fill_id, bool was_value);
// A tile plan `p` turned into a declared buffer although it gained no dim is the value it was again.
void value_again(Kernel& k, const ExpandPlan& p);
// The on-chip tile `tensor`, declared once (a statement of its own) and written whole once, is a
// value again: its writer returns it and the declaration goes (nothing when it is not so).
void value_again(Kernel& k, int tensor);

}  // namespace loopnest
