#include "agents/builtin/ast_edit.h"

#include <algorithm>

#include <fmt/core.h>

#include "loopnest/lift.h"
#include "nki/ast_printer.h"
#include "nki/diagnostics.h"
#include "nki/parser.h"

namespace agents::builtin {

using namespace nki;

std::shared_ptr<ModuleAst> parse_source(const std::string& source) {
  auto file = std::make_shared<SourceFile>();
  file->path = "kernel.py";
  file->text = source;
  try {
    return parse_module(file);
  } catch (const std::exception& e) {
    throw RewriteError(fmt::format("the kernel does not parse: {}", e.what()));
  }
}

namespace {

AssignStmt* single_assign(ModuleAst& m) {
  if (m.body.size() != 1 || m.body[0]->kind != StmtKind::Assign) throw RewriteError("fragment is not one assignment");
  return static_cast<AssignStmt*>(m.body[0].get());
}

}  // namespace

ExprPtr parse_expr(const std::string& expr_text) {
  auto m = parse_source("__value = " + expr_text + "\n");
  return std::move(single_assign(*m)->value);
}

StmtPtr parse_stmt(const std::string& stmt_text) {
  auto m = parse_source(stmt_text + "\n");
  if (m->body.size() != 1) throw RewriteError("fragment is not one statement");
  return std::move(m->body[0]);
}

ExprPtr clone(const Expr& e) { return parse_expr(print_expr(e)); }

std::string text(const Expr& e) { return print_expr(e); }

// The run's choice (loopnest::kernel_definition, as the lifter reads it), so the AST rewrites edit
// the function that runs, also in a file with several kernels, `kernel = add_v2` or --entry.
FunctionCode& find_kernel(ModuleAst& module, const std::string& entry) {
  try {
    return const_cast<FunctionCode&>(loopnest::kernel_definition(module, entry));
  } catch (const loopnest::LiftError& e) {
    throw RewriteError(e.render());
  }
}

std::string call_name(const Expr& e) {
  if (e.kind != ExprKind::Call) return "";
  const auto& func = *static_cast<const CallExpr&>(e).func;
  if (func.kind != ExprKind::Attribute) return "";
  const auto& attr = static_cast<const AttributeExpr&>(func);
  if (attr.value->kind != ExprKind::Name) return "";
  return static_cast<const NameExpr&>(*attr.value).id + "." + attr.attr;
}

CallExpr* as_call(Expr* e, const std::string& name) {
  if (!e || call_name(*e) != name) return nullptr;
  return static_cast<CallExpr*>(e);
}

ExprPtr* argument(CallExpr& call, const std::string& name, int pos) {
  for (auto& k : call.keywords)
    if (k.name == name) return &k.value;
  if (pos >= 0 && static_cast<size_t>(pos) < call.args.size() && call.args[pos]->kind != ExprKind::Starred)
    return &call.args[pos];
  return nullptr;
}

void set_keyword(CallExpr& call, const std::string& name, ExprPtr value) {
  for (auto& k : call.keywords)
    if (k.name == name) {
      k.value = std::move(value);
      return;
    }
  Keyword k;
  k.name = name;
  k.value = std::move(value);
  call.keywords.push_back(std::move(k));
}

bool remove_keyword(CallExpr& call, const std::string& name) {
  for (auto it = call.keywords.begin(); it != call.keywords.end(); ++it)
    if (it->name == name) {
      call.keywords.erase(it);
      return true;
    }
  return false;
}

bool constant_value(const Expr& e, double& out) {
  if (e.kind == ExprKind::Constant) {
    const auto& v = static_cast<const ConstantExpr&>(e).value;
    if (!v.is_number()) return false;
    out = v.as_float();
    return true;
  }
  if (e.kind == ExprKind::UnaryOp) {
    const auto& u = static_cast<const UnaryOpExpr&>(e);
    if (u.op != UnOp::Neg || !constant_value(*u.operand, out)) return false;
    out = -out;
    return true;
  }
  return false;
}

bool is_name(const Expr& e, const std::string& id) {
  return e.kind == ExprKind::Name && static_cast<const NameExpr&>(e).id == id;
}

std::string assigned_name(const Stmt& s) {
  if (s.kind != StmtKind::Assign) return "";
  const auto& a = static_cast<const AssignStmt&>(s);
  if (a.targets.size() != 1 || a.targets[0]->kind != ExprKind::Name) return "";
  return static_cast<const NameExpr&>(*a.targets[0]).id;
}

Expr* assigned_value(Stmt& s) {
  if (s.kind != StmtKind::Assign) return nullptr;
  return static_cast<AssignStmt&>(s).value.get();
}

Block* child_block(Stmt& s) {
  switch (s.kind) {
    case StmtKind::For: return &static_cast<ForStmt&>(s).body;
    case StmtKind::While: return &static_cast<WhileStmt&>(s).body;
    case StmtKind::If: return &static_cast<IfStmt&>(s).body;
    default: return nullptr;
  }
}

void for_each_block(Block& b, const std::function<void(Block&)>& fn) {
  fn(b);
  for (auto& s : b) {
    if (Block* child = child_block(*s)) for_each_block(*child, fn);
    if (s->kind == StmtKind::If) for_each_block(static_cast<IfStmt&>(*s).orelse, fn);
  }
}

std::set<std::string> names_in(Expr& e) {
  std::set<std::string> out;
  walk(e, [&](Expr& x) {
    if (x.kind == ExprKind::Name) out.insert(static_cast<NameExpr&>(x).id);
  });
  return out;
}

std::set<std::string> names_in(Stmt& s) {
  std::set<std::string> out;
  for_each_expr(s, [&](ExprPtr& p) {
    if (p && p->kind == ExprKind::Name) out.insert(static_cast<NameExpr&>(*p).id);
  });
  return out;
}

std::set<std::string> names_in(Block& b) {
  std::set<std::string> out;
  for (auto& s : b) out.merge(names_in(*s));
  return out;
}

std::string fresh_name(Block& b, const std::string& base) {
  std::set<std::string> used = names_in(b);
  std::string name = base;
  for (int k = 2; used.count(name); ++k) name = base + std::to_string(k);
  return name;
}

bool intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return b.count(x) > 0; });
}

