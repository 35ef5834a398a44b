// Lexer: a single pass over the text, producing tokens with spans and collecting comments.
#include "nki/lexer.h"

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/core.h>

#include "nki/value.h"

namespace nki {

const char* to_string(TokenKind k) {
  switch (k) {
    case TokenKind::Name: return "NAME";
    case TokenKind::Keyword: return "KEYWORD";
    case TokenKind::Int: return "INT";
    case TokenKind::Float: return "FLOAT";
    case TokenKind::String: return "STRING";
    case TokenKind::Op: return "OP";
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::End: return "END";
  }
  return "?";
}

namespace {

const char* const kKeywords[] = {"False", "None", "True", "and", "as", "assert", "async", "await", "break",
                                 "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
                                 "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
                                 "pass", "raise", "return", "try", "while", "with", "yield"};

// Longest operators first so that maximal munch is a linear scan.
const char* const kOperators[] = {"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "==", "!=", "<=",
                                  ">=", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
                                  "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "@", "=", "+", "-",
                                  "*", "/", "%", "<", ">", "&", "|", "^", "~"};

constexpr size_t kMaxIndentLevels = 100;

bool is_keyword(std::string_view s) {
  for (const char* k : kKeywords)
    if (s == k) return true;
  return false;
}

bool ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

class Lexer {
 public:
  explicit Lexer(const std::shared_ptr<const SourceFile>& src) : src_(src), text_(src->text) {}

  LexResult run() {
    indents_.push_back(0);
    check_utf8();
    // Decoded as Python decodes a source file: UTF-8, with an optional byte order mark.
    if (text_.compare(0, 3, kUtf8Bom) == 0) pos_ = line_start_ = 3;
    while (pos_ < text_.size()) {
      if (at_line_start_) {
        if (!handle_indentation()) continue;
      }
      lex_token();
    }
    finish();
    return std::move(out_);
  }

 private:
  // ---- encoding ----
  static constexpr const char* kUtf8Bom = "\xEF\xBB\xBF";

  // The whole file must be UTF-8 (Python's default source encoding); the first byte that is not
  // is an error located at its line and column.
  void check_utf8() {
    size_t bad = first_invalid_utf8(text_);
    if (bad == std::string::npos) return;
    uint32_t line = 1;
    size_t start = 0;
    for (size_t i = 0; i < bad; ++i)
      if (text_[i] == '\n') ++line, start = i + 1;
    line_ = line;
    line_start_ = start;
    fail(ErrorKind::Syntax, bad,
         fmt::format("the file is not valid UTF-8: byte 0x{:02x} cannot be decoded (Python source files are UTF-8)",
                     static_cast<unsigned char>(text_[bad])));
  }

  // ---- positions and errors ----
  // Character column of a byte position on the current line. Positions only move forward, so the
  // count continues from the previous query (linear, even for one very long line).
  uint32_t col_of(size_t pos) const {
    if (col_cache_line_ != line_start_ || pos < col_cache_pos_) {
      col_cache_line_ = line_start_;
      col_cache_pos_ = line_start_;
      col_cache_col_ = 1;
    }
    for (size_t i = col_cache_pos_; i < pos && i < text_.size(); ++i)
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++col_cache_col_;
    col_cache_pos_ = std::max(col_cache_pos_, std::min(pos, text_.size()));
    return col_cache_col_;
  }
  SourceLoc loc_at(size_t pos, size_t end) const {
    SourceLoc loc{src_, line_, col_of(pos), 0};
    loc.end_col = end > pos ? col_of(end) : 0;
    return loc;
  }
  [[noreturn]] void fail(ErrorKind kind, size_t pos, const std::string& msg) const {
    throw NkiError(kind, msg, loc_at(pos, pos + 1));
  }
  void new_line(size_t next_pos) {
    ++line_;
    line_start_ = next_pos;
  }
  Token& push(TokenKind kind, size_t begin, size_t end, uint32_t begin_line, uint32_t begin_col) {
    Token t;
    t.kind = kind;
    t.text = text_.substr(begin, end - begin);
    t.span = {begin_line, begin_col, line_, col_of(end)};
    out_.tokens.push_back(std::move(t));
    return out_.tokens.back();
  }
  void push_simple(TokenKind kind, size_t pos) {
    Token t;
    t.kind = kind;
    uint32_t col = col_of(pos);
    t.span = {line_, col, line_, col};
    out_.tokens.push_back(std::move(t));
  }

