// The resolver: declare the names each scope binds, then resolve every reference (see resolver.h).
#include "nki/resolver.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/core.h>

#include "nki/ast_walk.h"
#include "nki/classes.h"

namespace nki {

namespace {

bool is_dunder(std::string_view name) {
  return name.size() >= 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__";
}

struct Scope {
  Scope* parent = nullptr;
  Scope* owner = this;  // the function (or module) scope whose frame holds this scope's slots
  bool is_module = false;
  bool is_class = false;  // a class body: invisible to the functions defined in it
  std::unordered_set<std::string> globals, nonlocals;  // `global` / `nonlocal` declarations
  CodeInfo* info = nullptr;
  std::unordered_map<std::string, uint32_t> names;      // name -> slot (or global index at module level)
  std::unordered_map<std::string, uint32_t> free_index;  // function scopes: name -> closure index
  std::vector<NameExpr*> local_refs;                     // to turn into Cell refs once cells are known
};

class Resolver {
 public:
  Resolver(ModuleAst& module, const BuiltinLookup& builtins) : module_(module), builtins_(builtins) {}

  void run() {
    Scope scope;
    scope.is_module = true;
    scope.info = &module_.info;
    postponed_annotations_ = has_future_annotations(module_.body);
    module_scope_ = &scope;
    declare(scope, "__name__");  // global 0: the module's name (load_module binds it)
    declare(scope, "__doc__");   // global 1: its docstring or None (a host harness's argparse description)
    collect_declarations(module_.body, scope);
    declare_block(module_.body, scope);
    resolve_block(module_.body, scope);
    finish_scope(scope);
  }

 private:
  // ---- declaration: names bound in a scope ----
  uint32_t declare(Scope& s, const std::string& name) {
    if (s.globals.count(name)) return declare(*module_scope_, name);
    if (s.nonlocals.count(name)) return 0;  // bound in an enclosing function (resolved as Free)
    auto it = s.names.find(name);
    if (it != s.names.end()) return it->second;
    uint32_t index;
    if (s.is_module && &s == s.owner) {
      index = uint32_t(module_.global_names.size());
      module_.global_names.push_back(name);
    } else {
      CodeInfo& info = *s.owner->info;
      index = info.num_slots++;
      info.slot_names.push_back(name);
    }
    s.names.emplace(name, index);
    return index;
  }

  void declare_target(const Expr& e, Scope& s) {
    switch (e.kind) {
      case ExprKind::Name: declare(s, static_cast<const NameExpr&>(e).id); break;
      case ExprKind::Starred: declare_target(*static_cast<const StarredExpr&>(e).value, s); break;
      case ExprKind::Tuple:
      case ExprKind::List:
        for (auto& elt : static_cast<const SequenceExpr&>(e).elts) declare_target(*elt, s);
        break;
      default: break;  // attributes and subscripts bind nothing
    }
  }

  void declare_block(const Block& block, Scope& s) {
    for (const auto& stmt : block) declare_stmt(*stmt, s);
  }

  // `name := value` anywhere in a statement's expressions binds in the function being declared
  // (comprehensions included; a lambda binds in its own scope).
  void declare_walrus(Expr* e, Scope& s) {
    if (!e || e->kind == ExprKind::Lambda) return;
    if (e->kind == ExprKind::NamedExpr) declare_target(*static_cast<NamedExpr&>(*e).target, s);
    for_each_child(*e, [&](ExprPtr& c) { declare_walrus(c.get(), s); });
  }

