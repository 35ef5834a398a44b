// Expression grammar of the Python subset, by increasing precedence.
#include <fmt/core.h>

#include "nki/core_types.h"
#include "nki/parser_impl.h"

namespace nki::detail {

namespace {

struct BinaryLevel {
  const char* ops[5];
  BinOp kinds[5];
};
// Binary operator levels from loosest to tightest: | ^ & (<< >>) (+ -) (* / // % @).
const BinaryLevel kLevels[] = {
    {{"|"}, {BinOp::BitOr}},
    {{"^"}, {BinOp::BitXor}},
    {{"&"}, {BinOp::BitAnd}},
    {{"<<", ">>"}, {BinOp::LShift, BinOp::RShift}},
    {{"+", "-"}, {BinOp::Add, BinOp::Sub}},
    {{"*", "/", "//", "%", "@"}, {BinOp::Mul, BinOp::Div, BinOp::FloorDiv, BinOp::Mod, BinOp::MatMul}},
};
constexpr int kNumLevels = sizeof(kLevels) / sizeof(kLevels[0]);

std::optional<CmpKind> comparison_op(const Token& t, const Token& next) {
  if (t.kind == TokenKind::Op) {
    if (t.text == "==") return CmpKind::Eq;
    if (t.text == "!=") return CmpKind::Ne;
    if (t.text == "<") return CmpKind::Lt;
    if (t.text == "<=") return CmpKind::Le;
    if (t.text == ">") return CmpKind::Gt;
    if (t.text == ">=") return CmpKind::Ge;
  }
  if (t.kind != TokenKind::Keyword) return std::nullopt;
  if (t.text == "in") return CmpKind::In;
  if (t.text == "is") return next.kind == TokenKind::Keyword && next.text == "not" ? CmpKind::IsNot : CmpKind::Is;
  if (t.text == "not" && next.kind == TokenKind::Keyword && next.text == "in") return CmpKind::NotIn;
  return std::nullopt;
}

bool starts_expression(const Token& t) {
  switch (t.kind) {
    case TokenKind::Name: case TokenKind::Int: case TokenKind::Float: case TokenKind::String: return true;
    case TokenKind::Keyword:
      return t.text == "None" || t.text == "True" || t.text == "False" || t.text == "not" || t.text == "lambda" ||
             t.text == "await" || t.text == "yield";
    case TokenKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~" ||
             t.text == "..." || t.text == "*";
    default: return false;
  }
}

}  // namespace

// ---- tokens ----
const Token& Parser::peek(size_t ahead) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
const Token& Parser::advance() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  last_ = t.span;
  return t;
}
bool Parser::at_op(std::string_view op) const { return peek().kind == TokenKind::Op && peek().text == op; }
bool Parser::at_keyword(std::string_view kw) const { return peek().kind == TokenKind::Keyword && peek().text == kw; }
bool Parser::accept_op(std::string_view op) {
  if (!at_op(op)) return false;
  advance();
  return true;
}
bool Parser::accept_keyword(std::string_view kw) {
  if (!at_keyword(kw)) return false;
  advance();
  return true;
}
const Token& Parser::expect_op(std::string_view op, std::string_view context) {
  if (!at_op(op)) fail(peek(), fmt::format("expected '{}' {}", op, context));
  return advance();
}
const Token& Parser::expect_name(std::string_view context) {
  if (peek().kind != TokenKind::Name) fail(peek(), fmt::format("expected a name {}", context));
  return advance();
}
void Parser::expect_newline() {
  if (peek().kind == TokenKind::Newline) {
    advance();
    return;
  }
  if (peek().kind == TokenKind::End || peek().kind == TokenKind::Dedent) return;
  fail(peek(), "invalid syntax");
}
Span Parser::span_from(const Span& start) const { return join(start, last_); }
SourceLoc Parser::loc(const Span& s) const { return loc_of(src_, s); }