  // ---- indentation ----
  // Measures the indentation of a logical line; blank and comment-only lines produce nothing.
  // Returns false when the line was consumed entirely.
  bool handle_indentation() {
    size_t width = 0, p = pos_;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) {
      width = text_[p] == '\t' ? (width / 8 + 1) * 8 : width + 1;
      ++p;
    }
    if (p >= text_.size() || text_[p] == '\n' || text_[p] == '\r' || text_[p] == '#') {
      pos_ = p;
      if (p < text_.size() && text_[p] == '#') lex_comment();
      if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '\n') new_line(++pos_);
      return false;
    }
    at_line_start_ = false;
    pos_ = p;
    if (width > indents_.back()) {
      if (indents_.size() >= kMaxIndentLevels) fail(ErrorKind::Syntax, p, "too many levels of indentation");
      indents_.push_back(width);
      push_simple(TokenKind::Indent, p);
      return true;
    }
    while (width < indents_.back()) {
      indents_.pop_back();
      push_simple(TokenKind::Dedent, p);
    }
    if (width != indents_.back()) fail(ErrorKind::Syntax, p, "unindent does not match any outer indentation level");
    return true;
  }

  void finish() {
    if (!brackets_.empty()) {
      auto [ch, line, col] = brackets_.back();
      throw NkiError(ErrorKind::Syntax, fmt::format("'{}' was never closed", ch), SourceLoc{src_, line, col, col + 1});
    }
    if (!out_.tokens.empty() && out_.tokens.back().kind != TokenKind::Newline &&
        out_.tokens.back().kind != TokenKind::Dedent)
      push_simple(TokenKind::Newline, pos_);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push_simple(TokenKind::Dedent, pos_);
    }
    push_simple(TokenKind::End, pos_);
  }

  // ---- tokens ----
  void lex_token() {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      ++pos_;
    } else if (c == '\n') {
      if (brackets_.empty()) {
        push_simple(TokenKind::Newline, pos_);
        at_line_start_ = true;
      }
      new_line(++pos_);
    } else if (c == '#') {
      lex_comment();
    } else if (c == '\\') {
      lex_continuation();
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && pos_ + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      lex_number();
    } else if (ident_start(static_cast<unsigned char>(c))) {
      lex_name_or_string();
    } else if (c == '"' || c == '\'') {
      lex_string(pos_, pos_, "");
    } else {
      lex_operator();
    }
  }

  void lex_comment() {
    size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    Comment comment;
    comment.text = text_.substr(pos_, end - pos_);
    while (!comment.text.empty() && (comment.text.back() == '\r' || comment.text.back() == ' ')) comment.text.pop_back();
    uint32_t col = col_of(pos_);
    comment.span = {line_, col, line_, col_of(end)};
    comment.own_line = text_.find_first_not_of(" \t\f", line_start_) == pos_;
    out_.comments.push_back(std::move(comment));
    pos_ = end;
  }

  void lex_continuation() {
    size_t p = pos_ + 1;
    if (p < text_.size() && text_[p] == '\r') ++p;
    if (p >= text_.size() || text_[p] != '\n') fail(ErrorKind::Syntax, pos_, "unexpected character after line continuation character");
    pos_ = p + 1;
    new_line(pos_);
  }

  void lex_name_or_string() {
    size_t begin = pos_;
    while (pos_ < text_.size() && ident_char(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    std::string word = text_.substr(begin, pos_ - begin);
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'') && word.size() <= 2) {
      std::string prefix;
      for (char ch : word) prefix += char(std::tolower(static_cast<unsigned char>(ch)));
      if (prefix == "r" || prefix == "f" || prefix == "u" || prefix == "rf" || prefix == "fr" || prefix == "b" ||
          prefix == "br" || prefix == "rb") {
        if (prefix.find('b') != std::string::npos) fail(ErrorKind::Unsupported, begin, "bytes literals are not supported in kernels");
        lex_string(begin, pos_, prefix);
        return;
      }
    }
    uint32_t col = col_of(begin);
    push(is_keyword(word) ? TokenKind::Keyword : TokenKind::Name, begin, pos_, line_, col);
  }

  void lex_number() {
    size_t begin = pos_;
    uint32_t col = col_of(begin);
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && std::strchr("xXoObB", text_[pos_ + 1])) {
      lex_radix_int(begin, col);
      return;
    }
    bool is_float = false;
    auto digits = [&] {
      while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    };
    digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        is_float = true;
        digits();
      } else {
        pos_ = save;
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'j' || text_[pos_] == 'J'))
      fail(ErrorKind::Unsupported, begin, "complex literals are not supported in kernels");
    if (pos_ < text_.size() && ident_char(static_cast<unsigned char>(text_[pos_])))
      fail(ErrorKind::Syntax, pos_, "invalid decimal literal");
    std::string clean;
    for (size_t i = begin; i < pos_; ++i)
      if (text_[i] != '_') clean += text_[i];
    Token& t = push(is_float ? TokenKind::Float : TokenKind::Int, begin, pos_, line_, col);
    if (is_float) {
      t.float_value = std::strtod(clean.c_str(), nullptr);
      return;
    }
    if (clean.size() > 1 && clean[0] == '0' && clean.find_first_not_of('0') != std::string::npos)
      throw NkiError(ErrorKind::Syntax, "leading zeros in decimal integer literals are not permitted",
                     loc_at(begin, pos_));
    t.int_value = parse_int(clean, 10, begin);
  }

  void lex_radix_int(size_t begin, uint32_t col) {
    char r = char(std::tolower(static_cast<unsigned char>(text_[pos_ + 1])));
    int base = r == 'x' ? 16 : r == 'o' ? 8 : 2;
    pos_ += 2;
    std::string clean;
    while (pos_ < text_.size() && (std::isxdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      if (text_[pos_] != '_') clean += text_[pos_];
      ++pos_;
    }
    if (clean.empty()) fail(ErrorKind::Syntax, begin, "invalid number literal");
    Token& t = push(TokenKind::Int, begin, pos_, line_, col);
    t.int_value = parse_int(clean, base, begin);
  }

  int64_t parse_int(const std::string& digits, int base, size_t begin) {
    uint64_t value = 0;
    for (char ch : digits) {
      int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0' : std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10;
      if (d >= base) fail(ErrorKind::Syntax, begin, fmt::format("invalid digit '{}' in number literal", ch));
      if (value > (uint64_t(INT64_MAX) - d) / base)
        throw NkiError(ErrorKind::Unsupported, "integer literals beyond 64 bits are not supported in kernels",
                       loc_at(begin, pos_));
      value = value * base + d;
    }
    return int64_t(value);
  }

  void lex_string(size_t begin, size_t quote_pos, const std::string& prefix) {
    uint32_t begin_line = line_, begin_col = col_of(begin);
    char quote = text_[quote_pos];
    bool triple = text_.compare(quote_pos, 3, std::string(3, quote)) == 0;
    size_t content = quote_pos + (triple ? 3 : 1);
    uint32_t content_col = col_of(content);
    bool raw = prefix.find('r') != std::string::npos, fstring = prefix.find('f') != std::string::npos;
    std::string value;
    size_t p = content;
    for (;;) {
      if (p >= text_.size()) {
        throw NkiError(ErrorKind::Syntax, triple ? "unterminated triple-quoted string literal" : "unterminated string literal",
                       SourceLoc{src_, begin_line, begin_col, begin_col + 1});
      }
      char ch = text_[p];
      if (ch == quote && (!triple || text_.compare(p, 3, std::string(3, quote)) == 0)) break;
      if (ch == '\n') {
        if (!triple)
          throw NkiError(ErrorKind::Syntax, "unterminated string literal", SourceLoc{src_, begin_line, begin_col, begin_col + 1});
        value += ch;
        new_line(++p);
        continue;
      }
      if (ch == '\\' && p + 1 < text_.size()) {
        if (raw || fstring) {
          value += ch;
          value += text_[p + 1];
          if (text_[p + 1] == '\n') new_line(p + 2);
          p += 2;
        } else {
          p = decode_escape(p, value);
        }
        continue;
      }
      value += ch;
      ++p;
    }
    pos_ = p + (triple ? 3 : 1);
    Token& t = push(TokenKind::String, begin, pos_, begin_line, begin_col);
    t.str_value = std::move(value);
    t.is_fstring = fstring;
    t.content_col = content_col;
  }

  // Decodes the escape at text_[p] == '\\' and returns the position after it.
  size_t decode_escape(size_t p, std::string& out) {
    char e = text_[p + 1];
    switch (e) {
      case 'n': out += '\n'; return p + 2;
      case 't': out += '\t'; return p + 2;
      case 'r': out += '\r'; return p + 2;
      case '0': out += '\0'; return p + 2;
      case 'a': out += '\a'; return p + 2;
      case 'b': out += '\b'; return p + 2;
      case 'f': out += '\f'; return p + 2;
      case 'v': out += '\v'; return p + 2;
      case '\\': case '\'': case '"': out += e; return p + 2;
      case '\n': new_line(p + 2); return p + 2;
      case 'x': {
        if (p + 3 >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[p + 2])) ||
            !std::isxdigit(static_cast<unsigned char>(text_[p + 3])))
          fail(ErrorKind::Syntax, p, "truncated \\xXX escape");
        out += char(std::stoi(text_.substr(p + 2, 2), nullptr, 16));
        return p + 4;
      }
      default: out += '\\'; out += e; return p + 2;  // Python keeps unknown escapes verbatim
    }
  }

  void lex_operator() {
    for (const char* op : kOperators) {
      size_t n = std::strlen(op);
      if (text_.compare(pos_, n, op) != 0) continue;
      track_bracket(op[0], n);
      uint32_t col = col_of(pos_);
      size_t begin = pos_;
      pos_ += n;
      push(TokenKind::Op, begin, pos_, line_, col);
      return;
    }
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '$' || c == '?' || c == '`' || c == '!')
      fail(ErrorKind::Syntax, pos_, fmt::format("invalid character '{}'", char(c)));
    fail(ErrorKind::Syntax, pos_, fmt::format("invalid character (byte 0x{:02x})", c));
  }

  void track_bracket(char c, size_t len) {
    if (len != 1) return;
    if (c == '(' || c == '[' || c == '{') {
      if (brackets_.size() >= 200) fail(ErrorKind::Syntax, pos_, "too many nested parentheses");
      brackets_.push_back({c, line_, col_of(pos_)});
      return;
    }
    if (c != ')' && c != ']' && c != '}') return;
    char open = c == ')' ? '(' : c == ']' ? '[' : '{';
    if (brackets_.empty()) fail(ErrorKind::Syntax, pos_, fmt::format("unmatched '{}'", c));
    if (brackets_.back().ch != open) {
      auto b = brackets_.back();
      throw NkiError(ErrorKind::Syntax,
                     fmt::format("closing parenthesis '{}' does not match opening parenthesis '{}' on line {}", c, b.ch, b.line),
                     loc_at(pos_, pos_ + 1));
    }
    brackets_.pop_back();
  }

  struct Bracket {
    char ch;
    uint32_t line, col;
  };

  std::shared_ptr<const SourceFile> src_;
  const std::string& text_;
  size_t pos_ = 0, line_start_ = 0;
  mutable size_t col_cache_line_ = SIZE_MAX, col_cache_pos_ = 0;
  mutable uint32_t col_cache_col_ = 1;
  uint32_t line_ = 1;
  bool at_line_start_ = true;
  std::vector<size_t> indents_;
  std::vector<Bracket> brackets_;
  LexResult out_;
};

}  // namespace

LexResult lex(const std::shared_ptr<const SourceFile>& src) { return Lexer(src).run(); }

std::string dump_tokens(const LexResult& lexed) {
  std::string out;
  for (const Token& t : lexed.tokens) {
    out += fmt::format("{}:{}-{}:{} {}", t.span.line, t.span.col, t.span.end_line, t.span.end_col, to_string(t.kind));
    if (t.kind == TokenKind::String) out += std::string(" ") + (t.is_fstring ? "f" : "") + StrObj(t.str_value).repr();
    else if (!t.text.empty()) out += " " + t.text;
    out += "\n";
  }
  for (const Comment& c : lexed.comments)
    out += fmt::format("{}:{}-{}:{} COMMENT {}\n", c.span.line, c.span.col, c.span.end_line, c.span.end_col, c.text);
  return out;
}

}  // namespace nki