  void declare_stmt_walrus(Stmt& stmt, Scope& s) {
    switch (stmt.kind) {
      case StmtKind::Expr: declare_walrus(static_cast<ExprStmt&>(stmt).value.get(), s); break;
      case StmtKind::Assign: declare_walrus(static_cast<AssignStmt&>(stmt).value.get(), s); break;
      case StmtKind::AugAssign: declare_walrus(static_cast<AugAssignStmt&>(stmt).value.get(), s); break;
      case StmtKind::Return: declare_walrus(static_cast<ReturnStmt&>(stmt).value.get(), s); break;
      case StmtKind::If: declare_walrus(static_cast<IfStmt&>(stmt).test.get(), s); break;
      case StmtKind::For: declare_walrus(static_cast<ForStmt&>(stmt).iter.get(), s); break;
      case StmtKind::While: declare_walrus(static_cast<WhileStmt&>(stmt).test.get(), s); break;
      case StmtKind::Assert:
        declare_walrus(static_cast<AssertStmt&>(stmt).test.get(), s);
        declare_walrus(static_cast<AssertStmt&>(stmt).msg.get(), s);
        break;
      case StmtKind::With:
        for (auto& item : static_cast<WithStmt&>(stmt).items) declare_walrus(item.context.get(), s);
        break;
      case StmtKind::Raise: declare_walrus(static_cast<RaiseStmt&>(stmt).exc.get(), s); break;
      default: break;
    }
  }

  // `global`/`nonlocal` apply to the whole function body, wherever they are written.
  void collect_declarations(const Block& block, Scope& s) {
    for (const auto& stmt : block) {
      switch (stmt->kind) {
        case StmtKind::Global: {
          auto& g = static_cast<const GlobalStmt&>(*stmt);
          if (g.nonlocal && (s.is_module || !s.parent))
            throw NkiError(ErrorKind::Syntax, "nonlocal declaration not allowed at module level", loc_of(module_.file, g.span));
          for (auto& name : g.names) (g.nonlocal ? s.nonlocals : s.globals).insert(name);
          break;
        }
        case StmtKind::If:
          collect_declarations(static_cast<const IfStmt&>(*stmt).body, s);
          collect_declarations(static_cast<const IfStmt&>(*stmt).orelse, s);
          break;
        case StmtKind::For:
          collect_declarations(static_cast<const ForStmt&>(*stmt).body, s);
          collect_declarations(static_cast<const ForStmt&>(*stmt).orelse, s);
          break;
        case StmtKind::While:
          collect_declarations(static_cast<const WhileStmt&>(*stmt).body, s);
          collect_declarations(static_cast<const WhileStmt&>(*stmt).orelse, s);
          break;
        case StmtKind::With: collect_declarations(static_cast<const WithStmt&>(*stmt).body, s); break;
        case StmtKind::Try: {
          auto& t = static_cast<const TryStmt&>(*stmt);
          collect_declarations(t.body, s);
          for (auto& h : t.handlers) collect_declarations(h.body, s);
          collect_declarations(t.orelse, s);
          collect_declarations(t.finalbody, s);
          break;
        }
        default: break;
      }
    }
    if (s.is_module) s.globals.clear();  // `global x` at module level is a no-op
  }

  void declare_stmt(const Stmt& stmt, Scope& s) {
    declare_stmt_walrus(const_cast<Stmt&>(stmt), s);
    switch (stmt.kind) {
      case StmtKind::Assign:
        for (auto& t : static_cast<const AssignStmt&>(stmt).targets) declare_target(*t, s);
        break;
      case StmtKind::AnnAssign: declare_target(*static_cast<const AnnAssignStmt&>(stmt).target, s); break;
      case StmtKind::AugAssign: declare_target(*static_cast<const AugAssignStmt&>(stmt).target, s); break;
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(stmt);
        declare_target(*f.target, s);
        declare_block(f.body, s);
        declare_block(f.orelse, s);
        break;
      }
      case StmtKind::While:
        declare_block(static_cast<const WhileStmt&>(stmt).body, s);
        declare_block(static_cast<const WhileStmt&>(stmt).orelse, s);
        break;
      case StmtKind::With: {
        auto& w = static_cast<const WithStmt&>(stmt);
        for (auto& item : w.items)
          if (item.target) declare_target(*item.target, s);
        declare_block(w.body, s);
        break;
      }
      case StmtKind::Try: {
        auto& t = static_cast<const TryStmt&>(stmt);
        declare_block(t.body, s);
        for (auto& h : t.handlers) {
          if (h.target) declare_target(*h.target, s);
          declare_block(h.body, s);
        }
        declare_block(t.orelse, s);
        declare_block(t.finalbody, s);
        break;
      }
      case StmtKind::Delete:
        for (auto& t : static_cast<const DeleteStmt&>(stmt).targets) declare_target(*t, s);
        break;
      case StmtKind::ClassDef: declare(s, static_cast<const ClassDefStmt&>(stmt).target->id); break;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(stmt);
        declare_block(i.body, s);
        declare_block(i.orelse, s);
        break;
      }
      case StmtKind::FunctionDef: declare(s, static_cast<const FunctionDefStmt&>(stmt).target->id); break;
      case StmtKind::Import:
      case StmtKind::ImportFrom:
        for (auto& alias : static_cast<const ImportStmt&>(stmt).names) declare_target(*alias.target, s);
        break;
      default: break;
    }
  }

