#include "loopnest/name_uses.h"

#include "nki/ast_walk.h"
#include "nki/parser.h"

namespace loopnest {

namespace {

using namespace nki;

void read_expr(const ExprPtr& e, NameReads& out) {
  if (!e) return;
  walk(static_cast<const Expr&>(*e), [&](const Expr& x) {
    if (x.kind == ExprKind::Name) ++out[static_cast<const NameExpr&>(x).id];
  });
}

void read_block(const Block& b, NameReads& out);

void read_code(const FunctionCode& code, NameReads& out) {
  for (auto& p : code.params) read_expr(p.default_value, out), read_expr(p.annotation, out);
  read_block(code.body, out);
}

void read_stmt(const Stmt& s, NameReads& out) {
  switch (s.kind) {
    case StmtKind::Expr: read_expr(static_cast<const ExprStmt&>(s).value, out); return;
    case StmtKind::Assign: {
      auto& a = static_cast<const AssignStmt&>(s);
      for (auto& t : a.targets)
        if (t && t->kind != ExprKind::Name) read_expr(t, out);  // `t[i] = v` reads `t`
      // `t: nt.tensor[P, F] = v`: the interpreter checks v's shape against the annotation, so P reads.
      read_expr(a.annotation, out), read_expr(a.value, out);
      return;
    }
    case StmtKind::AnnAssign: {
      auto& a = static_cast<const AnnAssignStmt&>(s);
      if (a.target && a.target->kind != ExprKind::Name) read_expr(a.target, out);
      read_expr(a.annotation, out);
      return;
    }
    case StmtKind::AugAssign: {
      auto& a = static_cast<const AugAssignStmt&>(s);
      read_expr(a.target, out), read_expr(a.value, out);
      return;
    }
    case StmtKind::Return: read_expr(static_cast<const ReturnStmt&>(s).value, out); return;
    case StmtKind::If: {
      auto& i = static_cast<const IfStmt&>(s);
      read_expr(i.test, out), read_block(i.body, out), read_block(i.orelse, out);
      return;
    }
    case StmtKind::For: {
      auto& f = static_cast<const ForStmt&>(s);
      read_expr(f.target, out), read_expr(f.iter, out), read_block(f.body, out), read_block(f.orelse, out);
      return;
    }
    case StmtKind::While: {
      auto& w = static_cast<const WhileStmt&>(s);
      read_expr(w.test, out), read_block(w.body, out), read_block(w.orelse, out);
      return;
    }
    case StmtKind::With: {
      auto& w = static_cast<const WithStmt&>(s);
      for (auto& item : w.items) read_expr(item.context, out), read_expr(item.target, out);
      read_block(w.body, out);
      return;
    }
    case StmtKind::Raise: {
      auto& r = static_cast<const RaiseStmt&>(s);
      read_expr(r.exc, out), read_expr(r.cause, out);
      return;
    }
    case StmtKind::Try: {
      auto& t = static_cast<const TryStmt&>(s);
      read_block(t.body, out);
      for (auto& h : t.handlers) read_expr(h.type, out), read_block(h.body, out);
      read_block(t.orelse, out), read_block(t.finalbody, out);
      return;
    }
    case StmtKind::FunctionDef: {
      auto& d = static_cast<const FunctionDefStmt&>(s);
      for (auto& e : d.decorators) read_expr(e, out);
      read_expr(d.returns, out);
      read_code(*d.code, out);
      return;
    }
    case StmtKind::ClassDef: {
      auto& c = static_cast<const ClassDefStmt&>(s);
      for (auto& e : c.decorators) read_expr(e, out);
      for (auto& e : c.bases) read_expr(e, out);
      read_code(*c.code, out);
      return;
    }
    case StmtKind::Assert: {
      auto& a = static_cast<const AssertStmt&>(s);
      read_expr(a.test, out), read_expr(a.msg, out);
      return;
    }
    case StmtKind::Delete:
      for (auto& t : static_cast<const DeleteStmt&>(s).targets) read_expr(t, out);
      return;
    case StmtKind::Break: case StmtKind::Continue: case StmtKind::Pass: case StmtKind::Import:
    case StmtKind::ImportFrom: case StmtKind::Global:
      return;
  }
}

void read_block(const Block& b, NameReads& out) {
  for (auto& s : b)
    if (s) read_stmt(*s, out);
}

}  // namespace

NameReads names_read(const Stmt& s) {
  NameReads out;
  read_stmt(s, out);
  return out;
}

NameReads names_read(const Block& b) {
  NameReads out;
  read_block(b, out);
  return out;
}

std::shared_ptr<ModuleAst> parse_text(const std::string& path, const std::string& text) {
  try {
    return parse_module(std::make_shared<SourceFile>(SourceFile{path, text}));
  } catch (const NkiError&) {
    return nullptr;
  }
}

const FunctionDefStmt* top_level_def(const ModuleAst& module, const std::string& name) {
  for (auto& s : module.body)
    if (s && s->kind == StmtKind::FunctionDef && static_cast<const FunctionDefStmt&>(*s).code->name == name)
      return static_cast<const FunctionDefStmt*>(s.get());
  return nullptr;
}

}  // namespace loopnest
