// Statement grammar of the Python subset (one function per rule, the rule in its comment).
#include <algorithm>

#include <fmt/core.h>

#include "nki/parser.h"
#include "nki/parser_impl.h"

namespace nki::detail {

namespace {

constexpr int kMaxDepth = 120;  // nesting of expressions and blocks

// Statements that are valid Python but outside the kernel subset, with the feature named.
const char* unsupported_keyword_message(std::string_view kw) {
  if (kw == "yield") return "'yield' (generators) is not supported in kernels";
  if (kw == "async" || kw == "await") return "'async' code is not supported in kernels";
  return nullptr;
}

std::optional<BinOp> aug_op(std::string_view op) {
  static const std::pair<const char*, BinOp> kOps[] = {
      {"+=", BinOp::Add},     {"-=", BinOp::Sub},     {"*=", BinOp::Mul},    {"/=", BinOp::Div},
      {"//=", BinOp::FloorDiv}, {"%=", BinOp::Mod},   {"**=", BinOp::Pow},   {"@=", BinOp::MatMul},
      {"<<=", BinOp::LShift}, {">>=", BinOp::RShift}, {"&=", BinOp::BitAnd}, {"|=", BinOp::BitOr},
      {"^=", BinOp::BitXor}};
  for (auto& [text, op_kind] : kOps)
    if (op == text) return op_kind;
  return std::nullopt;
}

const char* describe_target(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Call: return "function call";
    case ExprKind::Constant: return "literal";
    case ExprKind::BinOp: case ExprKind::UnaryOp: return "expression";
    case ExprKind::Compare: return "comparison";
    case ExprKind::BoolOp: return "expression";
    case ExprKind::Lambda: return "lambda";
    case ExprKind::IfExp: return "conditional expression";
    case ExprKind::FString: return "f-string expression";
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Set: return "set display";
    case ExprKind::ListComp: return "list comprehension";
    case ExprKind::DictComp: return "dict comprehension";
    case ExprKind::SetComp: return "set comprehension";
    case ExprKind::GeneratorExp: return "generator expression";
    default: return "expression";
  }
}

}  // namespace

Span join(const Span& a, const Span& b) { return Span{a.line, a.col, b.end_line, b.end_col}; }

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser) {
  if (++p.depth_ > kMaxDepth) p.fail(p.peek(), "code is nested too deeply");
}

Parser::Parser(std::shared_ptr<const SourceFile> src, std::vector<Token> tokens, uint32_t line_offset,
               uint32_t col_offset)
    : src_(std::move(src)), tokens_(std::move(tokens)) {
  if (line_offset == 0 && col_offset == 0) return;
  for (Token& t : tokens_) {  // shift a sub-lexed f-string field to its place in the file
    if (t.span.line == 1) t.span.col += col_offset;
    if (t.span.end_line == 1) t.span.end_col += col_offset;
    t.span.line += line_offset;
    t.span.end_line += line_offset;
  }
}

// file ::= statement* END
Block Parser::parse_file() {
  Block out;
  while (peek().kind != TokenKind::End) {
    if (peek().kind == TokenKind::Newline) {
      advance();
      continue;
    }
    if (peek().kind == TokenKind::Indent) fail(peek(), "unexpected indent");
    parse_statement(out);
  }
  return out;
}

// statement ::= compound_stmt | simple_stmts
void Parser::parse_statement(Block& out) {
  DepthGuard guard(*this);
  const Token& t = peek();
  if (t.kind == TokenKind::Keyword) {
    if (t.text == "if") return out.push_back(parse_if(false));
    if (t.text == "for") return out.push_back(parse_for());
    if (t.text == "while") return out.push_back(parse_while());
    if (t.text == "def") return out.push_back(parse_def({}, t.span));
    if (t.text == "class") return out.push_back(parse_class({}, t.span));
    if (t.text == "with") return out.push_back(parse_with());
    if (t.text == "try") return out.push_back(parse_try());
  }
  if (t.kind == TokenKind::Op && t.text == "@") return out.push_back(parse_decorated());
  if (t.kind == TokenKind::Name && t.text == "match" && starts_match_statement())
    fail_unsupported(t.span, "'match' statements (structural pattern matching) are not supported in kernels; use if/elif");
  parse_simple_statements(out);
}

