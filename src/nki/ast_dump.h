// Deterministic, indented dump of the AST (one node per line, `@line:col` on every node) for
// golden files and `accelopt parse --emit ast`. Without locations it compares two ASTs modulo
// layout (the printer's round-trip tests).
#pragma once

#include <string>

#include "nki/ast.h"

namespace nki {

std::string dump_ast(const ModuleAst& module, bool with_locations = true);

}  // namespace nki
