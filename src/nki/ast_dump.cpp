// The AST dump: a recursive walk writing "Kind detail @line:col" lines, children indented.
#include "nki/ast_dump.h"

#include <fmt/core.h>

namespace nki {

namespace {

const char* expr_kind_name(ExprKind k) {
  static const char* const kNames[] = {"Name", "Constant", "FString", "BinOp", "UnaryOp", "BoolOp", "Compare", "Call",
                                       "Attribute", "Subscript", "Slice", "Tuple", "List", "Set", "Dict", "ListComp",
                                       "SetComp", "DictComp", "GeneratorExp", "IfExp", "Lambda", "Starred",
                                       "NamedExpr"};
  return kNames[static_cast<int>(k)];
}

const char* param_kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::Positional: return "Param";
    case ParamKind::VarArgs: return "VarArgs";
    case ParamKind::KeywordOnly: return "KeywordOnlyParam";
    case ParamKind::VarKwargs: return "VarKwargs";
  }
  return "Param";
}

class Dumper {
 public:
  explicit Dumper(bool locs) : locs_(locs) {}
  std::string out;

  void line(int depth, const std::string& text, const Span* span) {
    out.append(size_t(depth) * 2, ' ');
    out += text;
    if (locs_ && span) out += fmt::format(" @{}:{}", span->line, span->col);
    out += '\n';
  }
  void label(int depth, const char* name) { line(depth, std::string(name) + ":", nullptr); }

  void block(const Block& b, int depth) {
    for (const auto& s : b) stmt(*s, depth);
  }

  void exprs(const char* name, const std::vector<ExprPtr>& list, int depth) {
    if (list.empty()) return;
    label(depth, name);
    for (const auto& e : list) expr(e.get(), depth + 1);
  }

  void child(const char* name, const Expr* e, int depth) {
    if (!e) return;
    label(depth, name);
    expr(e, depth + 1);
  }

  void function(const FunctionCode& code, int depth) {
    if (code.params.empty()) return;
    label(depth, "params");
    for (const Parameter& p : code.params) {
      line(depth + 1, fmt::format("{} {}", p.positional_only ? "PositionalOnlyParam" : param_kind_name(p.kind), p.name), &p.span);
      child("default", p.default_value.get(), depth + 2);
      child("annotation", p.annotation.get(), depth + 2);
    }
  }