void Parser::fail(const Token& t, const std::string& message) const {
  std::string msg = message;
  if (message == "invalid syntax" || message.rfind("expected", 0) == 0) {
    if (t.kind == TokenKind::End) msg += " (unexpected end of file)";
    else if (t.kind == TokenKind::Newline) msg += " (unexpected end of line)";
    else if (t.kind == TokenKind::Indent) msg += " (unexpected indent)";
    else if (t.kind == TokenKind::Dedent) msg += " (unexpected dedent)";
    else msg += fmt::format(" (found '{}')", t.text);
  }
  throw NkiError(ErrorKind::Syntax, msg, loc(t.span));
}
void Parser::fail_unsupported(const Span& s, const std::string& message) const {
  throw NkiError(ErrorKind::Unsupported, message, loc(s));
}

ExprPtr Parser::parse_standalone_expression() {
  ExprPtr e = parse_star_expressions();
  while (peek().kind == TokenKind::Newline) advance();
  if (peek().kind != TokenKind::End) fail(peek(), "invalid syntax");
  return e;
}

// ---- expressions ----

// star_expressions ::= star_expr (',' star_expr)* [',']
ExprPtr Parser::parse_star_expressions() {
  Span start = peek().span;
  ExprPtr first = parse_star_or_expression();
  if (!at_op(",")) return first;
  auto tuple = std::make_unique<SequenceExpr>(ExprKind::Tuple, start);
  tuple->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (!starts_expression(peek())) break;
    tuple->elts.push_back(parse_star_or_expression());
  }
  tuple->span = span_from(start);
  return tuple;
}

// star_expr ::= '*' bitor | expression   (named: also NAME ':=' expression)
ExprPtr Parser::parse_star_or_expression(bool named) {
  if (!at_op("*")) return named ? parse_named_expression() : parse_expression();
  Span start = advance().span;
  ExprPtr value = parse_binary(0);
  return std::make_unique<StarredExpr>(span_from(start), std::move(value));
}

// named_expression ::= NAME ':=' expression | expression
ExprPtr Parser::parse_named_expression() {
  if (peek().kind != TokenKind::Name || !(peek(1).kind == TokenKind::Op && peek(1).text == ":="))
    return parse_expression();
  DepthGuard guard(*this);
  const Token& name = advance();
  advance();
  ExprPtr target = std::make_unique<NameExpr>(name.span, name.text);
  ExprPtr value = parse_expression();
  return std::make_unique<NamedExpr>(span_from(name.span), std::move(target), std::move(value));
}

// expression ::= or_test ['if' or_test 'else' expression] | lambda
ExprPtr Parser::parse_expression() {
  DepthGuard guard(*this);
  if (at_keyword("lambda")) return parse_lambda();
  if (at_keyword("yield")) fail_unsupported(peek().span, "'yield' (generators) is not supported in kernels");
  Span start = peek().span;
  ExprPtr body = parse_or();
  if (at_op(":=")) {
    if (body->kind != ExprKind::Name)
      throw NkiError(ErrorKind::Syntax, "cannot use an assignment expression (':=') with this target; the target must be a name",
                     loc(body->span));
    fail(peek(), "invalid syntax: an assignment expression (':=') needs parentheses here");
  }
  if (!accept_keyword("if")) return body;
  ExprPtr test = parse_or();
  if (!accept_keyword("else")) fail(peek(), "expected 'else' in the conditional expression");
  ExprPtr orelse = parse_expression();
  return std::make_unique<IfExpExpr>(span_from(start), std::move(test), std::move(body), std::move(orelse));
}

// or_test ::= and_test ('or' and_test)*
ExprPtr Parser::parse_or() {
  Span start = peek().span;
  ExprPtr first = parse_and();
  if (!at_keyword("or")) return first;
  auto node = std::make_unique<BoolOpExpr>(start, false);
  node->values.push_back(std::move(first));
  while (accept_keyword("or")) node->values.push_back(parse_and());
  node->span = span_from(start);
  return node;
}

// and_test ::= not_test ('and' not_test)*
ExprPtr Parser::parse_and() {
  Span start = peek().span;
  ExprPtr first = parse_not();
  if (!at_keyword("and")) return first;
  auto node = std::make_unique<BoolOpExpr>(start, true);
  node->values.push_back(std::move(first));
  while (accept_keyword("and")) node->values.push_back(parse_not());
  node->span = span_from(start);
  return node;
}

