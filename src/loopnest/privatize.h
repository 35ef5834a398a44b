// Array privatization on the form, the analysis and mechanics shared by the moves that give each
// iteration of a loop L its own copy of an on-chip buffer reused by every iteration:
// expand_buffer (one copy per iteration side by side, a wider buffer) and private_ring (the buffer
// declared inside L, a hand-written ring's slot dim dropped, the allocator multi-buffering it).
// Both ask the same question: is no value of the buffer live into an iteration of L?
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

class Transform;
// privatize_buffer.cpp (declared here, beside its analysis, rather than in transform.h with the
// others: that header rebuilds the whole tree).
std::unique_ptr<Transform> make_privatize_buffer();

// One access of a buffer inside L, in program order.
struct Touch {
  const Op* op = nullptr;
  const Access* access = nullptr;
  const Operand* operand = nullptr;  // the read's operand (null for writes and destination reads)
  bool write = false;
  std::vector<int> loops;            // loops between L and the access, outermost first
  std::vector<const Node*> conds;    // If nodes between L and the access
  bool in_helper = false;            // in a helper's frozen body: printed as written, never rewritten
};

// Every access of storage `t` in `body` (program order), with the loops and conditions around it
// below L (`loops` and `conds` start empty); false when one lies in a frozen node or a helper's call.
// With `helpers`, the accesses of a helper's frozen body are collected too (marked in_helper): a
// move that only moves the buffer's declaration rewrites none of them (the call passes the name,
// or the closure looks it up when called), so it may allow them.
bool collect_touches(const Kernel& k, const std::vector<Node>& body, int t, std::vector<int>& loops,
                     std::vector<const Node*>& conds, std::vector<Touch>& out, bool helpers = false);

// Whether every read in `touches` (one iteration of L) reads what that iteration wrote before it
// (the coverage rules: privatize.cpp).
bool privatizable(const Kernel& k, const std::vector<Touch>& touches);

// A binding in loop node `loop` that the buffer's reads were written through (`start = 0.0 if blk
// == 0 else carry`; a view `pT = ring[s]`): once those reads print from the form, a binding nothing
// else prints is dead (and would name the old shape): it goes. Bindings still printed stay.
void drop_unread_bindings(Kernel& k, Node& loop, const std::set<std::string>& names);

// The author's text of each declared dim of `t` (`n_ct`, `nl.par_dim(P)`), from its declaration's
// shape operand; "" where it is not one line of the kernel's own file.
std::vector<std::string> authored_dims(const Kernel& k, const Operand& shape, const Tensor& t);

// Removes block dim `dim` (before the partition dim) of on-chip buffer `t` from its shape, its
// declaration and every access (each indexes it by one integer), redeclared from the form.
void drop_block_dim(Kernel& k, int t, int dim);

}  // namespace loopnest
