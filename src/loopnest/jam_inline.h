// jam_rows' copies of an Inline node (a comprehension of tiles, a helper call, an unrolled host
// loop) as a whole: see jam_inline.cpp.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "loopnest/form.h"

namespace loopnest {

// Whether jam_rows may print an Inline node of the row loop once per row as the author's text with
// the row's tile names substituted: printed from its source, not naming the row's variable nor a
// name bound in the loop (`r0 = i * 128`, not printed per row), holding no loop of its own.
bool inline_copyable_whole(const Kernel& k, const Node& n, const std::string& row_var,
                           const std::set<std::string>& bound_in_loop);

// The names bound by the statements of a loop body outside its Inline nodes.
std::set<std::string> names_bound_in(const std::vector<Node>& body);

// The outermost Inline node of `body` that makes each tensor (result or declared tile) inside it.
void tensors_made_in_inlines(const std::vector<Node>& body, std::map<int, const Node*>& out);

// The name a per-row copy of tensor `t`, made inside Inline node `n`, gets for row j: a name the
// node's text binds or reads (`scores[0]` of `scores = [...]`) becomes the row's (`scores_0[0]`),
// one only the helper's body knows (`row_max`) stays (printed once per row, the helper's text
// binds it again in each copy).
std::string inline_copy_name(const Kernel& k, const Node& n, const std::string& name, int64_t j);

// The PSUM bytes per partition of the largest list of row tiles (`tensors`) one Inline node makes
// (`scores = [nl.matmul(...) for j in range(8)]`): a list is held whole until read, so F rows hold F
// such lists at once.
int64_t largest_psum_list_bytes(const Kernel& k, const std::set<int>& tensors, const std::map<int, const Node*>& made);

// The part of a tensor name the text spells (`scores` of `scores[0]`).
std::string text_name(const std::string& name);

// A comprehension lifted as the loop it means (lift_rolled.cpp: `scores = [... for j in range(n)]`,
// a loop whose origin is the statement binding or returning the list), printed back only as a
// comprehension: jam_rows copies it per row whole (its rows' lists side by side), never runs rows
// inside it.
bool rolled_comprehension(const Kernel& k, const Node& n);

// The comprehension of `x_t.append([... for k in range(K)])` (a name's append of one list
// comprehension: lift_appended_rows.cpp), else null.
const nki::ComprehensionExpr* appended_comprehension(const nki::Stmt* s);

// The PSUM bytes per partition of the largest list of row tiles (`tensors`) a rolled comprehension
// under `body` makes (the list's items together).
int64_t largest_rolled_psum_list_bytes(const Kernel& k, const std::set<int>& tensors, const std::vector<Node>& body);

}  // namespace loopnest
