// Prints an AST back as clean Python: 4-space indentation, parentheses only where precedence
// needs them, comments kept with their statements. parse(print(ast)) has the same dump as ast
// (tests/unit/nki/printer_test.cpp); the builtin rewrite agent edits ASTs and prints them.
#pragma once

#include <string>

#include "nki/ast.h"

namespace nki {

std::string print_module(const ModuleAst& module);
std::string print_expr(const Expr& e);
std::string print_block(const Block& block, int indent);

}  // namespace nki