// `match` is a soft keyword (Python 3.10): a statement starting with the name `match` is a match
// statement when its line is a compound statement's header, ending with ':' (`match = 3`,
// `match(x)` and `match.group` are not). Brackets are skipped so a dict or slice's ':' is not it.
bool Parser::starts_match_statement() const {
  const Token& next = peek(1);
  if (next.kind == TokenKind::Newline || next.kind == TokenKind::End) return false;
  if (next.kind == TokenKind::Op && (next.text == "=" || next.text == "." || aug_op(next.text))) return false;
  int brackets = 0;
  const Token* last = nullptr;
  for (size_t i = 1;; ++i) {
    const Token& tok = peek(i);
    if (tok.kind == TokenKind::End || (brackets == 0 && tok.kind == TokenKind::Newline)) break;
    if (tok.kind == TokenKind::Op && (tok.text == "(" || tok.text == "[" || tok.text == "{")) ++brackets;
    if (tok.kind == TokenKind::Op && (tok.text == ")" || tok.text == "]" || tok.text == "}")) --brackets;
    last = &tok;
  }
  return last && last->kind == TokenKind::Op && last->text == ":";
}

// simple_stmts ::= simple_stmt (';' simple_stmt)* [';'] NEWLINE
void Parser::parse_simple_statements(Block& out) {
  out.push_back(parse_simple_statement());
  while (accept_op(";")) {
    if (peek().kind == TokenKind::Newline) break;
    out.push_back(parse_simple_statement());
  }
  expect_newline();
}

// simple_stmt ::= 'pass' | 'break' | 'continue' | return | import | from_import | assert | expr_stmt
StmtPtr Parser::parse_simple_statement() {
  const Token& t = peek();
  if (t.kind == TokenKind::Keyword) {
    if (const char* msg = unsupported_keyword_message(t.text)) fail_unsupported(t.span, msg);
    if (t.text == "pass") return std::make_unique<SimpleStmt>(StmtKind::Pass, advance().span);
    if (t.text == "break") return std::make_unique<SimpleStmt>(StmtKind::Break, advance().span);
    if (t.text == "continue") return std::make_unique<SimpleStmt>(StmtKind::Continue, advance().span);
    if (t.text == "return") return parse_return();
    if (t.text == "import") return parse_import();
    if (t.text == "from") return parse_from_import();
    if (t.text == "assert") return parse_assert();
    if (t.text == "raise") return parse_raise();
    if (t.text == "global" || t.text == "nonlocal") return parse_global();
    if (t.text == "del") return parse_del();
    if (t.text == "else" || t.text == "elif") fail(t, fmt::format("'{}' without a matching 'if'", t.text));
    if (t.text == "except" || t.text == "finally") fail(t, fmt::format("'{}' without a matching 'try'", t.text));
  }
  if (t.kind == TokenKind::Indent) fail(t, "unexpected indent");
  return parse_expression_statement();
}

// expr_stmt ::= star_expressions (('=' star_expressions)* | augop expression)
StmtPtr Parser::parse_expression_statement() {
  Span start = peek().span;
  ExprPtr first = parse_star_expressions();
  if (accept_op(":")) return parse_annotated_assignment(std::move(first), start);
  if (at_op(":=")) fail(peek(), "invalid syntax: an assignment expression (':=') at statement level needs parentheses");
  if (peek().kind == TokenKind::Op) {
    if (auto op = aug_op(peek().text)) {
      advance();
      check_target(*first, "augmented assignment");
      if (first->kind == ExprKind::Tuple || first->kind == ExprKind::List)
        fail_unsupported(first->span, "illegal expression for augmented assignment");
      ExprPtr value = parse_star_expressions();
      return std::make_unique<AugAssignStmt>(span_from(start), std::move(first), *op, std::move(value));
    }
  }
  if (!at_op("=")) return std::make_unique<ExprStmt>(span_from(start), std::move(first));
  auto assign = std::make_unique<AssignStmt>(start);
  ExprPtr value = std::move(first);
  while (accept_op("=")) {
    check_target(*value, "assignment");
    assign->targets.push_back(std::move(value));
    value = parse_star_expressions();
  }
  assign->value = std::move(value);
  assign->span = span_from(start);
  return assign;
}

