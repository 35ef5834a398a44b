// Moves inside a helper's body, printed in that body (helper_bodies.cpp). A kernel that writes its
// tile math in a helper (a module function, a closure, a lambda) called from its loops lifts each
// call as an Inline node whose nodes are frozen: printed only as the call. open_helpers inlines
// them (`helpers=open`), which prints the helper's code into the kernel at every call and fails
// where the caller's text cannot hold it (a dict comprehension of tiles passed to the helper).
// Here the calls stay as written: their nodes are unfrozen in place, a move changes a statement of
// the helper at every call of it (the same move, found again at each call: legal there by the form),
// and the printer writes the changed statement once, in the helper's body (the `helpers=body` sites;
// emit_block.cpp prints the edits). A move that is not the same at every call is refused: the
// printed helper would change the calls the move left alone, which the printed kernel's lift shows.
#pragma once

#include <vector>

#include "loopnest/form.h"
#include "loopnest/transform.h"

namespace loopnest {

// Unfreezes the nodes of every helper call and host-sequence loop (Inline nodes open_helpers would
// open) in place: a comprehension of tiles stays frozen (its text is one statement for all its
// items), and so does a statement without a statement of its own in the text (a lambda's
// expression). Returns how many Inline nodes it unfroze.
int unfreeze_helper_bodies(Kernel& k);

// The ids of the nodes inside those Inline nodes (their bodies, at any depth).
std::vector<int> helper_body_nodes(const Kernel& k);

// Applies `site` (found by `t` on `k` unfrozen so) at its statement and at the same statement of
// every other call of the helper (the site of the same move and parameters, the same operation of
// that statement, found again on the kernel the application before left). Throws TransformError
// when a call offers no such site (the move is not legal there).
void apply_at_every_call(Kernel& k, const Transform& t, const Site& site);

}  // namespace loopnest