// not_test ::= 'not' not_test | comparison
ExprPtr Parser::parse_not() {
  if (!at_keyword("not")) return parse_comparison();
  DepthGuard guard(*this);
  Span start = advance().span;
  ExprPtr operand = parse_not();
  return std::make_unique<UnaryOpExpr>(span_from(start), UnOp::Not, std::move(operand));
}

// comparison ::= bitor (comp_op bitor)*
ExprPtr Parser::parse_comparison() {
  Span start = peek().span;
  ExprPtr first = parse_binary(0);
  auto op = comparison_op(peek(), peek(1));
  if (!op) return first;
  auto node = std::make_unique<CompareExpr>(start);
  node->left = std::move(first);
  while ((op = comparison_op(peek(), peek(1)))) {
    advance();
    if (*op == CmpKind::IsNot || *op == CmpKind::NotIn) advance();
    node->ops.push_back(*op);
    node->comparators.push_back(parse_binary(0));
  }
  node->span = span_from(start);
  return node;
}

// bitor ::= bitxor ('|' bitxor)* ... term ::= factor (('*'|'/'|'//'|'%'|'@') factor)*
ExprPtr Parser::parse_binary(int level) {
  if (level == kNumLevels) return parse_factor();
  Span start = peek().span;
  ExprPtr left = parse_binary(level + 1);
  for (int chained = 0;; ++chained) {
    // Each operator deepens the (left-nested) tree that the resolver, the interpreter and the
    // destructors walk recursively: `1+1+...+1` with 50,000 terms must be an error, not a crash.
    if (chained > 500) fail(peek(), "expression is too long: more than 500 chained operators (split it)");
    const BinaryLevel& lv = kLevels[level];
    std::optional<BinOp> op;
    for (int i = 0; i < 5 && lv.ops[i]; ++i)
      if (at_op(lv.ops[i])) op = lv.kinds[i];
    if (!op) return left;
    advance();
    ExprPtr right = parse_binary(level + 1);
    left = std::make_unique<BinOpExpr>(span_from(start), *op, std::move(left), std::move(right));
  }
}

// factor ::= ('+' | '-' | '~') factor | power
ExprPtr Parser::parse_factor() {
  std::optional<UnOp> op;
  if (at_op("-")) op = UnOp::Neg;
  else if (at_op("+")) op = UnOp::Pos;
  else if (at_op("~")) op = UnOp::Invert;
  if (!op) return parse_power();
  DepthGuard guard(*this);
  Span start = advance().span;
  ExprPtr operand = parse_factor();
  return std::make_unique<UnaryOpExpr>(span_from(start), *op, std::move(operand));
}

// power ::= primary ['**' factor]
ExprPtr Parser::parse_power() {
  if (at_keyword("await")) fail_unsupported(peek().span, "'async' code is not supported in kernels");
  Span start = peek().span;
  ExprPtr base = parse_primary();
  if (!accept_op("**")) return base;
  DepthGuard guard(*this);
  ExprPtr exponent = parse_factor();
  return std::make_unique<BinOpExpr>(span_from(start), BinOp::Pow, std::move(base), std::move(exponent));
}

// primary ::= atom ('.' NAME | '(' arguments ')' | '[' slices ']')*
ExprPtr Parser::parse_primary() {
  Span start = peek().span;
  ExprPtr e = parse_atom();
  for (int trailers = 0;; ++trailers) {
    if (trailers > 500) fail(peek(), "code is nested too deeply");
    if (accept_op(".")) {
      const Token& name = expect_name("after '.'");
      e = std::make_unique<AttributeExpr>(span_from(start), std::move(e), name.text, name.span);
    } else if (at_op("(")) {
      e = parse_call(std::move(e));
    } else if (at_op("[")) {
      e = parse_subscript(std::move(e));
    } else {
      return e;
    }
  }
}

