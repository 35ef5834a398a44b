// A loop over the items of a list of tiles lifted as a loop of the form over their block index
// (lift_item_loop.cpp: `for t in chunks[1:]:` carrying `row_max`): its header as written binds a
// tile, the form's binds an index, so it prints as written only while nothing in it changed, else
// wholly from the form (emit_block.cpp).
#pragma once

#include "loopnest/form.h"

namespace loopnest {

// A loop node lifted from `for NAME in ITEMS:` whose ITEMS is not a call (a list or a slice of
// one, not `range(...)` / `nl.affine_range(...)` / `enumerate(...)`), not a host-items loop.
bool item_loop(const Kernel& k, const Node& n);

}  // namespace loopnest
