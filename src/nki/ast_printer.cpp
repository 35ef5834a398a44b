// The printer: statements line by line, expressions with precedence-driven parentheses.
#include "nki/ast_printer.h"

#include <cmath>

#include <fmt/core.h>

namespace nki {

namespace {

// Binding strength, loosest first (Python's grammar order).
enum Prec : int {
  kTuple = 0, kLambda = 1, kIfExp = 2, kOr = 3, kAnd = 4, kNot = 5, kCompare = 6, kBitOr = 7, kBitXor = 8,
  kBitAnd = 9, kShift = 10, kArith = 11, kTerm = 12, kUnary = 13, kPower = 14, kPrimary = 15, kAtom = 16,
};

int binop_prec(BinOp op) {
  switch (op) {
    case BinOp::Add: case BinOp::Sub: return kArith;
    case BinOp::Mul: case BinOp::Div: case BinOp::FloorDiv: case BinOp::Mod: case BinOp::MatMul: return kTerm;
    case BinOp::Pow: return kPower;
    case BinOp::LShift: case BinOp::RShift: return kShift;
    case BinOp::BitAnd: return kBitAnd;
    case BinOp::BitOr: return kBitOr;
    case BinOp::BitXor: return kBitXor;
  }
  return kTerm;
}

int prec_of(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Lambda: return kLambda;
    case ExprKind::IfExp: return kIfExp;
    case ExprKind::BoolOp: return static_cast<const BoolOpExpr&>(e).is_and ? kAnd : kOr;
    case ExprKind::UnaryOp: return static_cast<const UnaryOpExpr&>(e).op == UnOp::Not ? kNot : kUnary;
    case ExprKind::Compare: return kCompare;
    case ExprKind::BinOp: return binop_prec(static_cast<const BinOpExpr&>(e).op);
    case ExprKind::Starred: return kBitOr;
    case ExprKind::Call: case ExprKind::Attribute: case ExprKind::Subscript: return kPrimary;
    default: return kAtom;
  }
}

std::string quote_literal(const std::string& s, char quote) {
  std::string out(1, quote);
  for (char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c == quote) out += std::string("\\") + c;
        else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else out += c;
    }
  }
  return out + quote;
}

class Printer {
 public:
  std::string expr(const Expr& e, int min_prec) {
    std::string text = render(e);
    bool needs_parens = prec_of(e) < min_prec;
    if (e.kind == ExprKind::Tuple && min_prec > kTuple) needs_parens = true;
    return needs_parens && !(e.kind == ExprKind::Tuple && text.front() == '(') ? "(" + text + ")" : text;
  }

  // A tuple without parentheses where the grammar allows it (statement level, subscripts).
  std::string bare(const Expr& e) {
    if (e.kind != ExprKind::Tuple) return expr(e, kTuple + 1);
    auto& t = static_cast<const SequenceExpr&>(e);
    if (t.elts.empty()) return "()";
    std::string out = join(t.elts, kBitOr);
    return t.elts.size() == 1 ? out + "," : out;
  }

  void block(const Block& b, int indent, std::string& out) {
    for (size_t i = 0; i < b.size(); ++i) {
      const Stmt& s = *b[i];
      bool is_def = s.kind == StmtKind::FunctionDef || s.kind == StmtKind::ClassDef;
      bool after_def = i > 0 && (b[i - 1]->kind == StmtKind::FunctionDef || b[i - 1]->kind == StmtKind::ClassDef);
      if (i > 0 && indent == 0 && (is_def || after_def)) out += "\n\n";
      else if (i > 0 && is_def) out += "\n";
      stmt(s, indent, out);
    }
  }

 private:
  std::string join(const std::vector<ExprPtr>& list, int prec) {
    std::string out;
    for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + expr(*list[i], prec);
    return out;
  }

  std::string constant(const Value& v) {
    if (v.is_float()) {
      double d = v.as_float();
      if (std::isinf(d)) return d > 0 ? "1e999" : "-1e999";
      if (std::isnan(d)) return "(1e999 - 1e999)";
    }
    if (v.is(ObjType::Ellipsis)) return "...";
    return v.repr();
  }