  // ---- resolution ----
  struct Found {
    Scope* where;  // the scope that declares the name
    Scope* owner;  // the scope whose frame (or global vector) holds it
    uint32_t index;
  };
  std::optional<Found> find(Scope& from, const std::string& name) {
    for (Scope* s = &from; s; s = s->parent) {
      if (s->is_class && s != from.owner) continue;  // methods do not see the class body's names
      auto it = s->names.find(name);
      if (it != s->names.end()) return Found{s, s->owner, it->second};
    }
    return std::nullopt;
  }

  static Scope* enclosing_function(Scope& s) {
    Scope* p = s.owner->parent;
    return p ? p->owner : nullptr;
  }

  // The closure index of `name` (owned by function scope `target`) in function scope `s`.
  uint32_t ensure_free(Scope& s, const std::string& name, Scope& target, uint32_t slot) {
    auto it = s.free_index.find(name);
    if (it != s.free_index.end()) return it->second;
    Scope* parent = enclosing_function(s);
    FreeVarSource source{true, slot};
    if (parent == &target) {
      mark_cell(target, slot);
    } else {
      source = {false, ensure_free(*parent, name, target, slot)};
    }
    uint32_t index = uint32_t(s.info->free_vars.size());
    s.info->free_vars.push_back(source);
    s.free_index.emplace(name, index);
    return index;
  }

  static void mark_cell(Scope& owner, uint32_t slot) {
    auto& cells = owner.info->cell_slots;
    if (std::find(cells.begin(), cells.end(), slot) == cells.end()) cells.push_back(slot);
  }

  void resolve_name(NameExpr& n, Scope& s, bool allow_protocol_method = false) {
    if (is_dunder(n.id) && !allow_protocol_method && n.id != "__name__" && n.id != "__doc__")
      throw NkiError(ErrorKind::Sandbox, fmt::format("'{}' is not available in kernels: dunder names are not allowed", n.id),
                     loc_of(module_.file, n.span));
    std::optional<Found> found;
    if (s.owner->globals.count(n.id)) {
      n.scope = NameScope::Global;
      n.index = declare(*module_scope_, n.id);
      return;
    }
    if (s.owner->nonlocals.count(n.id)) {
      if (s.owner->parent) found = find(*s.owner->parent, n.id);
      if (!found || found->where->is_module)
        throw NkiError(ErrorKind::Syntax, fmt::format("no binding for nonlocal '{}' found", n.id), loc_of(module_.file, n.span));
    } else {
      found = find(s, n.id);
    }
    if (found && found->where->is_module) {
      n.scope = NameScope::Global;
      n.index = found->index;
      return;
    }
    if (found && found->owner == s.owner) {
      n.scope = NameScope::Local;
      n.index = found->index;
      s.owner->local_refs.push_back(&n);
      return;
    }
    if (found) {
      n.scope = NameScope::Free;
      n.index = ensure_free(*s.owner, n.id, *found->owner, found->index);
      return;
    }
    if (auto b = builtins_(n.id)) {
      n.scope = NameScope::Builtin;
      n.index = *b;
      return;
    }
    n.scope = NameScope::Undefined;
  }

