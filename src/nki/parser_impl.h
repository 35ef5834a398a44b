// Internal: the Parser class shared by parse_stmt.cpp (statements) and parse_expr.cpp (expressions).
#pragma once

#include <string_view>

#include "nki/ast.h"
#include "nki/lexer.h"

namespace nki::detail {

class Parser {
 public:
  Parser(std::shared_ptr<const SourceFile> src, std::vector<Token> tokens, uint32_t line_offset = 0,
         uint32_t col_offset = 0);

  // file ::= statement* END
  Block parse_file();
  // A standalone expression (f-string replacement fields).
  ExprPtr parse_standalone_expression();

  // ---- statements (parse_stmt.cpp) ----
  void parse_statement(Block& out);
  bool starts_match_statement() const;
  void parse_simple_statements(Block& out);
  StmtPtr parse_simple_statement();
  StmtPtr parse_expression_statement();
  StmtPtr parse_return();
  StmtPtr parse_import();
  StmtPtr parse_from_import();
  StmtPtr parse_assert();
  StmtPtr parse_if(bool is_elif);
  StmtPtr parse_for();
  StmtPtr parse_while();
  StmtPtr parse_def(std::vector<ExprPtr> decorators, Span start);
  StmtPtr parse_decorated();
  StmtPtr parse_class(std::vector<ExprPtr> decorators, Span start);
  StmtPtr parse_with();
  StmtPtr parse_try();
  StmtPtr parse_raise();
  StmtPtr parse_global();
  StmtPtr parse_del();
  StmtPtr parse_annotated_assignment(ExprPtr target, Span start);
  Block parse_block(std::string_view what, const Token& opener);
  void parse_parameters(FunctionCode& code, bool lambda);
  void check_target(const Expr& e, std::string_view context);
  [[noreturn]] void unsupported_statement(const Token& t);

  // ---- expressions (parse_expr.cpp) ----
  ExprPtr parse_star_expressions();  // a, *b, c  (tuple without parentheses)
  ExprPtr parse_expression();        // test ::= or_test ['if' or_test 'else' test] | lambda
  ExprPtr parse_named_expression();  // NAME ':=' expression | expression
  ExprPtr parse_or();
  ExprPtr parse_and();
  ExprPtr parse_not();
  ExprPtr parse_comparison();
  ExprPtr parse_binary(int level);
  ExprPtr parse_factor();
  ExprPtr parse_power();
  ExprPtr parse_primary();
  ExprPtr parse_atom();
  ExprPtr parse_paren(const Token& open);
  ExprPtr parse_list_display(const Token& open);
  ExprPtr parse_brace_display(const Token& open);
  ExprPtr parse_call(ExprPtr func);
  ExprPtr parse_subscript(ExprPtr value);
  ExprPtr parse_slice_item();
  ExprPtr parse_lambda();
  ExprPtr parse_strings();
  ExprPtr parse_fstring(const Token& t);
  ExprPtr parse_star_or_expression(bool named = false);
  void parse_comprehension_clauses(std::vector<Comprehension>& out);
  ExprPtr parse_target_list();  // for-loop / comprehension targets

  // ---- tokens ----
  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool at_op(std::string_view op) const;
  bool at_keyword(std::string_view kw) const;
  bool accept_op(std::string_view op);
  bool accept_keyword(std::string_view kw);
  const Token& expect_op(std::string_view op, std::string_view context);
  const Token& expect_name(std::string_view context);
  void expect_newline();
  Span span_from(const Span& start) const;  // from start to the end of the last consumed token
  SourceLoc loc(const Span& s) const;
  [[noreturn]] void fail(const Token& t, const std::string& message) const;
  [[noreturn]] void fail_unsupported(const Span& s, const std::string& message) const;

  // Recursion guard: deeply nested input must produce an error, never a stack overflow.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser);
    ~DepthGuard() { --p.depth_; }
  };

 private:
  std::shared_ptr<const SourceFile> src_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  Span last_;
};

Span join(const Span& a, const Span& b);

}  // namespace nki::detail