// atom ::= NAME | NUMBER | STRING+ | 'None' | 'True' | 'False' | '...' | '(' ')' | '[' ']' | '{' '}'
ExprPtr Parser::parse_atom() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Name: advance(); return std::make_unique<NameExpr>(t.span, t.text);
    case TokenKind::Int: advance(); return std::make_unique<ConstantExpr>(t.span, Value::from_int(t.int_value));
    case TokenKind::Float: advance(); return std::make_unique<ConstantExpr>(t.span, Value::from_float(t.float_value));
    case TokenKind::String: return parse_strings();
    case TokenKind::Keyword:
      if (t.text == "None") return advance(), std::make_unique<ConstantExpr>(t.span, Value());
      if (t.text == "True") return advance(), std::make_unique<ConstantExpr>(t.span, Value::from_bool(true));
      if (t.text == "False") return advance(), std::make_unique<ConstantExpr>(t.span, Value::from_bool(false));
      if (t.text == "yield") fail_unsupported(t.span, "'yield' (generators) is not supported in kernels");
      if (t.text == "await" || t.text == "async") fail_unsupported(t.span, "'async' code is not supported in kernels");
      if (t.text == "lambda") return parse_lambda();
      break;
    case TokenKind::Op: {
      DepthGuard guard(*this);
      if (t.text == "...") return advance(), std::make_unique<ConstantExpr>(t.span, Value(EllipsisObj::instance()));
      if (t.text == "(") return parse_paren(advance());
      if (t.text == "[") return parse_list_display(advance());
      if (t.text == "{") return parse_brace_display(advance());
      break;
    }
    default: break;
  }
  fail(t, "invalid syntax");
}

// paren ::= '(' [star_expressions | expression comp_for] ')'
ExprPtr Parser::parse_paren(const Token& open) {
  Span start = open.span;
  if (accept_op(")")) {
    auto empty = std::make_unique<SequenceExpr>(ExprKind::Tuple, span_from(start));
    empty->parenthesized = true;
    return empty;
  }
  if (at_keyword("yield")) fail_unsupported(peek().span, "'yield' (generators) is not supported in kernels");
  ExprPtr first = parse_star_or_expression(true);
  if (at_keyword("for") || at_keyword("async")) {
    auto gen = std::make_unique<ComprehensionExpr>(ExprKind::GeneratorExp, start);
    gen->elt = std::move(first);
    parse_comprehension_clauses(gen->generators);
    expect_op(")", "to close the generator expression");
    gen->span = span_from(start);
    return gen;
  }
  if (accept_op(")")) {
    if (first->kind == ExprKind::Starred) fail(peek(), "cannot use starred expression here");
    return first;
  }
  auto tuple = std::make_unique<SequenceExpr>(ExprKind::Tuple, start);
  tuple->parenthesized = true;
  tuple->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_op(")")) break;
    tuple->elts.push_back(parse_star_or_expression(true));
  }
  expect_op(")", "to close the parenthesis");
  tuple->span = span_from(start);
  return tuple;
}

// list ::= '[' [star_expr (',' star_expr)* [','] | expression comp_for] ']'
ExprPtr Parser::parse_list_display(const Token& open) {
  Span start = open.span;
  auto list = std::make_unique<SequenceExpr>(ExprKind::List, start);
  if (accept_op("]")) {
    list->span = span_from(start);
    return list;
  }
  ExprPtr first = parse_star_or_expression(true);
  if (at_keyword("for") || at_keyword("async")) {
    auto comp = std::make_unique<ComprehensionExpr>(ExprKind::ListComp, start);
    comp->elt = std::move(first);
    parse_comprehension_clauses(comp->generators);
    expect_op("]", "to close the list comprehension");
    comp->span = span_from(start);
    return comp;
  }
  list->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_op("]")) break;
    list->elts.push_back(parse_star_or_expression(true));
  }
  expect_op("]", "to close the list");
  list->span = span_from(start);
  return list;
}

