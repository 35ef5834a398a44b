// The AST of the Python subset. Every node keeps its source Span. Nodes are plain structs with a
// kind tag (switch-dispatched by the interpreter, printer and dumper); the resolver annotates
// names with storage slots before execution.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nki/token.h"
#include "nki/value.h"

namespace nki {

enum class ExprKind : uint8_t {
  Name, Constant, FString, BinOp, UnaryOp, BoolOp, Compare, Call, Attribute, Subscript, Slice,
  Tuple, List, Set, Dict, ListComp, SetComp, DictComp, GeneratorExp, IfExp, Lambda, Starred, NamedExpr,
};
enum class StmtKind : uint8_t {
  Expr, Assign, AugAssign, Return, If, For, While, Break, Continue, Pass, FunctionDef, Import,
  ImportFrom, Assert, AnnAssign, With, Raise, Try, ClassDef, Global, Delete,
};
// Comparison operators, including the identity and membership tests.
enum class CmpKind : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot };
const char* symbol(CmpKind k);

struct Expr {
  ExprKind kind;
  Span span;
  Expr(ExprKind k, Span s) : kind(k), span(s) {}
  virtual ~Expr() = default;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Stmt {
  StmtKind kind;
  Span span;
  std::vector<std::string> comments_before;  // own-line comments preceding the statement
  std::string comment_after;                 // a comment at the end of its first line
  uint32_t cost = 1;                         // interpreter steps charged per execution (resolver)
  Stmt(StmtKind k, Span s) : kind(k), span(s) {}
  virtual ~Stmt() = default;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

// ---- expressions ----
enum class NameScope : uint8_t { Unresolved, Local, Cell, Free, Global, Builtin, Undefined };

struct NameExpr : Expr {
  std::string id;
  NameScope scope = NameScope::Unresolved;
  uint32_t index = 0;  // slot, closure index, global index or builtin index
  NameExpr(Span s, std::string n) : Expr(ExprKind::Name, s), id(std::move(n)) {}
};

struct ConstantExpr : Expr {
  Value value;  // None, bool, int, float, str, Ellipsis
  ConstantExpr(Span s, Value v) : Expr(ExprKind::Constant, s), value(std::move(v)) {}
};

struct FStringPart {
  std::string literal;  // text before the replacement field (already unescaped)
  ExprPtr expr;         // null for a trailing literal
  char conversion = 0;  // 'r', 's' or 0
  std::string spec;     // format spec after ':'
  std::string expr_text;  // source of the expression, for the printer
};
struct FStringExpr : Expr {
  std::vector<FStringPart> parts;
  explicit FStringExpr(Span s) : Expr(ExprKind::FString, s) {}
};

struct BinOpExpr : Expr {
  BinOp op;
  ExprPtr left, right;
  BinOpExpr(Span s, BinOp o, ExprPtr l, ExprPtr r) : Expr(ExprKind::BinOp, s), op(o), left(std::move(l)), right(std::move(r)) {}
};

struct UnaryOpExpr : Expr {
  UnOp op;
  ExprPtr operand;
  UnaryOpExpr(Span s, UnOp o, ExprPtr e) : Expr(ExprKind::UnaryOp, s), op(o), operand(std::move(e)) {}
};

struct BoolOpExpr : Expr {
  bool is_and;
  std::vector<ExprPtr> values;
  BoolOpExpr(Span s, bool a) : Expr(ExprKind::BoolOp, s), is_and(a) {}
};

struct CompareExpr : Expr {
  ExprPtr left;
  std::vector<CmpKind> ops;
  std::vector<ExprPtr> comparators;
  explicit CompareExpr(Span s) : Expr(ExprKind::Compare, s) {}
};

struct Keyword {
  std::string name;  // empty for **mapping
  ExprPtr value;
  Span span;
};
struct CallExpr : Expr {
  ExprPtr func;
  std::vector<ExprPtr> args;  // StarredExpr for *iterable
  std::vector<Keyword> keywords;
  bool simple = true;  // no *args / **kwargs (resolver sets false otherwise)
  explicit CallExpr(Span s) : Expr(ExprKind::Call, s) {}
};

struct AttributeExpr : Expr {
  ExprPtr value;
  std::string attr;
  Span attr_span;
  // Inline cache for module attributes (nl.load): the module last seen and its attribute value.
  mutable ObjectPtr cache_owner;
  mutable Value cache_value;
  AttributeExpr(Span s, ExprPtr v, std::string a, Span as)
      : Expr(ExprKind::Attribute, s), value(std::move(v)), attr(std::move(a)), attr_span(as) {}
};

struct SubscriptExpr : Expr {
  ExprPtr value, index;  // index: a TupleExpr for a[i, j]
  SubscriptExpr(Span s, ExprPtr v, ExprPtr i) : Expr(ExprKind::Subscript, s), value(std::move(v)), index(std::move(i)) {}
};

struct SliceExpr : Expr {
  ExprPtr lower, upper, step;  // each may be null
  explicit SliceExpr(Span s) : Expr(ExprKind::Slice, s) {}
};

// Tuple, List and Set displays.
struct SequenceExpr : Expr {
  std::vector<ExprPtr> elts;
  bool parenthesized = false;  // a tuple written with parentheses (printer keeps them)
  // A tuple display of literals (`(1, None)`, the `:, None` of `x[:, None]`) is built once and
  // shared, as CPython folds it into a code constant (tuples and slices are immutable).
  mutable int8_t constant_state = 0;  // 0: not yet checked, 1: constant, -1: not
  mutable Value constant_value;
  SequenceExpr(ExprKind k, Span s) : Expr(k, s) {}
};

struct DictExpr : Expr {
  std::vector<ExprPtr> keys;  // null key: **mapping
  std::vector<ExprPtr> values;
  explicit DictExpr(Span s) : Expr(ExprKind::Dict, s) {}
};

struct Comprehension {
  ExprPtr target, iter;
  std::vector<ExprPtr> ifs;
};
// ListComp, SetComp, GeneratorExp (elt) and DictComp (key = elt, value).
struct ComprehensionExpr : Expr {
  ExprPtr elt, value;
  std::vector<Comprehension> generators;
  ComprehensionExpr(ExprKind k, Span s) : Expr(k, s) {}
};

struct IfExpExpr : Expr {
  ExprPtr test, body, orelse;
  IfExpExpr(Span s, ExprPtr t, ExprPtr b, ExprPtr o)
      : Expr(ExprKind::IfExp, s), test(std::move(t)), body(std::move(b)), orelse(std::move(o)) {}
};

struct StarredExpr : Expr {
  ExprPtr value;
  StarredExpr(Span s, ExprPtr v) : Expr(ExprKind::Starred, s), value(std::move(v)) {}
};

// `name := value`: binds the name (in the enclosing function, also from a comprehension) and
// evaluates to the value.
struct NamedExpr : Expr {
  ExprPtr target;  // a NameExpr
  ExprPtr value;
  NamedExpr(Span s, ExprPtr t, ExprPtr v) : Expr(ExprKind::NamedExpr, s), target(std::move(t)), value(std::move(v)) {}
};

// ---- functions (def and lambda) ----
enum class ParamKind : uint8_t { Positional, VarArgs, KeywordOnly, VarKwargs };
struct Parameter {
  std::string name;
  ParamKind kind = ParamKind::Positional;
  bool positional_only = false;  // before a `/` of the parameter list: never passed by keyword
  ExprPtr default_value, annotation;
  Span span;
  uint32_t slot = 0;  // resolver
};

// Where a function's free variable comes from when the function object is created.
struct FreeVarSource {
  bool from_cell_slot;  // true: a cell in the enclosing frame's slots; false: the enclosing closure
  uint32_t index;
};

// What the resolver computes for a function body (or a module body).
struct CodeInfo {
  uint32_t num_slots = 0;
  std::vector<uint32_t> cell_slots;  // slots holding CellObj (captured by inner functions)
  std::vector<FreeVarSource> free_vars;
  std::vector<std::string> slot_names;
};

struct FunctionCode {
  std::string name;  // "<lambda>" for lambdas
  std::vector<Parameter> params;
  Block body;        // def
  ExprPtr lambda_body;  // lambda
  bool class_body = false;  // a class body: its names are not visible to the functions it defines
  CodeInfo info;
  Span span;
};

struct LambdaExpr : Expr {
  std::shared_ptr<FunctionCode> code;
  LambdaExpr(Span s, std::shared_ptr<FunctionCode> c) : Expr(ExprKind::Lambda, s), code(std::move(c)) {}
};

// ---- statements ----
struct ExprStmt : Stmt {
  ExprPtr value;
  ExprStmt(Span s, ExprPtr v) : Stmt(StmtKind::Expr, s), value(std::move(v)) {}
};

struct AssignStmt : Stmt {
  std::vector<ExprPtr> targets;  // a = b = value
  ExprPtr value;
  ExprPtr annotation;  // `target: annotation = value` (one target); evaluated only to check a tensor shape (interp_stmt.cpp), kept for printing
  explicit AssignStmt(Span s) : Stmt(StmtKind::Assign, s) {}
};

// `target: annotation` without a value: declares nothing at run time (annotations of local
// variables are not evaluated, as in Python); kept for printing.
struct AnnAssignStmt : Stmt {
  ExprPtr target, annotation;
  AnnAssignStmt(Span s, ExprPtr t, ExprPtr a) : Stmt(StmtKind::AnnAssign, s), target(std::move(t)), annotation(std::move(a)) {}
};

struct AugAssignStmt : Stmt {
  ExprPtr target;
  BinOp op;
  ExprPtr value;
  AugAssignStmt(Span s, ExprPtr t, BinOp o, ExprPtr v)
      : Stmt(StmtKind::AugAssign, s), target(std::move(t)), op(o), value(std::move(v)) {}
};

struct ReturnStmt : Stmt {
  ExprPtr value;  // may be null
  ReturnStmt(Span s, ExprPtr v) : Stmt(StmtKind::Return, s), value(std::move(v)) {}
};

struct IfStmt : Stmt {
  ExprPtr test;
  Block body, orelse;
  bool is_elif = false;  // this If is the `elif` of its parent (printer)
  explicit IfStmt(Span s) : Stmt(StmtKind::If, s) {}
};

struct ForStmt : Stmt {
  ExprPtr target, iter;
  Block body;
  Block orelse;  // `for ... else`: runs when the loop ends without break
  explicit ForStmt(Span s) : Stmt(StmtKind::For, s) {}
};

struct WhileStmt : Stmt {
  ExprPtr test;
  Block body;
  Block orelse;  // `while ... else`
  explicit WhileStmt(Span s) : Stmt(StmtKind::While, s) {}
};

// `with a as x, b:` -- context managers (the nki.compiler directives, user classes).
struct WithItem {
  ExprPtr context;
  ExprPtr target;  // may be null
};
struct WithStmt : Stmt {
  std::vector<WithItem> items;
  Block body;
  explicit WithStmt(Span s) : Stmt(StmtKind::With, s) {}
};

// `raise [exc [from cause]]`.
struct RaiseStmt : Stmt {
  ExprPtr exc, cause;
  explicit RaiseStmt(Span s) : Stmt(StmtKind::Raise, s) {}
};

struct ExceptHandler {
  ExprPtr type;    // null: bare `except:`
  ExprPtr target;  // NameExpr of `as name`, or null
  Block body;
  Span span;
};
struct TryStmt : Stmt {
  Block body;
  std::vector<ExceptHandler> handlers;
  Block orelse, finalbody;
  explicit TryStmt(Span s) : Stmt(StmtKind::Try, s) {}
};

// `global a, b` / `nonlocal a, b`: resolved at load time, nothing to run.
struct GlobalStmt : Stmt {
  std::vector<std::string> names;
  bool nonlocal = false;
  explicit GlobalStmt(Span s) : Stmt(StmtKind::Global, s) {}
};

// `del a, b[i]`.
struct DeleteStmt : Stmt {
  std::vector<ExprPtr> targets;
  explicit DeleteStmt(Span s) : Stmt(StmtKind::Delete, s) {}
};

// Break, Continue, Pass.
struct SimpleStmt : Stmt {
  SimpleStmt(StmtKind k, Span s) : Stmt(k, s) {}
};

struct FunctionDefStmt : Stmt {
  std::vector<ExprPtr> decorators;
  std::shared_ptr<FunctionCode> code;
  ExprPtr returns;  // the return annotation
  // Parameter and return annotations run when the def runs, as in Python (a name they use must
  // exist), unless the module starts with `from __future__ import annotations` (resolver).
  bool evaluates_annotations = true;
  NameExpr* target = nullptr;  // the name the function is bound to (owned by `target_owner`)
  ExprPtr target_owner;
  explicit FunctionDefStmt(Span s) : Stmt(StmtKind::FunctionDef, s) {}
};

// `class Name(bases): body`. The body runs once, in its own namespace, when the statement runs;
// its names become the class attributes. `code` holds the body as a function body (resolver).
struct ClassDefStmt : Stmt {
  std::vector<ExprPtr> decorators;
  std::vector<ExprPtr> bases;
  std::shared_ptr<FunctionCode> code;  // name = class name, no parameters
  NameExpr* target = nullptr;
  ExprPtr target_owner;
  explicit ClassDefStmt(Span s) : Stmt(StmtKind::ClassDef, s) {}
};

struct ImportAlias {
  std::string name;    // dotted module name, or the imported attribute for `from`
  std::string asname;  // empty when absent
  Span span;
  ExprPtr target;      // NameExpr the import binds
};
struct ImportStmt : Stmt {
  std::string module;  // ImportFrom only
  std::vector<ImportAlias> names;
  ImportStmt(StmtKind k, Span s) : Stmt(k, s) {}
};

struct AssertStmt : Stmt {
  ExprPtr test, msg;
  explicit AssertStmt(Span s) : Stmt(StmtKind::Assert, s) {}
};

struct ModuleAst {
  std::shared_ptr<const SourceFile> file;
  Block body;
  std::vector<std::string> trailing_comments;  // comments after the last statement
  CodeInfo info;                               // module-frame slots (comprehension variables)
  std::vector<std::string> global_names;       // global index -> name (resolver)
};

// The location of a span in a module's file, for diagnostics.
SourceLoc loc_of(const std::shared_ptr<const SourceFile>& file, const Span& span);

}  // namespace nki
