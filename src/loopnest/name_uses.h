// Where a module's code reads a Python name: its NameExpr nodes, so a decision about a name (is a
// binding still read, is a helper still called) is not fooled by the same word in a comment, a
// string, an attribute (`x.rows`) or a keyword argument (`value=v`).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "nki/ast.h"

namespace loopnest {

using NameReads = std::map<std::string, int>;  // name -> how many times the code reads it

// The names `s` (`b`) reads, nested functions, lambdas and comprehensions included; the plain names
// an assignment binds are not read (`row0 = qb * 64` reads `qb`, not `row0`).
NameReads names_read(const nki::Stmt& s);
NameReads names_read(const nki::Block& b);

// The module parsed from `text`; nullptr when it does not parse.
std::shared_ptr<nki::ModuleAst> parse_text(const std::string& path, const std::string& text);

// The module's top-level def named `name`; nullptr when it has none.
const nki::FunctionDefStmt* top_level_def(const nki::ModuleAst& module, const std::string& name);

}  // namespace loopnest