  // Before Python 3.12 an f-string's expressions cannot reuse its quote character, so the quote
  // is chosen from what the expressions contain (triple quotes when they contain both).
  std::string fstring(const FStringExpr& f) {
    std::vector<std::string> inner;
    bool expr_single = false, expr_double = false, lit_single = false;
    for (const FStringPart& p : f.parts) {
      lit_single |= p.literal.find('\'') != std::string::npos;
      if (!p.expr) continue;
      inner.push_back(expr(*p.expr, kIfExp));
      std::string unescapable = inner.back() + p.spec;  // neither part may contain the quote
      expr_single |= unescapable.find('\'') != std::string::npos;
      expr_double |= unescapable.find('"') != std::string::npos;
    }
    char quote = expr_single ? '"' : expr_double ? '\'' : lit_single ? '"' : '\'';
    bool triple = expr_single && expr_double;
    if (triple) quote = '\'';
    std::string delim(triple ? 3 : 1, quote);
    std::string body;
    size_t next_inner = 0;
    for (const FStringPart& p : f.parts) {
      std::string lit = quote_literal(p.literal, quote);
      lit = lit.substr(1, lit.size() - 2);
      for (char c : lit) body += c == '{' ? "{{" : c == '}' ? "}}" : std::string(1, c);
      if (!p.expr) continue;
      std::string text = inner[next_inner++];
      if (!text.empty() && text.front() == '{') text = " " + text;  // "{{" would be an escaped brace
      body += "{" + text;
      if (p.conversion) body += std::string("!") + p.conversion;
      if (!p.spec.empty()) body += ":" + p.spec;
      body += "}";
    }
    return "f" + delim + body + delim;
  }

  std::string params(const FunctionCode& code, bool lambda) {
    std::string out;
    bool star_written = false;
    for (size_t i = 0; i < code.params.size(); ++i) {
      const Parameter& p = code.params[i];
      if (i) out += ", ";
      if (p.kind == ParamKind::KeywordOnly && !star_written) {
        out += "*, ";
        star_written = true;
      }
      if (p.kind == ParamKind::VarArgs) {
        out += "*";
        star_written = true;
      }
      if (p.kind == ParamKind::VarKwargs) out += "**";
      out += p.name;
      if (p.annotation && !lambda) out += ": " + expr(*p.annotation, kIfExp);
      if (p.default_value) out += (p.annotation && !lambda ? " = " : "=") + expr(*p.default_value, kIfExp);
      if (p.positional_only && (i + 1 == code.params.size() || !code.params[i + 1].positional_only)) out += ", /";
    }
    return out;
  }

  std::string comprehension(const ComprehensionExpr& c) {
    std::string out = expr(*c.elt, kIfExp);
    if (c.value) out += ": " + expr(*c.value, kIfExp);
    for (const Comprehension& g : c.generators) {
      out += " for " + bare(*g.target) + " in " + expr(*g.iter, kOr);
      for (const auto& cond : g.ifs) out += " if " + expr(*cond, kOr);
    }
    return out;
  }

  std::string subscript_index(const Expr& index) {
    if (index.kind == ExprKind::Tuple && !static_cast<const SequenceExpr&>(index).elts.empty()) {
      auto& t = static_cast<const SequenceExpr&>(index);
      std::string out;
      for (size_t i = 0; i < t.elts.size(); ++i) out += (i ? ", " : "") + slice_item(*t.elts[i]);
      return t.elts.size() == 1 ? out + "," : out;
    }
    return slice_item(index);
  }

  std::string slice_item(const Expr& e) {
    if (e.kind != ExprKind::Slice) return expr(e, kIfExp);
    auto& s = static_cast<const SliceExpr&>(e);
    std::string out = (s.lower ? expr(*s.lower, kIfExp) : "") + ":" + (s.upper ? expr(*s.upper, kIfExp) : "");
    if (s.step) out += ":" + expr(*s.step, kIfExp);
    return out;
  }

  std::string call(const CallExpr& c) {
    std::string out = expr(*c.func, kPrimary) + "(";
    bool first = true;
    for (const auto& a : c.args) {
      out += (first ? "" : ", ") + (a->kind == ExprKind::GeneratorExp && c.args.size() == 1 && c.keywords.empty()
                                        ? render(*a)
                                        : expr(*a, kIfExp));
      first = false;
    }
    for (const Keyword& k : c.keywords) {
      out += (first ? "" : ", ") + (k.name.empty() ? "**" + expr(*k.value, kBitOr) : k.name + "=" + expr(*k.value, kIfExp));
      first = false;
    }
    return out + ")";
  }

