// Generic traversal of the AST's expression slots, shared by the resolver and by code that
// rewrites kernels (src/agents).
#pragma once

#include <cstdint>
#include <functional>

#include "nki/ast.h"

namespace nki {

// Calls `fn` on each direct, non-null child expression slot of `e` (a lambda's body included).
void for_each_child(Expr& e, const std::function<void(ExprPtr&)>& fn);
// Calls `fn` on `e` and every expression nested in it (pre-order).
void walk(Expr& e, const std::function<void(Expr&)>& fn);
void walk(const Expr& e, const std::function<void(const Expr&)>& fn);  // read-only, the same order
// A lambda or a comprehension: an expression whose inside binds names of its own.
bool opens_scope(const Expr& e);
// Calls `fn` on `e` and, where it returns true, on the expressions nested in it (pre-order): a
// caller stops at a node whose inside is another scope (a lambda's parameters, a comprehension's).
void walk_pruned(const Expr& e, const std::function<bool(const Expr&)>& fn);
// Calls `fn` on every expression slot of a statement tree (recursively, pre-order; targets too).
void for_each_expr(Stmt& s, const std::function<void(ExprPtr&)>& fn);
void for_each_expr(Block& b, const std::function<void(ExprPtr&)>& fn);
// The last source line of a statement, its nested blocks (else, handlers, finally) included; of a
// block, its statements' last (0 for an empty block).
uint32_t last_line(const Stmt& s);
uint32_t last_line(const Block& b);

}  // namespace nki
