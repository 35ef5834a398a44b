// Tidying a moved kernel's form before it is printed (tidy.cpp): what the move left that its
// author would not have written.
#pragma once

#include <set>
#include <string>

#include "loopnest/form.h"

namespace loopnest {

// The ids of the loops with one iteration (constant bounds).
std::set<int> single_trip_loops(const Kernel& k);
// Drops every loop of one iteration but those in `before` (the kernel's own, as the author wrote
// them): its body takes its place, its variable its start. A split loop's outer half (`qb_blk`
// around a dropped `qb_in`) takes the split loop's name back (`qb`) where it is free. A loop a list is appended to per
// iteration, or whose body cannot be printed over the start (a condition naming the variable), stays.
// Returns how many it dropped.
int drop_single_trip_loops(Kernel& k, const std::set<int>& before);
// Drops the loops a move emptied (every statement of their body moved out: `for t in range(4):
// pass` after the statement it held was hoisted). Returns how many it dropped.
int drop_empty_loops(Kernel& k);
// Drops the plain bindings (`row0 = qb * 64`) the kernel's function in the source `input` (the
// author's text: the kernel may have been lifted from a reprint of it) reads and the printed one no
// longer does (name_uses.h: a read is the name in code, not in a comment, a string or a keyword);
// never one the source already left unread. Returns how many it dropped.
int drop_dead_bindings(Kernel& k, const std::string& input);

}  // namespace loopnest