// annotated_assignment ::= target ':' expression ['=' (star_expressions)]
StmtPtr Parser::parse_annotated_assignment(ExprPtr target, Span start) {
  if (target->kind != ExprKind::Name && target->kind != ExprKind::Attribute && target->kind != ExprKind::Subscript)
    throw NkiError(ErrorKind::Syntax, "only a single target (not a tuple) can be annotated", loc(target->span));
  ExprPtr annotation = parse_expression();
  if (!accept_op("=")) return std::make_unique<AnnAssignStmt>(span_from(start), std::move(target), std::move(annotation));
  auto assign = std::make_unique<AssignStmt>(start);
  assign->targets.push_back(std::move(target));
  assign->annotation = std::move(annotation);
  assign->value = parse_star_expressions();
  assign->span = span_from(start);
  return assign;
}

void Parser::check_target(const Expr& e, std::string_view context) {
  switch (e.kind) {
    case ExprKind::Name: case ExprKind::Attribute: case ExprKind::Subscript: return;
    case ExprKind::Starred: return check_target(*static_cast<const StarredExpr&>(e).value, context);
    case ExprKind::Tuple:
    case ExprKind::List: {
      int starred = 0;
      for (const auto& elt : static_cast<const SequenceExpr&>(e).elts) {
        starred += elt->kind == ExprKind::Starred;
        check_target(*elt, context);
      }
      if (starred > 1) throw NkiError(ErrorKind::Syntax, "multiple starred expressions in assignment", loc(e.span));
      return;
    }
    default:
      throw NkiError(ErrorKind::Syntax, fmt::format("cannot assign to {}", describe_target(e)), loc(e.span));
  }
}

// return_stmt ::= 'return' [star_expressions]
StmtPtr Parser::parse_return() {
  Span start = advance().span;
  ExprPtr value;
  if (peek().kind != TokenKind::Newline && !at_op(";")) value = parse_star_expressions();
  return std::make_unique<ReturnStmt>(span_from(start), std::move(value));
}

// import_stmt ::= 'import' dotted_name ['as' NAME] (',' dotted_name ['as' NAME])*
StmtPtr Parser::parse_import() {
  Span start = advance().span;
  auto stmt = std::make_unique<ImportStmt>(StmtKind::Import, start);
  do {
    ImportAlias alias;
    Span name_start = peek().span;
    alias.name = expect_name("after 'import'").text;
    while (accept_op(".")) alias.name += "." + expect_name("in module name").text;
    if (accept_keyword("as")) alias.asname = expect_name("after 'as'").text;
    alias.span = span_from(name_start);
    std::string bound = alias.asname.empty() ? alias.name.substr(0, alias.name.find('.')) : alias.asname;
    alias.target = std::make_unique<NameExpr>(alias.span, bound);
    stmt->names.push_back(std::move(alias));
  } while (accept_op(","));
  stmt->span = span_from(start);
  return stmt;
}

// from_import ::= 'from' dotted_name 'import' (NAME ['as' NAME] (',' ...)* | '(' ... ')')
StmtPtr Parser::parse_from_import() {
  Span start = advance().span;
  auto stmt = std::make_unique<ImportStmt>(StmtKind::ImportFrom, start);
  if (at_op(".") || at_op("...")) fail_unsupported(peek().span, "relative imports are not supported in kernels");
  stmt->module = expect_name("after 'from'").text;
  while (accept_op(".")) stmt->module += "." + expect_name("in module name").text;
  if (!accept_keyword("import")) fail(peek(), "expected 'import'");
  if (at_op("*")) fail_unsupported(peek().span, "'from ... import *' is not supported in kernels");
  bool paren = accept_op("(");
  do {
    if (paren && at_op(")")) break;
    ImportAlias alias;
    Span name_start = peek().span;
    alias.name = expect_name("after 'import'").text;
    if (accept_keyword("as")) alias.asname = expect_name("after 'as'").text;
    alias.span = span_from(name_start);
    alias.target = std::make_unique<NameExpr>(alias.span, alias.asname.empty() ? alias.name : alias.asname);
    stmt->names.push_back(std::move(alias));
  } while (accept_op(","));
  if (paren) expect_op(")", "to close the import list");
  stmt->span = span_from(start);
  return stmt;
}