  void stmt(const Stmt& s, int depth) {
    switch (s.kind) {
      case StmtKind::Expr:
        line(depth, "Expr", &s.span);
        expr(static_cast<const ExprStmt&>(s).value.get(), depth + 1);
        return;
      case StmtKind::Assign: {
        auto& a = static_cast<const AssignStmt&>(s);
        line(depth, "Assign", &s.span);
        exprs("targets", a.targets, depth + 1);
        child("annotation", a.annotation.get(), depth + 1);
        child("value", a.value.get(), depth + 1);
        return;
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssignStmt&>(s);
        line(depth, "AnnAssign", &s.span);
        child("target", a.target.get(), depth + 1);
        child("annotation", a.annotation.get(), depth + 1);
        return;
      }
      case StmtKind::With: {
        auto& w = static_cast<const WithStmt&>(s);
        line(depth, "With", &s.span);
        for (const WithItem& item : w.items) {
          label(depth + 1, "item");
          expr(item.context.get(), depth + 2);
          child("as", item.target.get(), depth + 2);
        }
        label(depth + 1, "body");
        block(w.body, depth + 2);
        return;
      }
      case StmtKind::Raise: {
        auto& r = static_cast<const RaiseStmt&>(s);
        line(depth, "Raise", &s.span);
        child("exc", r.exc.get(), depth + 1);
        child("cause", r.cause.get(), depth + 1);
        return;
      }
      case StmtKind::Try: {
        auto& t = static_cast<const TryStmt&>(s);
        line(depth, "Try", &s.span);
        label(depth + 1, "body");
        block(t.body, depth + 2);
        for (const ExceptHandler& h : t.handlers) {
          line(depth + 1, "ExceptHandler", &h.span);
          child("type", h.type.get(), depth + 2);
          child("name", h.target.get(), depth + 2);
          label(depth + 2, "body");
          block(h.body, depth + 3);
        }
        if (!t.orelse.empty()) {
          label(depth + 1, "orelse");
          block(t.orelse, depth + 2);
        }
        if (!t.finalbody.empty()) {
          label(depth + 1, "finalbody");
          block(t.finalbody, depth + 2);
        }
        return;
      }
      case StmtKind::ClassDef: {
        auto& c = static_cast<const ClassDefStmt&>(s);
        line(depth, "ClassDef " + c.code->name, &s.span);
        exprs("decorators", c.decorators, depth + 1);
        exprs("bases", c.bases, depth + 1);
        label(depth + 1, "body");
        block(c.code->body, depth + 2);
        return;
      }
      case StmtKind::Global: {
        auto& g = static_cast<const GlobalStmt&>(s);
        std::string names;
        for (auto& n : g.names) names += " " + n;
        line(depth, (g.nonlocal ? "Nonlocal" : "Global") + names, &s.span);
        return;
      }
      case StmtKind::Delete:
        line(depth, "Delete", &s.span);
        exprs("targets", static_cast<const DeleteStmt&>(s).targets, depth + 1);
        return;
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssignStmt&>(s);
        line(depth, fmt::format("AugAssign {}=", symbol(a.op)), &s.span);
        child("target", a.target.get(), depth + 1);
        child("value", a.value.get(), depth + 1);
        return;
      }
      case StmtKind::Return:
        line(depth, "Return", &s.span);
        expr(static_cast<const ReturnStmt&>(s).value.get(), depth + 1);
        return;
      case StmtKind::If: {
        auto& i = static_cast<const IfStmt&>(s);
        line(depth, "If", &s.span);
        child("test", i.test.get(), depth + 1);
        label(depth + 1, "body");
        block(i.body, depth + 2);
        if (!i.orelse.empty()) {
          label(depth + 1, "orelse");
          block(i.orelse, depth + 2);
        }
        return;
      }
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(s);
        line(depth, "For", &s.span);
        child("target", f.target.get(), depth + 1);
        child("iter", f.iter.get(), depth + 1);
        label(depth + 1, "body");
        block(f.body, depth + 2);
        if (!f.orelse.empty()) {
          label(depth + 1, "orelse");
          block(f.orelse, depth + 2);
        }
        return;
      }
      case StmtKind::While: {
        auto& w = static_cast<const WhileStmt&>(s);
        line(depth, "While", &s.span);
        child("test", w.test.get(), depth + 1);
        label(depth + 1, "body");
        block(w.body, depth + 2);
        if (!w.orelse.empty()) {
          label(depth + 1, "orelse");
          block(w.orelse, depth + 2);
        }
        return;
      }
      case StmtKind::Break: line(depth, "Break", &s.span); return;
      case StmtKind::Continue: line(depth, "Continue", &s.span); return;
      case StmtKind::Pass: line(depth, "Pass", &s.span); return;
      case StmtKind::FunctionDef: {
        auto& d = static_cast<const FunctionDefStmt&>(s);
        line(depth, "FunctionDef " + d.code->name, &s.span);
        exprs("decorators", d.decorators, depth + 1);
        function(*d.code, depth + 1);
        child("returns", d.returns.get(), depth + 1);
        label(depth + 1, "body");
        block(d.code->body, depth + 2);
        return;
      }
      case StmtKind::Import:
      case StmtKind::ImportFrom: {
        auto& im = static_cast<const ImportStmt&>(s);
        line(depth, s.kind == StmtKind::Import ? "Import" : "ImportFrom " + im.module, &s.span);
        for (const ImportAlias& a : im.names)
          line(depth + 1, "alias " + a.name + (a.asname.empty() ? "" : " as " + a.asname), &a.span);
        return;
      }
      case StmtKind::Assert: {
        auto& a = static_cast<const AssertStmt&>(s);
        line(depth, "Assert", &s.span);
        child("test", a.test.get(), depth + 1);
        child("msg", a.msg.get(), depth + 1);
        return;
      }
    }
  }

  void expr(const Expr* e, int depth) {
    if (!e) return;
    std::string head = expr_kind_name(e->kind);
    switch (e->kind) {
      case ExprKind::Name: line(depth, head + " " + static_cast<const NameExpr*>(e)->id, &e->span); return;
      case ExprKind::Constant: {
        const Value& v = static_cast<const ConstantExpr*>(e)->value;
        line(depth, head + " " + v.repr(), &e->span);
        return;
      }
      case ExprKind::FString: {
        line(depth, head, &e->span);
        for (const FStringPart& p : static_cast<const FStringExpr*>(e)->parts) {
          if (!p.literal.empty()) line(depth + 1, "literal " + StrObj(p.literal).repr(), nullptr);
          if (!p.expr) continue;
          std::string field = "field";
          if (p.conversion) field += fmt::format(" !{}", p.conversion);
          if (!p.spec.empty()) field += " :" + p.spec;
          line(depth + 1, field, nullptr);
          expr(p.expr.get(), depth + 2);
        }
        return;
      }
      case ExprKind::BinOp: {
        auto* b = static_cast<const BinOpExpr*>(e);
        line(depth, head + " " + symbol(b->op), &e->span);
        expr(b->left.get(), depth + 1);
        expr(b->right.get(), depth + 1);
        return;
      }
      case ExprKind::UnaryOp: {
        auto* u = static_cast<const UnaryOpExpr*>(e);
        std::string op = symbol(u->op);
        if (op.back() == ' ') op.pop_back();
        line(depth, head + " " + op, &e->span);
        expr(u->operand.get(), depth + 1);
        return;
      }
      case ExprKind::BoolOp: {
        auto* b = static_cast<const BoolOpExpr*>(e);
        line(depth, head + (b->is_and ? " and" : " or"), &e->span);
        for (const auto& v : b->values) expr(v.get(), depth + 1);
        return;
      }
      case ExprKind::Compare: {
        auto* c = static_cast<const CompareExpr*>(e);
        std::string ops;
        for (CmpKind k : c->ops) ops += std::string(" ") + symbol(k);
        line(depth, head + ops, &e->span);
        expr(c->left.get(), depth + 1);
        for (const auto& v : c->comparators) expr(v.get(), depth + 1);
        return;
      }
      case ExprKind::Call: {
        auto* c = static_cast<const CallExpr*>(e);
        line(depth, head, &e->span);
        child("func", c->func.get(), depth + 1);
        exprs("args", c->args, depth + 1);
        if (c->keywords.empty()) return;
        label(depth + 1, "keywords");
        for (const Keyword& k : c->keywords) {
          line(depth + 2, k.name.empty() ? "**" : "keyword " + k.name, &k.span);
          expr(k.value.get(), depth + 3);
        }
        return;
      }
      case ExprKind::Attribute: {
        auto* a = static_cast<const AttributeExpr*>(e);
        line(depth, head + " ." + a->attr, &e->span);
        expr(a->value.get(), depth + 1);
        return;
      }
      case ExprKind::Subscript: {
        auto* s = static_cast<const SubscriptExpr*>(e);
        line(depth, head, &e->span);
        child("value", s->value.get(), depth + 1);
        child("index", s->index.get(), depth + 1);
        return;
      }
      case ExprKind::Slice: {
        auto* s = static_cast<const SliceExpr*>(e);
        line(depth, head, &e->span);
        child("lower", s->lower.get(), depth + 1);
        child("upper", s->upper.get(), depth + 1);
        child("step", s->step.get(), depth + 1);
        return;
      }
      case ExprKind::Tuple: case ExprKind::List: case ExprKind::Set: {
        line(depth, head, &e->span);
        for (const auto& v : static_cast<const SequenceExpr*>(e)->elts) expr(v.get(), depth + 1);
        return;
      }
      case ExprKind::Dict: {
        auto* d = static_cast<const DictExpr*>(e);
        line(depth, head, &e->span);
        for (size_t i = 0; i < d->values.size(); ++i) {
          if (d->keys[i]) child("key", d->keys[i].get(), depth + 1);
          else label(depth + 1, "**");
          child("value", d->values[i].get(), depth + 1);
        }
        return;
      }
      case ExprKind::ListComp: case ExprKind::SetComp: case ExprKind::DictComp: case ExprKind::GeneratorExp: {
        auto* c = static_cast<const ComprehensionExpr*>(e);
        line(depth, head, &e->span);
        child(c->value ? "key" : "elt", c->elt.get(), depth + 1);
        child("value", c->value.get(), depth + 1);
        for (const Comprehension& g : c->generators) {
          label(depth + 1, "for");
          child("target", g.target.get(), depth + 2);
          child("iter", g.iter.get(), depth + 2);
          exprs("ifs", g.ifs, depth + 2);
        }
        return;
      }
      case ExprKind::IfExp: {
        auto* i = static_cast<const IfExpExpr*>(e);
        line(depth, head, &e->span);
        child("test", i->test.get(), depth + 1);
        child("body", i->body.get(), depth + 1);
        child("orelse", i->orelse.get(), depth + 1);
        return;
      }
      case ExprKind::Lambda: {
        auto* l = static_cast<const LambdaExpr*>(e);
        line(depth, head, &e->span);
        function(*l->code, depth + 1);
        child("body", l->code->lambda_body.get(), depth + 1);
        return;
      }
      case ExprKind::Starred:
        line(depth, head, &e->span);
        expr(static_cast<const StarredExpr*>(e)->value.get(), depth + 1);
        return;
      case ExprKind::NamedExpr: {
        auto* n = static_cast<const NamedExpr*>(e);
        line(depth, head + " " + static_cast<const NameExpr&>(*n->target).id, &e->span);
        expr(n->value.get(), depth + 1);
        return;
      }
    }
  }

 private:
  bool locs_;
};

}  // namespace

std::string dump_ast(const ModuleAst& module, bool with_locations) {
  Dumper d(with_locations);
  d.line(0, "Module", nullptr);
  d.block(module.body, 1);
  return d.out;
}

}  // namespace nki
