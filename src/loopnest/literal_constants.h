// Names bound once to an integer size, the sizes an author writes as constants: at the module's top
// level (`COLS = 2048`) or among a kernel's own top-level statements (`TF = 1024`), no other statement
// of the module / the function binding them (literal_constants.cpp). The value is a literal or an
// expression of literals, such names bound before it and the hardware's `nl.tile_size` limits
// (`SEQ_TILE = 2 * nl.tile_size.gemm_moving_fmax`, `COLS = 7168 // 4`). free_size's sites on a
// written size (param_size.cpp) and the author's `nl.mgrid` names (grid_names.cpp) read them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nki/ast.h"

namespace loopnest {

struct LiteralBinding {
  std::string name;
  const nki::Expr* expr = nullptr;  // what the name is bound to
  int64_t value = 0;                // its value
};

// The integer value of a size expression: integer literals, names of `known`, `<nl>.tile_size.<limit>`,
// and + - * // % and unary minus over them; nullopt for anything else.
std::optional<int64_t> size_expression_value(const nki::Expr& e, const std::map<std::string, int64_t>& known);

std::vector<LiteralBinding> module_size_constants(const nki::ModuleAst& module);

// How many times each name is bound anywhere in a function body: assignment, augmented and
// annotated targets (inside tuples too), loop, `with` and `except` targets, nested definitions,
// walrus targets; a `global` / `nonlocal` name counts as bound twice (another scope writes it).
std::map<std::string, int> binding_counts(const nki::Block& body);

// The function's parameters count as bindings too. Given the module, a local bound to an entry of a
// module dict of sizes (`TILE = {"F": 1024}`; `F = TILE["F"]`) binds that entry's value.
std::vector<LiteralBinding> local_size_constants(const nki::FunctionCode& fn, const nki::ModuleAst* module = nullptr);

}  // namespace loopnest
