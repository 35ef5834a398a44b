// Name resolution: assigns every variable a storage slot before execution, so the interpreter
// never looks names up by string. Locals live in frame slots, variables captured by nested
// functions in cells, module-level names in the module's global vector, and builtins in the
// interpreter's builtin table. Also computes each statement's step cost and rejects dunder names.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "nki/ast.h"

namespace nki {

using BuiltinLookup = std::function<std::optional<uint32_t>(std::string_view)>;

// Throws NkiError (Sandbox for dunder names and attributes).
void resolve_module(ModuleAst& module, const BuiltinLookup& builtins);

}  // namespace nki
