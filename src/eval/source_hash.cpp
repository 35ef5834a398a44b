#include "eval/source_hash.h"

namespace eval {
namespace {

// Strips a trailing `#` comment from one line, tracking quotes so '#' inside a string stays.
// Triple-quoted strings spanning lines are tracked through `open_quote` across calls.
std::string strip_comment(std::string_view line, std::string& open_quote) {
  std::string out;
  for (size_t pos = 0; pos < line.size(); ++pos) {
    char c = line[pos];
    if (!open_quote.empty()) {
      out += c;
      if (c == '\\' && pos + 1 < line.size()) {
        out += line[++pos];
      } else if (line.compare(pos, open_quote.size(), open_quote) == 0) {
        out += open_quote.substr(1);
        pos += open_quote.size() - 1;
        open_quote.clear();
      }
      continue;
    }
    if (c == '#') break;
    if (c == '"' || c == '\'') {
      bool triple = line.compare(pos, 3, std::string(3, c)) == 0;
      open_quote = triple ? std::string(3, c) : std::string(1, c);
      out += open_quote;
      pos += open_quote.size() - 1;
      continue;
    }
    out += c;
  }
  if (open_quote.size() == 1) open_quote.clear();  // single-quoted strings end with the line
  return out;
}

}  // namespace

std::string normalize_source(std::string_view text) {
  std::string out, open_quote;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    bool in_string = !open_quote.empty();
    std::string line = strip_comment(text.substr(start, end - start), open_quote);
    if (open_quote.empty()) {  // the line does not end inside a string: trailing blanks are noise
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
        line.pop_back();
    }
    if (in_string || !line.empty()) out += line + '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace eval