int count_uses(Stmt& s, const std::string& id) {
  int n = 0;
  for_each_expr(s, [&](ExprPtr& p) {
    if (p && is_name(*p, id)) ++n;
  });
  return n;
}

int count_uses(Block& b, const std::string& id) {
  int n = 0;
  for (auto& s : b) n += count_uses(*s, id);
  return n;
}

namespace {

void add_target_names(Expr& t, std::set<std::string>& out) {
  if (t.kind == ExprKind::Name) out.insert(static_cast<NameExpr&>(t).id);
  if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List)
    for (auto& e : static_cast<SequenceExpr&>(t).elts) add_target_names(*e, out);
}

}  // namespace

std::set<std::string> bound_names(Block& b) {
  std::set<std::string> out;
  for_each_block(b, [&](Block& block) {
    for (auto& s : block) {
      if (s->kind == StmtKind::Assign)
        for (auto& t : static_cast<AssignStmt&>(*s).targets) add_target_names(*t, out);
      if (s->kind == StmtKind::AugAssign) add_target_names(*static_cast<AugAssignStmt&>(*s).target, out);
      if (s->kind == StmtKind::For) add_target_names(*static_cast<ForStmt&>(*s).target, out);
    }
  });
  return out;
}

std::set<std::string> subscript_stored(Block& b) {
  std::set<std::string> out;
  auto base = [&](Expr& t) {
    Expr* e = &t;
    while (e->kind == ExprKind::Subscript) e = static_cast<SubscriptExpr*>(e)->value.get();
    if (e != &t && e->kind == ExprKind::Name) out.insert(static_cast<NameExpr*>(e)->id);
  };
  for_each_block(b, [&](Block& block) {
    for (auto& s : block) {
      if (s->kind == StmtKind::Assign)
        for (auto& t : static_cast<AssignStmt&>(*s).targets) base(*t);
      if (s->kind == StmtKind::AugAssign) base(*static_cast<AugAssignStmt&>(*s).target);
      // nl.store(dst[...], value=...) writes dst too, as does every destination-first call of the
      // newer API (`nisa.tensor_copy(dst=carry[...], src=...)`, `nisa.nc_matmul(res, a, b)`).
      if (s->kind == StmtKind::Expr && static_cast<ExprStmt&>(*s).value->kind == ExprKind::Call) {
        auto& call = static_cast<CallExpr&>(*static_cast<ExprStmt&>(*s).value);
        std::string callee = print_expr(*call.func);
        Expr* dst = nullptr;
        for (auto& k : call.keywords)
          if (k.name == "dst") dst = k.value.get();
        bool dst_first = callee == "nl.store" || callee.rfind("nisa.", 0) == 0 || callee.rfind("nki.isa.", 0) == 0;
        if (!dst && dst_first && !call.args.empty()) dst = call.args[0].get();
        if (dst) {
          base(*dst);
          if (dst->kind == ExprKind::Name) out.insert(static_cast<NameExpr&>(*dst).id);
        }
      }
    }
  });
  return out;
}