  void resolve_block(Block& block, Scope& s) {
    for (auto& stmt : block) resolve_stmt(*stmt, s);
  }

  void resolve_exprs(std::vector<ExprPtr>& exprs, Scope& s) {
    for (auto& e : exprs) resolve_expr(e.get(), s);
  }

  void resolve_stmt(Stmt& stmt, Scope& s) {
    uint32_t before = node_count_;
    switch (stmt.kind) {
      case StmtKind::Expr: resolve_expr(static_cast<ExprStmt&>(stmt).value.get(), s); break;
      case StmtKind::Assign: {
        auto& a = static_cast<AssignStmt&>(stmt);
        resolve_expr(a.value.get(), s);
        resolve_exprs(a.targets, s);
        // `t: nt.tensor[128, F] = ...`: the interpreter checks the value's shape against it.
        if (a.annotation) resolve_expr(a.annotation.get(), s);
        break;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<AugAssignStmt&>(stmt);
        resolve_expr(a.value.get(), s);
        resolve_expr(a.target.get(), s);
        break;
      }
      case StmtKind::Return: resolve_expr(static_cast<ReturnStmt&>(stmt).value.get(), s); break;
      case StmtKind::Assert: {
        auto& a = static_cast<AssertStmt&>(stmt);
        resolve_expr(a.test.get(), s);
        resolve_expr(a.msg.get(), s);
        break;
      }
      case StmtKind::If: {
        auto& i = static_cast<IfStmt&>(stmt);
        resolve_expr(i.test.get(), s);
        stmt.cost = 1 + node_count_ - before;
        resolve_block(i.body, s);
        resolve_block(i.orelse, s);
        return;
      }
      case StmtKind::For: {
        auto& f = static_cast<ForStmt&>(stmt);
        resolve_expr(f.iter.get(), s);
        resolve_expr(f.target.get(), s);
        stmt.cost = 1 + node_count_ - before;
        resolve_block(f.body, s);
        resolve_block(f.orelse, s);
        return;
      }
      case StmtKind::While: {
        auto& w = static_cast<WhileStmt&>(stmt);
        resolve_expr(w.test.get(), s);
        stmt.cost = 1 + node_count_ - before;
        resolve_block(w.body, s);
        resolve_block(w.orelse, s);
        return;
      }
      case StmtKind::AnnAssign: resolve_expr(static_cast<AnnAssignStmt&>(stmt).target.get(), s); break;
      case StmtKind::With: {
        auto& w = static_cast<WithStmt&>(stmt);
        for (auto& item : w.items) {
          resolve_expr(item.context.get(), s);
          resolve_expr(item.target.get(), s);
        }
        stmt.cost = 1 + node_count_ - before;
        resolve_block(w.body, s);
        return;
      }
      case StmtKind::Raise: {
        auto& r = static_cast<RaiseStmt&>(stmt);
        resolve_expr(r.exc.get(), s);
        resolve_expr(r.cause.get(), s);
        break;
      }
      case StmtKind::Try: {
        auto& t = static_cast<TryStmt&>(stmt);
        stmt.cost = 1;
        resolve_block(t.body, s);
        for (auto& h : t.handlers) {
          resolve_expr(h.type.get(), s);
          resolve_expr(h.target.get(), s);
          resolve_block(h.body, s);
        }
        resolve_block(t.orelse, s);
        resolve_block(t.finalbody, s);
        return;
      }
      case StmtKind::Delete: resolve_exprs(static_cast<DeleteStmt&>(stmt).targets, s); break;
      case StmtKind::ClassDef: {
        auto& c = static_cast<ClassDefStmt&>(stmt);
        resolve_exprs(c.decorators, s);
        resolve_exprs(c.bases, s);
        resolve_function(*c.code, s);
        resolve_expr(c.target, s);
        break;
      }
      case StmtKind::FunctionDef: {
        auto& d = static_cast<FunctionDefStmt&>(stmt);
        resolve_exprs(d.decorators, s);
        d.evaluates_annotations = !postponed_annotations_;
        if (d.evaluates_annotations) {
          for (auto& p : d.code->params) resolve_expr(p.annotation.get(), s);
          resolve_expr(d.returns.get(), s);
        }
        resolve_function(*d.code, s);
        // A class body may define the protocol methods (__init__, __repr__, ...).
        if (s.is_class && is_protocol_method(d.target->id)) resolve_name(*d.target, s, true);
        else resolve_expr(d.target, s);
        break;
      }
      case StmtKind::Import:
      case StmtKind::ImportFrom:
        for (auto& alias : static_cast<ImportStmt&>(stmt).names) {
          if (is_dunder(alias.name))
            throw NkiError(ErrorKind::Sandbox, fmt::format("'{}' is not available in kernels: dunder names are not allowed", alias.name),
                           loc_of(module_.file, alias.span));
          resolve_expr(alias.target.get(), s);
        }
        break;
      default: break;
    }
    stmt.cost = 1 + node_count_ - before;
  }

