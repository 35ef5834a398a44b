// The steps of forward_scratch (forward_scratch.cpp) that forward_stages (forward_stages.cpp) builds
// on: moving two loop nests of one block next to each other, renaming the clashing names of the
// second, splitting a store that computes its value, and forwarding a tile stored and loaded in
// one iteration.
#pragma once

#include <vector>

#include "loopnest/form.h"

namespace loopnest {

// Brings the loop nodes `a` and `b` of one block next to each other (a before b): each node between
// them moves above `a` when it commutes with it, else below `b`. False when one cannot move.
bool make_adjacent(Kernel& k, int a_id, int b_id);
// The tiles the nest `b` defines under a name `a` also defines get a fresh name (`x_t_2`).
void rename_clashes(Kernel& k, Node& a, Node& b);
// `nl.store(s[...], value=f(t))`: the stored value becomes a named statement of its own.
void split_computed_stores(Kernel& k, int s);
// Scratch `s` has one store and one load, in one iteration of the same loops: the loaded tile
// becomes the stored one; the store, the load and `s` go. False (k in any state) when not legal.
// With node ids: that store and that load of several (the caller paired them; `s` goes with its
// last access). `keep_store`: another load of the same store is forwarded after this one.
bool forward_tile(Kernel& k, int s, int store_node = -1, int load_node = -1, bool keep_store = false);

// forward_stages.cpp: the passes around scratch `s` (one store, one or more later loads, each in a
// nest whose outer loops walk the scratch as the store's do) fused down to the loops they share;
// each load then reads the stored tile of its iteration, kept on chip (with a block dim over the
// store's inner loop when the loads sit in loops of their own). False (k in any state) when a step
// is not legal.
bool forward_stage(Kernel& k, int s);
// forward_stage of every scratch tensor, again until none is left; the scratch tensors forwarded,
// in order.
std::vector<int> forward_all_stages(Kernel& k);

// Whether the adjacent loop nodes `a` and `b` (same range and kind) may be fused (fusion.cpp, the
// rule of fuse_nests: every dependence between the bodies stays within one iteration).
bool fusable_loops(Kernel& k, int a_id, int b_id);

}  // namespace loopnest