// raise_stmt ::= 'raise' [expression ['from' expression]]
StmtPtr Parser::parse_raise() {
  Span start = advance().span;
  auto stmt = std::make_unique<RaiseStmt>(start);
  if (peek().kind != TokenKind::Newline && peek().kind != TokenKind::End && !at_op(";")) {
    stmt->exc = parse_expression();
    if (accept_keyword("from")) stmt->cause = parse_expression();
  }
  stmt->span = span_from(start);
  return stmt;
}

// global_stmt ::= ('global' | 'nonlocal') NAME (',' NAME)*
StmtPtr Parser::parse_global() {
  const Token& kw = advance();
  auto stmt = std::make_unique<GlobalStmt>(kw.span);
  stmt->nonlocal = kw.text == "nonlocal";
  do stmt->names.push_back(expect_name(fmt::format("after '{}'", kw.text)).text);
  while (accept_op(","));
  stmt->span = span_from(kw.span);
  return stmt;
}

// del_stmt ::= 'del' target (',' target)* [',']
StmtPtr Parser::parse_del() {
  Span start = advance().span;
  auto stmt = std::make_unique<DeleteStmt>(start);
  ExprPtr targets = parse_target_list();
  auto add = [&](ExprPtr t) {
    if (t->kind != ExprKind::Name && t->kind != ExprKind::Subscript && t->kind != ExprKind::Attribute)
      throw NkiError(ErrorKind::Syntax, fmt::format("cannot delete {}", t->kind == ExprKind::Call ? "function call" : "expression"),
                     loc(t->span));
    stmt->targets.push_back(std::move(t));
  };
  if (targets->kind == ExprKind::Tuple && !static_cast<SequenceExpr&>(*targets).parenthesized) {
    for (auto& t : static_cast<SequenceExpr&>(*targets).elts) add(std::move(t));
  } else {
    add(std::move(targets));
  }
  stmt->span = span_from(start);
  return stmt;
}

// assert_stmt ::= 'assert' expression [',' expression]
StmtPtr Parser::parse_assert() {
  Span start = advance().span;
  auto stmt = std::make_unique<AssertStmt>(start);
  stmt->test = parse_expression();
  if (accept_op(",")) stmt->msg = parse_expression();
  stmt->span = span_from(start);
  return stmt;
}

// block ::= ':' (simple_stmts | NEWLINE INDENT statement+ DEDENT)
Block Parser::parse_block(std::string_view what, const Token& opener) {
  expect_op(":", fmt::format("after the {} header", what));
  Block body;
  if (peek().kind != TokenKind::Newline) {
    parse_simple_statements(body);
    return body;
  }
  advance();
  while (peek().kind == TokenKind::Newline) advance();
  if (peek().kind != TokenKind::Indent) {
    NkiError err(ErrorKind::Syntax, fmt::format("expected an indented block after the {}", what), loc(peek().span));
    err.diag.notes.push_back({loc(opener.span), fmt::format("{} opened here", what)});
    throw err;
  }
  advance();
  while (peek().kind != TokenKind::Dedent && peek().kind != TokenKind::End) parse_statement(body);
  if (peek().kind == TokenKind::Dedent) advance();
  return body;
}

// if_stmt ::= 'if' expression block ('elif' expression block)* ['else' block]
StmtPtr Parser::parse_if(bool is_elif) {
  const Token& opener = advance();
  auto stmt = std::make_unique<IfStmt>(opener.span);
  stmt->is_elif = is_elif;
  stmt->test = parse_named_expression();
  stmt->span = span_from(opener.span);
  stmt->body = parse_block(is_elif ? "'elif' statement" : "'if' statement", opener);
  if (at_keyword("elif")) {
    stmt->orelse.push_back(parse_if(true));
  } else if (at_keyword("else")) {
    const Token& else_tok = advance();
    stmt->orelse = parse_block("'else' clause", else_tok);
  }
  return stmt;
}

// for_stmt ::= 'for' target_list 'in' star_expressions block
StmtPtr Parser::parse_for() {
  const Token& opener = advance();
  auto stmt = std::make_unique<ForStmt>(opener.span);
  stmt->target = parse_target_list();
  check_target(*stmt->target, "for loop");
  if (!accept_keyword("in")) fail(peek(), "expected 'in' after the for-loop target");
  stmt->iter = parse_star_expressions();
  stmt->span = span_from(opener.span);
  stmt->body = parse_block("'for' statement", opener);
  if (at_keyword("else")) {
    const Token& else_tok = advance();
    stmt->orelse = parse_block("'else' clause", else_tok);
  }
  return stmt;
}

