// Whether two nodes of a block may swap: dependences between statements (and whole loop nests) on
// the form, for the transformations that move statements (forward_scratch, feed_pe_first).
#pragma once

#include <set>

#include "loopnest/analysis.h"
#include "loopnest/form.h"

namespace loopnest {

// Whether the nodes `x` and `y` depend on each other through a tensor other than `ignore`: one
// writes elements the other reads or writes, for some values of the loop variables (the interval
// test of analysis.h: block slots `buf[0, ...]` and `buf[1, ...]` of one buffer are apart).
// Declarations write nothing. The set form ignores every tensor it holds (two scratch tensors
// stored by one nest and loaded by another, forward_scratch).
bool depend(const Kernel& k, const Node& x, const Node& y, int ignore = -1);
bool depend(const Kernel& k, const Node& x, const Node& y, const std::set<int>& ignore);

// Whether `to` reads elements `from` writes (a flow dependence, `from` first in program order).
bool flows(const Kernel& k, const Node& from, const Node& to);

// Two nodes may swap when neither depends on the other. Statements, loops, name bindings of index
// arithmetic (`m = i * 4 + j`: the form holds their values, and the printed kernel is lifted again
// to check every name still denotes what it did) and end-of-loop strings move; a return, an assert
// or a helper call does not.
bool commute(const Kernel& k, const Node& x, const Node& y);

}  // namespace loopnest