  // Defaults and annotations belong to the enclosing scope (a def's annotations are resolved
  // with its statement); the body gets a new function scope.
  void resolve_function(FunctionCode& code, Scope& enclosing) {
    for (auto& p : code.params) resolve_expr(p.default_value.get(), enclosing);
    uint32_t saved = node_count_;
    Scope fn;
    fn.parent = &enclosing;
    fn.info = &code.info;
    fn.is_class = code.class_body;
    for (auto& p : code.params) {
      if (is_dunder(p.name))
        throw NkiError(ErrorKind::Sandbox, fmt::format("'{}' is not available in kernels: dunder names are not allowed", p.name),
                       loc_of(module_.file, p.span));
      p.slot = declare(fn, p.name);
    }
    if (code.lambda_body) {
      declare_walrus(code.lambda_body.get(), fn);
      resolve_expr(code.lambda_body.get(), fn);
    } else {
      collect_declarations(code.body, fn);
      declare_block(code.body, fn);
      resolve_block(code.body, fn);
    }
    finish_scope(fn);
    node_count_ = saved;
  }

  void finish_scope(Scope& s) {
    for (NameExpr* n : s.local_refs) {
      auto& cells = s.info->cell_slots;
      if (std::find(cells.begin(), cells.end(), n->index) != cells.end()) n->scope = NameScope::Cell;
    }
  }

  void resolve_comprehension(ComprehensionExpr& c, Scope& s) {
    Scope comp;
    comp.parent = &s;
    comp.owner = s.owner;
    for (size_t i = 0; i < c.generators.size(); ++i) {
      Comprehension& gen = c.generators[i];
      resolve_expr(gen.iter.get(), i == 0 ? s : comp);  // the first iterable is evaluated outside
      declare_target(*gen.target, comp);
      resolve_expr(gen.target.get(), comp);
      resolve_exprs(gen.ifs, comp);
    }
    resolve_expr(c.elt.get(), comp);
    resolve_expr(c.value.get(), comp);
  }