// while_stmt ::= 'while' expression block
StmtPtr Parser::parse_while() {
  const Token& opener = advance();
  auto stmt = std::make_unique<WhileStmt>(opener.span);
  stmt->test = parse_named_expression();
  stmt->span = span_from(opener.span);
  stmt->body = parse_block("'while' statement", opener);
  if (at_keyword("else")) {
    const Token& else_tok = advance();
    stmt->orelse = parse_block("'else' clause", else_tok);
  }
  return stmt;
}

// with_stmt ::= 'with' with_item (',' with_item)* block   where with_item ::= expression ['as' target]
// (also the parenthesized form 'with (a as x, b):')
StmtPtr Parser::parse_with() {
  const Token& opener = advance();
  auto stmt = std::make_unique<WithStmt>(opener.span);
  bool paren = false;
  if (at_op("(")) {
    // `with (a, b):` is one context manager (a tuple) unless an item has `as`: look for `as`
    // at depth 1 before the closing parenthesis.
    int depth = 0;
    for (size_t i = 0; peek(i).kind != TokenKind::End && peek(i).kind != TokenKind::Newline; ++i) {
      const Token& t = peek(i);
      if (t.kind == TokenKind::Op && (t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
      else if (t.kind == TokenKind::Op && (t.text == ")" || t.text == "]" || t.text == "}")) {
        if (--depth == 0) {
          paren = peek(i + 1).kind == TokenKind::Op && peek(i + 1).text == ":";
          break;
        }
      } else if (depth == 1 && t.kind == TokenKind::Keyword && t.text == "as") {
        paren = true;
      }
    }
    if (paren) advance();
  }
  do {
    if (paren && at_op(")")) break;
    WithItem item;
    item.context = parse_expression();
    if (accept_keyword("as")) {
      item.target = parse_binary(0);
      check_target(*item.target, "with statement");
    }
    stmt->items.push_back(std::move(item));
  } while (accept_op(","));
  if (paren) expect_op(")", "to close the with items");
  stmt->span = span_from(opener.span);
  stmt->body = parse_block("'with' statement", opener);
  return stmt;
}

// try_stmt ::= 'try' block (except_clause block)+ ['else' block] ['finally' block] | 'try' block 'finally' block
StmtPtr Parser::parse_try() {
  const Token& opener = advance();
  auto stmt = std::make_unique<TryStmt>(opener.span);
  stmt->body = parse_block("'try' statement", opener);
  while (at_keyword("except")) {
    const Token& ex = advance();
    ExceptHandler h;
    h.span = ex.span;
    if (at_op("*")) fail_unsupported(peek().span, "'except*' (exception groups) is not supported in kernels");
    if (!at_op(":")) {
      h.type = parse_expression();
      if (at_op(",")) {
        // `except A, B:` is invalid in Python 3; `except (A, B):` is the tuple form.
        fail(peek(), "multiple exception types must be parenthesized");
      }
      if (accept_keyword("as")) {
        const Token& name = expect_name("after 'as'");
        h.target = std::make_unique<NameExpr>(name.span, name.text);
      }
    }
    h.body = parse_block("'except' clause", ex);
    stmt->handlers.push_back(std::move(h));
  }
  if (!stmt->handlers.empty() && at_keyword("else")) {
    const Token& else_tok = advance();
    stmt->orelse = parse_block("'else' clause", else_tok);
  }
  if (at_keyword("finally")) {
    const Token& fin = advance();
    stmt->finalbody = parse_block("'finally' clause", fin);
  }
  if (stmt->handlers.empty() && stmt->finalbody.empty())
    fail(peek(), "expected 'except' or 'finally' block");
  return stmt;
}

// class_def ::= 'class' NAME ['(' [arguments] ')'] block
StmtPtr Parser::parse_class(std::vector<ExprPtr> decorators, Span start) {
  const Token& opener = advance();
  auto stmt = std::make_unique<ClassDefStmt>(start);
  stmt->decorators = std::move(decorators);
  const Token& name = expect_name("after 'class'");
  stmt->code = std::make_shared<FunctionCode>();
  stmt->code->name = name.text;
  stmt->code->class_body = true;
  stmt->target_owner = std::make_unique<NameExpr>(name.span, name.text);
  stmt->target = static_cast<NameExpr*>(stmt->target_owner.get());
  if (accept_op("(")) {
    while (!at_op(")")) {
      if (peek().kind == TokenKind::Name && peek(1).kind == TokenKind::Op && peek(1).text == "=")
        fail_unsupported(peek().span, "class keywords (metaclass=...) are not supported in kernels");
      ExprPtr base = parse_expression();
      // `class A(object)`: every class derives from object (and the name is not available).
      if (!(base->kind == ExprKind::Name && static_cast<NameExpr&>(*base).id == "object")) stmt->bases.push_back(std::move(base));
      if (!accept_op(",")) break;
    }
    expect_op(")", "to close the base class list");
  }
  stmt->span = span_from(start);
  stmt->code->span = stmt->span;
  stmt->code->body = parse_block("class definition", opener);
  return stmt;
}

// decorated ::= ('@' (NAME | attribute | call) NEWLINE)+ funcdef
StmtPtr Parser::parse_decorated() {
  Span start = peek().span;
  std::vector<ExprPtr> decorators;
  while (accept_op("@")) {
    ExprPtr d = parse_expression();
    const Expr* base = d.get();
    if (base->kind == ExprKind::Call) base = static_cast<const CallExpr*>(base)->func.get();
    while (base->kind == ExprKind::Attribute) base = static_cast<const AttributeExpr*>(base)->value.get();
    if (base->kind != ExprKind::Name)
      fail_unsupported(d->span, "decorators other than names, attributes and calls are not supported in kernels");
    decorators.push_back(std::move(d));
    expect_newline();
  }
  if (at_keyword("class")) return parse_class(std::move(decorators), start);
  if (!at_keyword("def")) fail(peek(), "expected 'def' or 'class' after decorators");
  return parse_def(std::move(decorators), start);
}

// funcdef ::= 'def' NAME '(' parameters ')' ['->' expression] block
StmtPtr Parser::parse_def(std::vector<ExprPtr> decorators, Span start) {
  const Token& opener = advance();
  auto stmt = std::make_unique<FunctionDefStmt>(start);
  stmt->decorators = std::move(decorators);
  stmt->code = std::make_shared<FunctionCode>();
  const Token& name = expect_name("after 'def'");
  stmt->code->name = name.text;
  stmt->target_owner = std::make_unique<NameExpr>(name.span, name.text);
  stmt->target = static_cast<NameExpr*>(stmt->target_owner.get());
  expect_op("(", "after the function name");
  parse_parameters(*stmt->code, false);
  expect_op(")", "to close the parameter list");
  if (accept_op("->")) stmt->returns = parse_expression();
  stmt->span = span_from(start);
  stmt->code->span = stmt->span;
  stmt->code->body = parse_block("function definition", opener);
  return stmt;
}

// parameters ::= param (',' param)* where param ::= NAME [':' expr] ['=' expr] | '*' [NAME] | '**' NAME
void Parser::parse_parameters(FunctionCode& code, bool lambda) {
  bool keyword_only = false, seen_default = false;
  std::string_view close = lambda ? ":" : ")";
  while (!at_op(close)) {
    Parameter p;
    Span start = peek().span;
    if (at_op("/")) {  // `def f(i, j, /, x)`: the parameters before it are positional-only (Python 3.8)
      const Token& slash = peek();
      bool first = std::none_of(code.params.begin(), code.params.end(), [](const Parameter& q) { return q.positional_only; });
      if (code.params.empty() || keyword_only || !first) fail(slash, "'/' must follow at least one positional parameter, once, before '*'");
      for (Parameter& q : code.params) q.positional_only = true;
      advance();
      if (!accept_op(",")) break;
      continue;
    }
    if (accept_op("**")) {
      p.kind = ParamKind::VarKwargs;
    } else if (accept_op("*")) {
      keyword_only = true;
      if (at_op(",")) {
        advance();
        continue;
      }
      p.kind = ParamKind::VarArgs;
    } else {
      p.kind = keyword_only ? ParamKind::KeywordOnly : ParamKind::Positional;
    }
    p.name = expect_name("in the parameter list").text;
    for (const Parameter& other : code.params)
      if (other.name == p.name)
        throw NkiError(ErrorKind::Syntax, fmt::format("duplicate argument '{}' in function definition", p.name), loc(start));
    if (!lambda && accept_op(":")) p.annotation = parse_expression();
    if (accept_op("=")) {
      if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::VarKwargs) fail(peek(), "variadic parameters cannot have a default");
      p.default_value = parse_expression();
      if (p.kind == ParamKind::Positional) seen_default = true;
    } else if (p.kind == ParamKind::Positional && seen_default) {
      throw NkiError(ErrorKind::Syntax, "non-default argument follows default argument", loc(start));
    }
    p.span = span_from(start);
    bool var_kwargs = p.kind == ParamKind::VarKwargs;
    code.params.push_back(std::move(p));
    if (var_kwargs && !at_op(close)) {
      accept_op(",");
      if (!at_op(close)) fail(peek(), "parameters cannot follow '**kwargs'");
    }
    if (!accept_op(",")) break;
  }
}

}  // namespace nki::detail

