// Generic traversal of the AST's expression slots, shared by the resolver and by code that
// rewrites kernels (src/agents).
#pragma once

#include <functional>

#include "nki/ast.h"

namespace nki {

// Calls `fn` on each direct, non-null child expression slot of `e` (a lambda's body included).
void for_each_child(Expr& e, const std::function<void(ExprPtr&)>& fn);

}  // namespace nki