  void resolve_expr(Expr* e, Scope& s) {
    if (!e) return;
    ++node_count_;
    switch (e->kind) {
      case ExprKind::Name: resolve_name(static_cast<NameExpr&>(*e), s); break;
      case ExprKind::Constant: break;
      case ExprKind::FString:
        for (auto& part : static_cast<FStringExpr&>(*e).parts) resolve_expr(part.expr.get(), s);
        break;
      case ExprKind::BinOp: {
        auto& b = static_cast<BinOpExpr&>(*e);
        resolve_expr(b.left.get(), s);
        resolve_expr(b.right.get(), s);
        break;
      }
      case ExprKind::UnaryOp: resolve_expr(static_cast<UnaryOpExpr&>(*e).operand.get(), s); break;
      case ExprKind::BoolOp: resolve_exprs(static_cast<BoolOpExpr&>(*e).values, s); break;
      case ExprKind::Compare: {
        auto& c = static_cast<CompareExpr&>(*e);
        resolve_expr(c.left.get(), s);
        resolve_exprs(c.comparators, s);
        break;
      }
      case ExprKind::Call: {
        auto& c = static_cast<CallExpr&>(*e);
        resolve_expr(c.func.get(), s);
        resolve_exprs(c.args, s);
        for (auto& k : c.keywords) {
          resolve_expr(k.value.get(), s);
          if (k.name.empty()) c.simple = false;
        }
        for (auto& a : c.args)
          if (a->kind == ExprKind::Starred) c.simple = false;
        break;
      }
      case ExprKind::Attribute: {
        auto& a = static_cast<AttributeExpr&>(*e);
        // Protocol methods of user classes (Base.__init__(self, ...)) are plain class attributes.
        if (is_dunder(a.attr) && !is_protocol_method(a.attr))
          throw NkiError(ErrorKind::Sandbox,
                         fmt::format("attribute '{}' is not available in kernels: dunder attributes are not allowed", a.attr),
                         loc_of(module_.file, a.attr_span));
        resolve_expr(a.value.get(), s);
        break;
      }
      case ExprKind::Subscript: {
        auto& sub = static_cast<SubscriptExpr&>(*e);
        resolve_expr(sub.value.get(), s);
        resolve_expr(sub.index.get(), s);
        break;
      }
      case ExprKind::Slice: {
        auto& sl = static_cast<SliceExpr&>(*e);
        resolve_expr(sl.lower.get(), s);
        resolve_expr(sl.upper.get(), s);
        resolve_expr(sl.step.get(), s);
        break;
      }
      case ExprKind::Tuple: case ExprKind::List: case ExprKind::Set:
        resolve_exprs(static_cast<SequenceExpr&>(*e).elts, s);
        break;
      case ExprKind::Dict: {
        auto& d = static_cast<DictExpr&>(*e);
        resolve_exprs(d.keys, s);
        resolve_exprs(d.values, s);
        break;
      }
      case ExprKind::ListComp: case ExprKind::SetComp: case ExprKind::DictComp: case ExprKind::GeneratorExp:
        resolve_comprehension(static_cast<ComprehensionExpr&>(*e), s);
        break;
      case ExprKind::IfExp: {
        auto& i = static_cast<IfExpExpr&>(*e);
        resolve_expr(i.test.get(), s);
        resolve_expr(i.body.get(), s);
        resolve_expr(i.orelse.get(), s);
        break;
      }
      case ExprKind::Lambda: resolve_function(*static_cast<LambdaExpr&>(*e).code, s); break;
      case ExprKind::Starred: resolve_expr(static_cast<StarredExpr&>(*e).value.get(), s); break;
      case ExprKind::NamedExpr: {
        auto& n = static_cast<NamedExpr&>(*e);
        resolve_expr(n.value.get(), s);
        // The target binds in the function, past any comprehension scope.
        resolve_expr(n.target.get(), *s.owner);
        break;
      }
    }
  }

  ModuleAst& module_;
  const BuiltinLookup& builtins_;
  bool postponed_annotations_ = false;  // `from __future__ import annotations` (PEP 563)

  // A future statement may only follow the docstring and other future statements.
  static bool has_future_annotations(const Block& body) {
    for (const auto& s : body) {
      if (s->kind == StmtKind::ImportFrom) {
        auto& imp = static_cast<const ImportStmt&>(*s);
        if (imp.module != "__future__") return false;
        for (const auto& alias : imp.names)
          if (alias.name == "annotations") return true;
        continue;
      }
      if (s->kind != StmtKind::Expr) return false;  // a docstring
    }
    return false;
  }
  Scope* module_scope_ = nullptr;
  uint32_t node_count_ = 0;
};

}  // namespace

void resolve_module(ModuleAst& module, const BuiltinLookup& builtins) { Resolver(module, builtins).run(); }

}  // namespace nki
