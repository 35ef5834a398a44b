// f-strings: the lexer keeps the raw text between the quotes; here it is split into literal text
// and replacement fields `{expression[!conversion][:spec]}`, each expression parsed in place.
#include <cctype>
#include <string>

#include <fmt/core.h>

#include "nki/parser_impl.h"

namespace nki::detail {

namespace {

std::string unescape(const std::string& raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out += raw[i];
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'x':
        if (i + 2 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(raw[i + 2]))) {
          out += char(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          out += "\\x";
        }
        break;
      case '\\': case '\'': case '"': out += e; break;
      case '\n': break;
      default: out += '\\'; out += e;
    }
  }
  return out;
}

// The end of a replacement field's expression: the first top-level '!', ':' or '}' (not inside
// brackets or quotes; '!=' is an operator).
size_t expression_end(const std::string& s, size_t pos) {
  int depth = 0;
  char quote = 0;
  for (; pos < s.size(); ++pos) {
    char c = s[pos];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (depth == 0 && (c == '}' || c == ':' || (c == '!' && (pos + 1 >= s.size() || s[pos + 1] != '=')))) return pos;
  }
  return pos;
}

}  // namespace

ExprPtr Parser::parse_fstring(const Token& t) {
  const std::string& s = t.str_value;
  bool raw = t.text.find_first_of("rR") < t.text.find_first_of("'\"");
  auto out = std::make_unique<FStringExpr>(t.span);
  std::string literal;
  auto field_error = [&](size_t pos, const std::string& msg) {
    uint32_t col = t.content_col + uint32_t(pos);
    throw NkiError(ErrorKind::Syntax, "f-string: " + msg, SourceLoc{src_, t.span.line, col, col + 1});
  };
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
      literal += c;
      i += 2;
      continue;
    }
    if (c == '}') field_error(i, "single '}' is not allowed");
    if (c != '{') {
      literal += c;
      ++i;
      continue;
    }
    size_t expr_begin = i + 1, expr_stop = expression_end(s, expr_begin);
    if (expr_stop >= s.size()) field_error(i, "expecting '}'");
    FStringPart part;
    part.literal = raw ? literal : unescape(literal);
    literal.clear();
    part.expr_text = s.substr(expr_begin, expr_stop - expr_begin);
    // `{expr=}` (Python 3.8): the field's text up to and including '=' (and the spaces around it)
    // is printed before the value, which is repr'd unless a conversion or a format spec is given.
    bool self_documenting = false;
    if (size_t last = part.expr_text.find_last_not_of(" \t"); last != std::string::npos && part.expr_text[last] == '=' &&
        (last == 0 || std::string("=!<>").find(part.expr_text[last - 1]) == std::string::npos)) {
      self_documenting = true;
      part.literal += part.expr_text;
      part.expr_text.erase(last);
    }
    if (part.expr_text.find_first_not_of(" \t") == std::string::npos) field_error(i, "empty expression not allowed");
    size_t p = expr_stop;
    if (s[p] == '!') {
      if (p + 1 >= s.size() || (s[p + 1] != 'r' && s[p + 1] != 's' && s[p + 1] != 'a'))
        field_error(p, "invalid conversion character: expected 's', 'r', or 'a'");
      part.conversion = s[p + 1] == 'a' ? 'r' : s[p + 1];
      p += 2;
    }
    if (p < s.size() && s[p] == ':') {
      size_t close = s.find('}', p);
      if (close == std::string::npos) field_error(i, "expecting '}'");
      part.spec = s.substr(p + 1, close - p - 1);
      if (part.spec.find('{') != std::string::npos)
        fail_unsupported(t.span, "nested replacement fields in f-string format specs are not supported in kernels");
      p = close;
    }
    if (p >= s.size() || s[p] != '}') field_error(p, "expecting '}'");
    if (self_documenting && part.conversion == 0 && part.spec.empty()) part.conversion = 'r';
    auto sub = std::make_shared<SourceFile>(SourceFile{src_->path, part.expr_text});
    try {
      LexResult lexed = lex(sub);
      Parser inner(src_, std::move(lexed.tokens), t.span.line - 1, t.content_col + uint32_t(expr_begin) - 1);
      inner.depth_ = depth_;
      part.expr = inner.parse_standalone_expression();
    } catch (NkiError& e) {
      if (e.diag.loc.file == sub) field_error(expr_begin, e.diag.message);
      throw;
    }
    out->parts.push_back(std::move(part));
    i = p + 1;
  }
  if (!literal.empty()) out->parts.push_back({raw ? literal : unescape(literal), nullptr, 0, "", ""});
  return out;
}

}  // namespace nki::detail
