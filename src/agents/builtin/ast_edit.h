// Small helpers for editing NKI kernel ASTs in place: parsing fragments, cloning expressions
// (print + re-parse, so a clone is exactly what the printer would emit), walking every nested
// block and expression, and counting or renaming uses of a name. The rewrite catalogue
// (transforms.h) is written in terms of these.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "nki/ast.h"
#include "nki/ast_walk.h"

namespace agents::builtin {

// A rewrite that cannot be applied (site not found, pattern no longer matches, parse failure).
struct RewriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::shared_ptr<nki::ModuleAst> parse_source(const std::string& text);  // throws RewriteError
nki::ExprPtr parse_expr(const std::string& text);                       // one expression
nki::StmtPtr parse_stmt(const std::string& text);                       // one (simple) statement
nki::ExprPtr clone(const nki::Expr& e);

// The kernel function: the def a run of the module's file calls for `entry` ("" = the file's
// default; loopnest::kernel_definition, the one rule eval, the lifter and the rewrites share).
// Throws RewriteError saying why there is none (the file does not load, several kernels compete).
nki::FunctionCode& find_kernel(nki::ModuleAst& module, const std::string& entry = "");

// The rewrites spell what they insert with the usual aliases, `nl.` and `nisa.`. A module that
// uses one without binding it (a kernel written with nl.* only, or importing nki.isa under another
// name) gets the import, in its own dialect (`neuronxcc.nki.isa`, or `nki.isa` for the newer API),
// after its last top-level import: the rewritten kernel would otherwise stop at a NameError.
// Returns whether it added one.
bool import_used_aliases(nki::ModuleAst& module);

// "nisa.activation" for a call of an attribute of a name; "" for anything else.
std::string call_name(const nki::Expr& e);
nki::CallExpr* as_call(nki::Expr* e, const std::string& name);  // null unless call_name(e) == name
// The argument `name` given by keyword, or positionally at `pos` (-1: keyword only). Null if absent.
nki::ExprPtr* argument(nki::CallExpr& call, const std::string& name, int pos = -1);
void set_keyword(nki::CallExpr& call, const std::string& name, nki::ExprPtr value);
bool remove_keyword(nki::CallExpr& call, const std::string& name);

// A numeric constant (also -c); nullopt-like via the bool.
bool constant_value(const nki::Expr& e, double& out);
bool is_name(const nki::Expr& e, const std::string& id);
std::string text(const nki::Expr& e);  // print_expr

// The single Name target of `x = value`, or "" for any other statement.
std::string assigned_name(const nki::Stmt& s);
nki::Expr* assigned_value(nki::Stmt& s);

// Calls `fn` on each direct child expression slot of `e` (lives with the AST, so that every node
// kind is covered in one place).
using nki::for_each_child;
using nki::for_each_expr;
using nki::walk;
// Calls `fn` on `b` and every block nested in it.
void for_each_block(nki::Block& b, const std::function<void(nki::Block&)>& fn);
nki::Block* child_block(nki::Stmt& s);  // the body of a for / while / if (then-branch), else null

std::set<std::string> names_in(nki::Expr& e);
std::set<std::string> names_in(nki::Stmt& s);
std::set<std::string> names_in(nki::Block& b);  // every name any statement of `b` mentions
// A name `b` does not mention: `base`, else base2, base3, ...
std::string fresh_name(nki::Block& b, const std::string& base);
bool intersects(const std::set<std::string>& a, const std::set<std::string>& b);
int count_uses(nki::Block& b, const std::string& id);  // every NameExpr with that id (targets too)
int count_uses(nki::Stmt& s, const std::string& id);
// Names bound anywhere in `b`: assignment and for targets (Name or tuple of Names), aug-assign.
std::set<std::string> bound_names(nki::Block& b);
// Names stored through a subscript (`t[i] = ...`) anywhere in `b`.
std::set<std::string> subscript_stored(nki::Block& b);
// Every name whose value `b` changes: bound_names and subscript_stored (which counts destination-
// first writes, `nisa.dma_copy(dst=buf, ...)`): what a move must not carry a read of across `b`.
std::set<std::string> written_names(nki::Block& b);
void rename(nki::Stmt& s, const std::string& from, const std::string& to);
// Replaces every NameExpr `id` in `s` with a clone of `with`.
void substitute(nki::Stmt& s, const std::string& id, const nki::Expr& with);

}  // namespace agents::builtin