std::set<std::string> written_names(Block& b) {
  std::set<std::string> out = bound_names(b);
  out.merge(subscript_stored(b));
  return out;
}

void rename(Stmt& s, const std::string& from, const std::string& to) {
  for_each_expr(s, [&](ExprPtr& p) {
    if (p && is_name(*p, from)) static_cast<NameExpr&>(*p).id = to;
  });
}

void substitute(Stmt& s, const std::string& id, const Expr& with) {
  std::string replacement = print_expr(with);
  for_each_expr(s, [&](ExprPtr& p) {
    if (p && is_name(*p, id)) p = parse_expr(replacement);
  });
}

namespace {

// The names the module's imports bind, at its top level or inside its functions (a kernel may
// import inside its body), and whether any import is of the older neuronxcc package.
struct ImportedNames {
  std::set<std::string> names;
  bool neuronxcc = false;
};

void collect_imports(const Block& b, ImportedNames& out) {
  for (const auto& s : b) {
    if (s->kind == StmtKind::Import || s->kind == StmtKind::ImportFrom) {
      auto& im = static_cast<const ImportStmt&>(*s);
      if (im.module.rfind("neuronxcc", 0) == 0) out.neuronxcc = true;
      for (const auto& a : im.names) {
        if (a.name.rfind("neuronxcc", 0) == 0) out.neuronxcc = true;
        std::string bound = !a.asname.empty() ? a.asname
                            : s->kind == StmtKind::Import ? a.name.substr(0, a.name.find('.'))
                                                          : a.name;
        out.names.insert(bound);
      }
    }
    if (s->kind == StmtKind::FunctionDef) collect_imports(static_cast<const FunctionDefStmt&>(*s).code->body, out);
    if (s->kind == StmtKind::If) collect_imports(static_cast<const IfStmt&>(*s).orelse, out);
    if (const Block* inner = child_block(const_cast<Stmt&>(*s))) collect_imports(*inner, out);
  }
}

}  // namespace

bool import_used_aliases(ModuleAst& module) {
  ImportedNames imported;
  collect_imports(module.body, imported);
  std::set<std::string> used;  // the names whose attributes the module reads (`nisa` of nisa.x)
  std::function<void(Block&)> collect_used = [&](Block& b) {
    for (auto& s : b) {
      if (s->kind == StmtKind::FunctionDef) {
        collect_used(static_cast<FunctionDefStmt&>(*s).code->body);
        continue;
      }
      for_each_expr(*s, [&](ExprPtr& e) {
        if (e && e->kind == ExprKind::Attribute) {
          auto& a = static_cast<AttributeExpr&>(*e);
          if (a.value->kind == ExprKind::Name) used.insert(static_cast<NameExpr&>(*a.value).id);
        }
      });
      if (Block* inner = child_block(*s)) collect_used(*inner);  // defs nested in a loop or branch
    }
  };
  collect_used(module.body);
  const std::string package = imported.neuronxcc ? "neuronxcc.nki" : "nki";
  size_t at = 0;
  for (size_t i = 0; i < module.body.size(); ++i)
    if (module.body[i]->kind == StmtKind::Import || module.body[i]->kind == StmtKind::ImportFrom) at = i + 1;
  bool added = false;
  for (auto [alias, sub] : {std::pair{"nl", "language"}, {"nisa", "isa"}}) {
    if (!used.count(alias) || imported.names.count(alias)) continue;
    module.body.insert(module.body.begin() + static_cast<std::ptrdiff_t>(at++),
                       parse_stmt(fmt::format("import {}.{} as {}", package, sub, alias)));
    added = true;
  }
  return added;
}

}  // namespace agents::builtin