// dict_or_set ::= '{' [kv (',' kv)* | expr (',' expr)* | kv comp_for | expr comp_for] '}'
ExprPtr Parser::parse_brace_display(const Token& open) {
  Span start = open.span;
  if (accept_op("}")) return std::make_unique<DictExpr>(span_from(start));
  auto parse_item = [&](ExprPtr& key, ExprPtr& value) {
    if (accept_op("**")) {
      value = parse_binary(0);
      return;
    }
    key = parse_star_or_expression(true);
    if (accept_op(":")) value = parse_expression();
  };
  ExprPtr key, value;
  parse_item(key, value);
  bool is_dict = value != nullptr;
  if (at_keyword("for")) {
    if (!key) fail(peek(), "dict unpacking cannot be used in dict comprehension");
    auto comp = std::make_unique<ComprehensionExpr>(is_dict ? ExprKind::DictComp : ExprKind::SetComp, start);
    comp->elt = std::move(key);
    comp->value = std::move(value);
    parse_comprehension_clauses(comp->generators);
    expect_op("}", "to close the comprehension");
    comp->span = span_from(start);
    return comp;
  }
  if (is_dict) {
    auto dict = std::make_unique<DictExpr>(start);
    dict->keys.push_back(std::move(key));
    dict->values.push_back(std::move(value));
    while (accept_op(",") && !at_op("}")) {
      ExprPtr k, v;
      parse_item(k, v);
      if (!v) fail(peek(), "expected ':' in the dict literal");
      dict->keys.push_back(std::move(k));
      dict->values.push_back(std::move(v));
    }
    expect_op("}", "to close the dict");
    dict->span = span_from(start);
    return dict;
  }
  auto set = std::make_unique<SequenceExpr>(ExprKind::Set, start);
  set->elts.push_back(std::move(key));
  while (accept_op(",") && !at_op("}")) set->elts.push_back(parse_star_or_expression(true));
  expect_op("}", "to close the set");
  set->span = span_from(start);
  return set;
}

// comp_for ::= ('for' target_list 'in' or_test ('if' or_test)*)+
void Parser::parse_comprehension_clauses(std::vector<Comprehension>& out) {
  while (at_keyword("for") || at_keyword("async")) {
    if (at_keyword("async")) fail_unsupported(peek().span, "'async' code is not supported in kernels");
    advance();
    Comprehension c;
    c.target = parse_target_list();
    check_target(*c.target, "comprehension");
    if (!accept_keyword("in")) fail(peek(), "expected 'in' in the comprehension");
    c.iter = parse_or();
    while (accept_keyword("if")) c.ifs.push_back(parse_or());
    out.push_back(std::move(c));
  }
}

// target_list ::= target (',' target)* [',']   (targets are bitor-level expressions)
ExprPtr Parser::parse_target_list() {
  Span start = peek().span;
  auto one = [&]() -> ExprPtr {
    if (!at_op("*")) return parse_binary(0);
    Span s = advance().span;
    ExprPtr v = parse_binary(0);
    return std::make_unique<StarredExpr>(span_from(s), std::move(v));
  };
  ExprPtr first = one();
  if (!at_op(",")) return first;
  auto tuple = std::make_unique<SequenceExpr>(ExprKind::Tuple, start);
  tuple->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_keyword("in") || at_op("=")) break;
    tuple->elts.push_back(one());
  }
  tuple->span = span_from(start);
  return tuple;
}

// call ::= primary '(' [arg (',' arg)* [',']] ')' where arg ::= expr | NAME '=' expr | '*' expr | '**' expr
ExprPtr Parser::parse_call(ExprPtr func) {
  Span start = func->span;
  const Token& open = advance();
  auto call = std::make_unique<CallExpr>(start);
  call->func = std::move(func);
  while (!at_op(")")) {
    Span arg_start = peek().span;
    if (accept_op("**")) {
      call->keywords.push_back({"", parse_expression(), span_from(arg_start)});
    } else if (peek().kind == TokenKind::Name && peek(1).kind == TokenKind::Op && peek(1).text == "=") {
      std::string name = advance().text;
      advance();
      for (const Keyword& k : call->keywords)
        if (k.name == name) throw NkiError(ErrorKind::Syntax, fmt::format("keyword argument repeated: {}", name), loc(arg_start));
      call->keywords.push_back({name, parse_expression(), span_from(arg_start)});
    } else {
      if (!call->keywords.empty() && !at_op("*"))
        fail(peek(), "positional argument follows keyword argument");
      ExprPtr arg = parse_star_or_expression(true);
      if (at_keyword("for")) {
        auto gen = std::make_unique<ComprehensionExpr>(ExprKind::GeneratorExp, arg->span);
        gen->elt = std::move(arg);
        parse_comprehension_clauses(gen->generators);
        gen->span = span_from(gen->span);
        arg = std::move(gen);
      }
      call->args.push_back(std::move(arg));
    }
    if (!accept_op(",")) break;
  }
  if (!at_op(")")) {
    NkiError err(ErrorKind::Syntax, "expected ')' to close the call" +
                                        (peek().kind == TokenKind::End ? std::string(" (unexpected end of file)")
                                                                        : fmt::format(" (found '{}')", peek().text)),
                 loc(peek().span));
    err.diag.notes.push_back({loc(open.span), "call opened here"});
    throw err;
  }
  advance();
  call->span = span_from(start);
  return call;
}

