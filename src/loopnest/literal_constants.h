// Names bound once to a literal, the sizes an author writes as constants: at the module's top level
// (`COLS = 2048`) or among a kernel's own top-level statements (`TF = 1024`), no other statement of
// the module / the function binding them (literal_constants.cpp). free_size's sites on a written size
// (param_size.cpp) and the author's `nl.mgrid` names (grid_names.cpp) read them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nki/ast.h"

namespace loopnest {

using LiteralBinding = std::pair<std::string, const nki::Expr*>;  // the name, its literal

std::vector<LiteralBinding> module_size_constants(const nki::ModuleAst& module);

// How many times each name is bound anywhere in a function body: assignment, augmented and
// annotated targets (inside tuples too), loop, `with` and `except` targets, nested definitions,
// walrus targets; a `global` / `nonlocal` name counts as bound twice (another scope writes it).
std::map<std::string, int> binding_counts(const nki::Block& body);

// The function's parameters count as bindings too.
std::vector<LiteralBinding> local_size_constants(const nki::FunctionCode& fn);

}  // namespace loopnest