namespace nki {

namespace {

// Attaches comments to statements: own-line comments to the next statement, end-of-line comments
// to the last statement that starts on or before their line.
void collect_statements(Block& block, std::vector<Stmt*>& out) {
  for (auto& s : block) {
    out.push_back(s.get());
    switch (s->kind) {
      case StmtKind::If: {
        auto& i = static_cast<IfStmt&>(*s);
        collect_statements(i.body, out);
        collect_statements(i.orelse, out);
        break;
      }
      case StmtKind::For:
        collect_statements(static_cast<ForStmt&>(*s).body, out);
        collect_statements(static_cast<ForStmt&>(*s).orelse, out);
        break;
      case StmtKind::While:
        collect_statements(static_cast<WhileStmt&>(*s).body, out);
        collect_statements(static_cast<WhileStmt&>(*s).orelse, out);
        break;
      case StmtKind::FunctionDef: collect_statements(static_cast<FunctionDefStmt&>(*s).code->body, out); break;
      case StmtKind::ClassDef: collect_statements(static_cast<ClassDefStmt&>(*s).code->body, out); break;
      case StmtKind::With: collect_statements(static_cast<WithStmt&>(*s).body, out); break;
      case StmtKind::Try: {
        auto& t = static_cast<TryStmt&>(*s);
        collect_statements(t.body, out);
        for (auto& h : t.handlers) collect_statements(h.body, out);
        collect_statements(t.orelse, out);
        collect_statements(t.finalbody, out);
        break;
      }
      default: break;
    }
  }
}

// Statements are collected in source order and comments arrive in line order, so both searches
// move forward only: linear in the file (a scan from the first statement for every end-of-line
// comment made an 8 MB file take 18.6 s).
void attach_comments(ModuleAst& module, const std::vector<Comment>& comments) {
  std::vector<Stmt*> stmts;
  collect_statements(module.body, stmts);
  size_t next = 0;       // first statement starting after the comment's line
  size_t started = 0;    // statements starting on or before the comment's line
  for (const Comment& c : comments) {
    if (c.own_line) {
      while (next < stmts.size() && stmts[next]->span.line <= c.span.line) ++next;
      if (next < stmts.size()) stmts[next]->comments_before.push_back(c.text);
      else module.trailing_comments.push_back(c.text);
      continue;
    }
    while (started < stmts.size() && stmts[started]->span.line <= c.span.line) ++started;
    Stmt* owner = started > 0 ? stmts[started - 1] : nullptr;
    if (!owner) {
      module.trailing_comments.push_back(c.text);
    } else {
      owner->comment_after += (owner->comment_after.empty() ? "" : " ") + c.text;
    }
  }
}

}  // namespace

SourceLoc loc_of(const std::shared_ptr<const SourceFile>& file, const Span& span) {
  SourceLoc loc{file, span.line, span.col, 0};
  if (span.end_line == span.line && span.end_col > span.col) loc.end_col = span.end_col;
  else if (span.end_line > span.line) loc.end_col = uint32_t(file->line_text(span.line).size()) + 1;
  return loc;
}

std::shared_ptr<ModuleAst> parse_module(const std::shared_ptr<const SourceFile>& src) {
  LexResult lexed = lex(src);
  auto module = std::make_shared<ModuleAst>();
  module->file = src;
  detail::Parser parser(src, std::move(lexed.tokens));
  module->body = parser.parse_file();
  attach_comments(*module, lexed.comments);
  return module;
}

}  // namespace nki
