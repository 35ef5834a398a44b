#include "nki/ast_walk.h"

#include <algorithm>

namespace nki {

void for_each_child(Expr& e, const std::function<void(ExprPtr&)>& fn) {
  auto opt = [&](ExprPtr& p) {
    if (p) fn(p);
  };
  switch (e.kind) {
    case ExprKind::Name: case ExprKind::Constant: return;
    case ExprKind::FString:
      for (auto& part : static_cast<FStringExpr&>(e).parts) opt(part.expr);
      return;
    case ExprKind::BinOp: {
      auto& b = static_cast<BinOpExpr&>(e);
      fn(b.left), fn(b.right);
      return;
    }
    case ExprKind::UnaryOp: fn(static_cast<UnaryOpExpr&>(e).operand); return;
    case ExprKind::BoolOp:
      for (auto& v : static_cast<BoolOpExpr&>(e).values) fn(v);
      return;
    case ExprKind::Compare: {
      auto& c = static_cast<CompareExpr&>(e);
      fn(c.left);
      for (auto& v : c.comparators) fn(v);
      return;
    }
    case ExprKind::Call: {
      auto& c = static_cast<CallExpr&>(e);
      fn(c.func);
      for (auto& a : c.args) fn(a);
      for (auto& k : c.keywords) fn(k.value);
      return;
    }
    case ExprKind::Attribute: fn(static_cast<AttributeExpr&>(e).value); return;
    case ExprKind::Subscript: {
      auto& s = static_cast<SubscriptExpr&>(e);
      fn(s.value), fn(s.index);
      return;
    }
    case ExprKind::Slice: {
      auto& s = static_cast<SliceExpr&>(e);
      opt(s.lower), opt(s.upper), opt(s.step);
      return;
    }
    case ExprKind::Tuple: case ExprKind::List: case ExprKind::Set:
      for (auto& v : static_cast<SequenceExpr&>(e).elts) fn(v);
      return;
    case ExprKind::Dict: {
      auto& d = static_cast<DictExpr&>(e);
      for (auto& k : d.keys) opt(k);
      for (auto& v : d.values) fn(v);
      return;
    }
    case ExprKind::ListComp: case ExprKind::SetComp: case ExprKind::DictComp: case ExprKind::GeneratorExp: {
      auto& c = static_cast<ComprehensionExpr&>(e);
      opt(c.elt), opt(c.value);
      for (auto& g : c.generators) {
        fn(g.target), fn(g.iter);
        for (auto& i : g.ifs) fn(i);
      }
      return;
    }
    case ExprKind::IfExp: {
      auto& i = static_cast<IfExpExpr&>(e);
      fn(i.test), fn(i.body), fn(i.orelse);
      return;
    }
    case ExprKind::Lambda: opt(static_cast<LambdaExpr&>(e).code->lambda_body); return;
    case ExprKind::Starred: fn(static_cast<StarredExpr&>(e).value); return;
    case ExprKind::NamedExpr: {
      auto& n = static_cast<NamedExpr&>(e);
      fn(n.target), fn(n.value);
      return;
    }
  }
}

namespace {

void walk_expr(ExprPtr& p, const std::function<void(ExprPtr&)>& fn) {
  fn(p);
  if (p) for_each_child(*p, [&](ExprPtr& c) { walk_expr(c, fn); });
}

}  // namespace

void walk(Expr& e, const std::function<void(Expr&)>& fn) {
  fn(e);
  for_each_child(e, [&](ExprPtr& c) {
    if (c) walk(*c, fn);
  });
}

void walk(const Expr& e, const std::function<void(const Expr&)>& fn) {
  walk(const_cast<Expr&>(e), [&](Expr& x) { fn(x); });  // the walk itself changes nothing
}

bool opens_scope(const Expr& e) {
  return e.kind == ExprKind::Lambda || e.kind == ExprKind::ListComp || e.kind == ExprKind::SetComp ||
         e.kind == ExprKind::DictComp || e.kind == ExprKind::GeneratorExp;
}

void walk_pruned(const Expr& e, const std::function<bool(const Expr&)>& fn) {
  if (!fn(e)) return;
  for_each_child(const_cast<Expr&>(e), [&](ExprPtr& c) {  // the walk itself changes nothing
    if (c) walk_pruned(*c, fn);
  });
}

void for_each_expr(Stmt& s, const std::function<void(ExprPtr&)>& fn) {
  auto visit = [&](ExprPtr& p) {
    if (p) walk_expr(p, fn);
  };
  switch (s.kind) {
    case StmtKind::Expr: visit(static_cast<ExprStmt&>(s).value); return;
    case StmtKind::Assign: {
      auto& a = static_cast<AssignStmt&>(s);
      for (auto& t : a.targets) visit(t);
      visit(a.value);
      return;
    }
    case StmtKind::AugAssign: {
      auto& a = static_cast<AugAssignStmt&>(s);
      visit(a.target), visit(a.value);
      return;
    }
    case StmtKind::Return: visit(static_cast<ReturnStmt&>(s).value); return;
    case StmtKind::If: {
      auto& i = static_cast<IfStmt&>(s);
      visit(i.test);
      for_each_expr(i.body, fn);
      for_each_expr(i.orelse, fn);
      return;
    }
    case StmtKind::For: {
      auto& f = static_cast<ForStmt&>(s);
      visit(f.target), visit(f.iter);
      for_each_expr(f.body, fn);
      return;
    }
    case StmtKind::While: {
      auto& w = static_cast<WhileStmt&>(s);
      visit(w.test);
      for_each_expr(w.body, fn);
      return;
    }
    case StmtKind::Assert: {
      auto& a = static_cast<AssertStmt&>(s);
      visit(a.test), visit(a.msg);
      return;
    }
    default: return;  // imports, nested defs, pass/break/continue: nothing a rewrite touches
  }
}

void for_each_expr(Block& b, const std::function<void(ExprPtr&)>& fn) {
  for (auto& s : b) for_each_expr(*s, fn);
}

uint32_t last_line(const Stmt& s) {
  uint32_t last = s.span.end_line;
  auto deepest = [&](const Block& b) { last = std::max(last, last_line(b)); };
  switch (s.kind) {
    case StmtKind::If: deepest(static_cast<const IfStmt&>(s).body); deepest(static_cast<const IfStmt&>(s).orelse); break;
    case StmtKind::For: deepest(static_cast<const ForStmt&>(s).body); deepest(static_cast<const ForStmt&>(s).orelse); break;
    case StmtKind::While:
      deepest(static_cast<const WhileStmt&>(s).body);
      deepest(static_cast<const WhileStmt&>(s).orelse);
      break;
    case StmtKind::With: deepest(static_cast<const WithStmt&>(s).body); break;
    case StmtKind::FunctionDef: deepest(static_cast<const FunctionDefStmt&>(s).code->body); break;
    case StmtKind::Try: {
      auto& t = static_cast<const TryStmt&>(s);
      deepest(t.body);
      for (const auto& h : t.handlers) deepest(h.body);
      deepest(t.orelse);
      deepest(t.finalbody);
      break;
    }
    default: break;
  }
  return last;
}

uint32_t last_line(const Block& b) {
  uint32_t last = 0;
  for (const auto& s : b) last = std::max(last, last_line(*s));
  return last;
}

}  // namespace nki
