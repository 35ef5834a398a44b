// Tokens of the Python subset, with their source spans. Comments are kept aside for the printer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nki {

// A source range: 1-based line and character column; end is exclusive.
struct Span {
  uint32_t line = 0, col = 0, end_line = 0, end_col = 0;
};

enum class TokenKind : uint8_t { Name, Keyword, Int, Float, String, Op, Newline, Indent, Dedent, End };
const char* to_string(TokenKind k);

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;  // source spelling (operators, names, literals as written)
  Span span;
  int64_t int_value = 0;
  double float_value = 0;
  std::string str_value;  // decoded string; for f-strings the raw text between the quotes
  bool is_fstring = false;
  uint32_t content_col = 0;  // column of the first character inside the quotes (f-strings)
};

struct Comment {
  Span span;
  std::string text;  // including the leading '#'
  bool own_line = false;  // nothing but whitespace before it on its line
};

}  // namespace nki