// subscript ::= primary '[' slice_item (',' slice_item)* [','] ']'
ExprPtr Parser::parse_subscript(ExprPtr value) {
  Span start = value->span;
  Span open = advance().span;
  ExprPtr index = parse_slice_item();
  if (at_op(",")) {
    auto tuple = std::make_unique<SequenceExpr>(ExprKind::Tuple, index->span);
    tuple->elts.push_back(std::move(index));
    while (accept_op(",")) {
      if (at_op("]")) break;
      tuple->elts.push_back(parse_slice_item());
    }
    tuple->span = span_from(tuple->span);
    index = std::move(tuple);
  }
  expect_op("]", "to close the subscript");
  (void)open;
  return std::make_unique<SubscriptExpr>(span_from(start), std::move(value), std::move(index));
}

// slice_item ::= expression | [expression] ':' [expression] [':' [expression]] | '*' expression
ExprPtr Parser::parse_slice_item() {
  Span start = peek().span;
  ExprPtr lower;
  if (!at_op(":")) {
    bool bare_walrus = peek().kind == TokenKind::Name && peek(1).kind == TokenKind::Op && peek(1).text == ":=";
    lower = parse_star_or_expression(true);
    if (!at_op(":")) return lower;
    if (bare_walrus)
      throw NkiError(ErrorKind::Syntax, "an assignment expression in a slice bound needs parentheses", loc(lower->span));
  }
  auto slice = std::make_unique<SliceExpr>(start);
  slice->lower = std::move(lower);
  advance();
  if (!at_op(":") && !at_op(",") && !at_op("]")) slice->upper = parse_expression();
  if (accept_op(":") && !at_op(",") && !at_op("]")) slice->step = parse_expression();
  slice->span = span_from(start);
  return slice;
}

// lambda ::= 'lambda' [parameters] ':' expression
ExprPtr Parser::parse_lambda() {
  Span start = advance().span;
  auto code = std::make_shared<FunctionCode>();
  code->name = "<lambda>";
  parse_parameters(*code, true);
  expect_op(":", "after the lambda parameters");
  code->lambda_body = parse_expression();
  code->span = span_from(start);
  return std::make_unique<LambdaExpr>(code->span, code);
}

// strings ::= STRING+   (adjacent literals concatenate; any f-string makes the result an f-string)
ExprPtr Parser::parse_strings() {
  Span start = peek().span;
  std::vector<ExprPtr> pieces;
  bool any_f = false;
  while (peek().kind == TokenKind::String) {
    const Token& t = advance();
    any_f |= t.is_fstring;
    pieces.push_back(t.is_fstring ? parse_fstring(t) : std::make_unique<ConstantExpr>(t.span, make_str(t.str_value)));
  }
  Span span = span_from(start);
  if (!any_f) {
    std::string s;
    for (auto& p : pieces) s += static_cast<ConstantExpr&>(*p).value.str();
    return std::make_unique<ConstantExpr>(span, make_str(std::move(s)));
  }
  auto out = std::make_unique<FStringExpr>(span);
  for (auto& p : pieces) {
    std::vector<FStringPart> parts;
    if (p->kind == ExprKind::Constant) parts.push_back({static_cast<ConstantExpr&>(*p).value.str(), nullptr, 0, "", ""});
    else parts = std::move(static_cast<FStringExpr&>(*p).parts);
    for (auto& part : parts) {
      // Literal-only parts merge into their neighbours, so the printed single f-string parses back
      // to the same parts.
      if (!out->parts.empty() && !out->parts.back().expr) {
        part.literal = out->parts.back().literal + part.literal;
        out->parts.pop_back();
      }
      out->parts.push_back(std::move(part));
    }
  }
  return out;
}

}  // namespace nki::detail