  std::string render(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name: return static_cast<const NameExpr&>(e).id;
      case ExprKind::Constant: return constant(static_cast<const ConstantExpr&>(e).value);
      case ExprKind::FString: return fstring(static_cast<const FStringExpr&>(e));
      case ExprKind::BinOp: {
        auto& b = static_cast<const BinOpExpr&>(e);
        int p = binop_prec(b.op);
        bool right_assoc = b.op == BinOp::Pow;
        return expr(*b.left, right_assoc ? p + 1 : p) + " " + symbol(b.op) + " " +
               expr(*b.right, right_assoc ? kUnary : p + 1);
      }
      case ExprKind::UnaryOp: {
        auto& u = static_cast<const UnaryOpExpr&>(e);
        if (u.op == UnOp::Not) return "not " + expr(*u.operand, kNot);
        return symbol(u.op) + expr(*u.operand, kUnary);
      }
      case ExprKind::BoolOp: {
        auto& b = static_cast<const BoolOpExpr&>(e);
        std::string out;
        int p = b.is_and ? kAnd : kOr;
        for (size_t i = 0; i < b.values.size(); ++i) out += (i ? (b.is_and ? " and " : " or ") : "") + expr(*b.values[i], p + 1);
        return out;
      }
      case ExprKind::Compare: {
        auto& c = static_cast<const CompareExpr&>(e);
        std::string out = expr(*c.left, kCompare + 1);
        for (size_t i = 0; i < c.ops.size(); ++i) out += std::string(" ") + symbol(c.ops[i]) + " " + expr(*c.comparators[i], kCompare + 1);
        return out;
      }
      case ExprKind::Call: return call(static_cast<const CallExpr&>(e));
      case ExprKind::Attribute: {
        auto& a = static_cast<const AttributeExpr&>(e);
        std::string base = expr(*a.value, kPrimary);
        if (a.value->kind == ExprKind::Constant && static_cast<const ConstantExpr&>(*a.value).value.is_int()) base = "(" + base + ")";
        return base + "." + a.attr;
      }
      case ExprKind::Subscript: {
        auto& s = static_cast<const SubscriptExpr&>(e);
        return expr(*s.value, kPrimary) + "[" + subscript_index(*s.index) + "]";
      }
      case ExprKind::Slice: return slice_item(e);
      case ExprKind::Tuple: {
        auto& t = static_cast<const SequenceExpr&>(e);
        if (t.elts.size() == 1) return "(" + expr(*t.elts[0], kBitOr) + ",)";
        return "(" + join(t.elts, kBitOr) + ")";
      }
      case ExprKind::List: return "[" + join(static_cast<const SequenceExpr&>(e).elts, kBitOr) + "]";
      case ExprKind::Set: return "{" + join(static_cast<const SequenceExpr&>(e).elts, kBitOr) + "}";
      case ExprKind::Dict: {
        auto& d = static_cast<const DictExpr&>(e);
        std::string out = "{";
        for (size_t i = 0; i < d.values.size(); ++i) {
          out += i ? ", " : "";
          out += d.keys[i] ? expr(*d.keys[i], kIfExp) + ": " + expr(*d.values[i], kIfExp) : "**" + expr(*d.values[i], kBitOr);
        }
        return out + "}";
      }
      case ExprKind::ListComp: return "[" + comprehension(static_cast<const ComprehensionExpr&>(e)) + "]";
      case ExprKind::SetComp:
      case ExprKind::DictComp: return "{" + comprehension(static_cast<const ComprehensionExpr&>(e)) + "}";
      case ExprKind::GeneratorExp: return "(" + comprehension(static_cast<const ComprehensionExpr&>(e)) + ")";
      case ExprKind::IfExp: {
        auto& i = static_cast<const IfExpExpr&>(e);
        return expr(*i.body, kOr) + " if " + expr(*i.test, kOr) + " else " + expr(*i.orelse, kIfExp);
      }
      case ExprKind::Lambda: {
        auto& l = static_cast<const LambdaExpr&>(e);
        std::string p = params(*l.code, true);
        return "lambda" + (p.empty() ? "" : " " + p) + ": " + expr(*l.code->lambda_body, kIfExp);
      }
      case ExprKind::Starred: return "*" + expr(*static_cast<const StarredExpr&>(e).value, kBitOr);
      case ExprKind::NamedExpr: {
        // Always parenthesized: valid wherever the expression was written.
        auto& n = static_cast<const NamedExpr&>(e);
        return "(" + static_cast<const NameExpr&>(*n.target).id + " := " + expr(*n.value, kIfExp) + ")";
      }
    }
    return "?";
  }

  // Docstrings and other multi-line string statements read better triple-quoted.
  std::string string_statement(const std::string& s) {
    bool multiline = s.find('\n') != std::string::npos;
    if (!multiline || s.find("\"\"\"") != std::string::npos || s.find('\\') != std::string::npos || s.back() == '"' ||
        s.find('\r') != std::string::npos)
      return StrObj(s).repr();
    return "\"\"\"" + s + "\"\"\"";
  }

  void header(const Stmt& s, int indent, std::string& out, const std::string& text) {
    std::string pad(size_t(indent) * 4, ' ');
    for (const std::string& c : s.comments_before) out += pad + c + "\n";
    out += pad + text;
    if (!s.comment_after.empty()) out += "  " + s.comment_after;
    out += "\n";
  }

  void body(const Block& b, int indent, std::string& out) {
    if (b.empty()) {
      out += std::string(size_t(indent) * 4, ' ') + "pass\n";
      return;
    }
    block(b, indent, out);
  }

  void else_clause(const Block& orelse, int indent, std::string& out) {
    if (orelse.empty()) return;
    out += std::string(size_t(indent) * 4, ' ') + "else:\n";
    body(orelse, indent + 1, out);
  }

  void if_chain(const IfStmt& i, int indent, std::string& out, bool as_elif) {
    header(i, indent, out, std::string(as_elif ? "elif " : "if ") + expr(*i.test, kIfExp) + ":");
    body(i.body, indent + 1, out);
    if (i.orelse.empty()) return;
    if (i.orelse.size() == 1 && i.orelse[0]->kind == StmtKind::If && static_cast<const IfStmt&>(*i.orelse[0]).is_elif) {
      if_chain(static_cast<const IfStmt&>(*i.orelse[0]), indent, out, true);
      return;
    }
    out += std::string(size_t(indent) * 4, ' ') + "else:\n";
    body(i.orelse, indent + 1, out);
  }

  void stmt(const Stmt& s, int indent, std::string& out) {
    switch (s.kind) {
      case StmtKind::Expr: {
        const Expr& v = *static_cast<const ExprStmt&>(s).value;
        if (v.kind == ExprKind::Constant && static_cast<const ConstantExpr&>(v).value.is(ObjType::Str))
          return header(s, indent, out, string_statement(static_cast<const ConstantExpr&>(v).value.str()));
        return header(s, indent, out, bare(v));
      }
      case StmtKind::Assign: {
        auto& a = static_cast<const AssignStmt&>(s);
        std::string text;
        for (const auto& t : a.targets) text += bare(*t) + (a.annotation ? ": " + expr(*a.annotation, kIfExp) : "") + " = ";
        return header(s, indent, out, text + bare(*a.value));
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssignStmt&>(s);
        return header(s, indent, out, bare(*a.target) + ": " + expr(*a.annotation, kIfExp));
      }
      case StmtKind::With: {
        auto& w = static_cast<const WithStmt&>(s);
        std::string items;
        for (size_t i = 0; i < w.items.size(); ++i)
          items += (i ? ", " : "") + expr(*w.items[i].context, kIfExp) +
                   (w.items[i].target ? " as " + expr(*w.items[i].target, kBitOr) : "");
        header(s, indent, out, "with " + items + ":");
        return body(w.body, indent + 1, out);
      }
      case StmtKind::Raise: {
        auto& r = static_cast<const RaiseStmt&>(s);
        std::string text = "raise";
        if (r.exc) text += " " + expr(*r.exc, kIfExp);
        if (r.cause) text += " from " + expr(*r.cause, kIfExp);
        return header(s, indent, out, text);
      }
      case StmtKind::Try: {
        auto& t = static_cast<const TryStmt&>(s);
        std::string pad(size_t(indent) * 4, ' ');
        header(s, indent, out, "try:");
        body(t.body, indent + 1, out);
        for (const ExceptHandler& h : t.handlers) {
          std::string head = "except";
          if (h.type) head += " " + expr(*h.type, kIfExp);
          if (h.target) head += " as " + static_cast<const NameExpr&>(*h.target).id;
          out += pad + head + ":\n";
          body(h.body, indent + 1, out);
        }
        if (!t.orelse.empty()) {
          out += pad + "else:\n";
          body(t.orelse, indent + 1, out);
        }
        if (!t.finalbody.empty()) {
          out += pad + "finally:\n";
          body(t.finalbody, indent + 1, out);
        }
        return;
      }
      case StmtKind::ClassDef: {
        auto& c = static_cast<const ClassDefStmt&>(s);
        std::string pad(size_t(indent) * 4, ' ');
        for (const std::string& cm : c.comments_before) out += pad + cm + "\n";
        for (const auto& dec : c.decorators) out += pad + "@" + expr(*dec, kIfExp) + "\n";
        out += pad + "class " + c.code->name + (c.bases.empty() ? "" : "(" + join(c.bases, kIfExp) + ")") + ":";
        if (!c.comment_after.empty()) out += "  " + c.comment_after;
        out += "\n";
        return body(c.code->body, indent + 1, out);
      }
      case StmtKind::Global: {
        auto& g = static_cast<const GlobalStmt&>(s);
        std::string names;
        for (size_t i = 0; i < g.names.size(); ++i) names += (i ? ", " : "") + g.names[i];
        return header(s, indent, out, (g.nonlocal ? "nonlocal " : "global ") + names);
      }
      case StmtKind::Delete: return header(s, indent, out, "del " + join(static_cast<const DeleteStmt&>(s).targets, kBitOr));
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssignStmt&>(s);
        return header(s, indent, out, bare(*a.target) + " " + symbol(a.op) + "= " + bare(*a.value));
      }
      case StmtKind::Return: {
        auto& r = static_cast<const ReturnStmt&>(s);
        return header(s, indent, out, r.value ? "return " + bare(*r.value) : "return");
      }
      case StmtKind::If: return if_chain(static_cast<const IfStmt&>(s), indent, out, false);
      case StmtKind::For: {
        auto& f = static_cast<const ForStmt&>(s);
        header(s, indent, out, "for " + bare(*f.target) + " in " + bare(*f.iter) + ":");
        body(f.body, indent + 1, out);
        return else_clause(f.orelse, indent, out);
      }
      case StmtKind::While: {
        auto& w = static_cast<const WhileStmt&>(s);
        header(s, indent, out, "while " + expr(*w.test, kIfExp) + ":");
        body(w.body, indent + 1, out);
        return else_clause(w.orelse, indent, out);
      }
      case StmtKind::Break: return header(s, indent, out, "break");
      case StmtKind::Continue: return header(s, indent, out, "continue");
      case StmtKind::Pass: return header(s, indent, out, "pass");
      case StmtKind::FunctionDef: return function_def(static_cast<const FunctionDefStmt&>(s), indent, out);
      case StmtKind::Import:
      case StmtKind::ImportFrom: {
        auto& im = static_cast<const ImportStmt&>(s);
        std::string names;
        for (size_t i = 0; i < im.names.size(); ++i)
          names += (i ? ", " : "") + im.names[i].name + (im.names[i].asname.empty() ? "" : " as " + im.names[i].asname);
        return header(s, indent, out, s.kind == StmtKind::Import ? "import " + names : "from " + im.module + " import " + names);
      }
      case StmtKind::Assert: {
        auto& a = static_cast<const AssertStmt&>(s);
        return header(s, indent, out, "assert " + expr(*a.test, kIfExp) + (a.msg ? ", " + expr(*a.msg, kIfExp) : ""));
      }
    }
  }

  void function_def(const FunctionDefStmt& d, int indent, std::string& out) {
    std::string pad(size_t(indent) * 4, ' ');
    for (const std::string& c : d.comments_before) out += pad + c + "\n";
    for (const auto& dec : d.decorators) out += pad + "@" + expr(*dec, kIfExp) + "\n";
    std::string text = "def " + d.code->name + "(" + params(*d.code, false) + ")";
    if (d.returns) text += " -> " + expr(*d.returns, kIfExp);
    out += pad + text + ":";
    if (!d.comment_after.empty()) out += "  " + d.comment_after;
    out += "\n";
    body(d.code->body, indent + 1, out);
  }
};

}  // namespace

std::string print_expr(const Expr& e) { return Printer().bare(e); }

std::string print_block(const Block& block, int indent) {
  std::string out;
  Printer().block(block, indent, out);
  return out;
}

std::string print_module(const ModuleAst& module) {
  std::string out;
  Printer().block(module.body, 0, out);
  for (const std::string& c : module.trailing_comments) out += c + "\n";
  return out;
}

}  // namespace nki
