// Diagnostics: one renderer for every error the language core and the libraries report.
#include "nki/diagnostics.h"

#include <algorithm>

#include <fmt/core.h>

namespace nki {

std::string SourceFile::line_text(uint32_t line) const {
  if (line == 0) return {};
  size_t pos = 0;
  for (uint32_t current = 1; current < line; ++current) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  if (pos > text.size()) return {};
  size_t end = text.find('\n', pos);
  std::string out = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  if (!out.empty() && out.back() == '\r') out.pop_back();
  if (line == 1 && out.compare(0, 3, "\xEF\xBB\xBF") == 0) out.erase(0, 3);  // the byte order mark
  return out;
}

const char* to_string(ErrorKind k) {
  switch (k) {
    case ErrorKind::Syntax: return "syntax";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Import: return "import";
    case ErrorKind::Name: return "name";
    case ErrorKind::Type: return "type";
    case ErrorKind::Value: return "value";
    case ErrorKind::Index: return "index";
    case ErrorKind::Rule: return "rule";
    case ErrorKind::Assertion: return "assertion";
    case ErrorKind::Sandbox: return "sandbox";
    case ErrorKind::HostOnly: return "host_only";
    case ErrorKind::UnknownKeyword: return "unknown_keyword";
    case ErrorKind::Limit: return "limit";
    case ErrorKind::Internal: return "internal";
  }
  return "internal";
}

NkiError unknown_keyword(std::string_view function, std::string_view keyword, std::string_view accepted) {
  NkiError e(ErrorKind::UnknownKeyword, fmt::format("{} has no keyword '{}'; accepted: {}", function, keyword,
                                                    accepted.empty() ? std::string_view("none") : accepted));
  e.diag.keyword = std::string(keyword);
  return e;
}

const char* to_string(LimitKind k) {
  switch (k) {
    case LimitKind::None: return "none";
    case LimitKind::Steps: return "steps";
    case LimitKind::Time: return "time";
    case LimitKind::Memory: return "memory";
    case LimitKind::Depth: return "depth";
    case LimitKind::Output: return "output";
    case LimitKind::SourceSize: return "source_size";
    case LimitKind::Nesting: return "nesting";
    case LimitKind::WallTime: return "wall_time";
  }
  return "none";
}

NkiError::NkiError(ErrorKind kind, std::string message, SourceLoc loc)
    : std::runtime_error(message), diag{kind, LimitKind::None, std::move(loc), std::move(message), {}, {}} {}

NkiError::NkiError(ErrorKind kind, std::string py_type, std::string message)
    : std::runtime_error(message), diag{kind, LimitKind::None, {}, std::move(message), {}, std::move(py_type)} {}

NkiError::NkiError(LimitKind limit, std::string message, SourceLoc loc)
    : std::runtime_error(message), diag{ErrorKind::Limit, limit, std::move(loc), std::move(message), {}, {}} {}

void throw_error(ErrorKind kind, std::string message) { throw NkiError(kind, std::move(message)); }

namespace {

// Length of the well-formed UTF-8 sequence at text[pos] (RFC 3629 table), 0 when ill-formed.
size_t utf8_sequence(std::string_view text, size_t pos) {
  auto byte = [&](size_t k) { return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0u; };
  unsigned c = byte(0);
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(k) >= lo && byte(k) <= hi; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

}  // namespace

size_t first_invalid_utf8(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    size_t n = utf8_sequence(text, pos);
    if (n == 0) return pos;
    pos += n;
  }
  return std::string_view::npos;
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t n = utf8_sequence(text, pos);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++pos;
      continue;
    }
    out.append(text.substr(pos, n));
    pos += n;
  }
  return out;
}

namespace {

constexpr size_t kMaxShownWidth = 100;  // longer source lines are trimmed around the caret

// Tabs would misplace the caret: show them as single spaces so columns stay character-based.
std::string untab(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

// Character columns -> byte offsets, so a caret lands under the right UTF-8 character.
size_t byte_offset(const std::string& s, uint32_t col) {
  size_t chars = 1, i = 0;
  while (i < s.size() && chars < col) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    i += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    ++chars;
  }
  return std::min(i, s.size());
}

// The start of the UTF-8 character containing byte `pos`: lines are trimmed there, never
// inside a character.
size_t char_start(const std::string& s, size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}

// Characters (not bytes) in text[begin, end): the caret line is padded in display columns.
size_t char_count(const std::string& text, size_t begin, size_t end) {
  size_t n = 0;
  for (size_t i = begin; i < end && i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++n;
  return n + (end > text.size() ? end - std::max(begin, text.size()) : 0);
}

std::string header(const SourceLoc& loc, const char* severity, const std::string& message) {
  if (!loc.file) return fmt::format("{}: {}", severity, message);
  if (loc.line == 0) return fmt::format("{}: {}: {}", loc.file->path, severity, message);
  return fmt::format("{}:{}:{}: {}: {}", loc.file->path, loc.line, loc.col, severity, message);
}

// The source line and a `^~~~` marker under columns [col, end_col).
std::string snippet(const SourceLoc& loc) {
  std::string text = untab(sanitize_utf8(loc.file->line_text(loc.line)));
  uint32_t col = std::max<uint32_t>(loc.col, 1);
  uint32_t end_col = std::max(loc.end_col, col + 1);
  size_t begin = byte_offset(text, col), end = byte_offset(text, end_col);
  if (end <= begin) end = begin + 1;
  size_t shift = 0;
  if (text.size() > kMaxShownWidth && begin > kMaxShownWidth / 2) {
    shift = char_start(text, begin - kMaxShownWidth / 4);
    text = "..." + text.substr(shift);
    shift -= 3;
  }
  if (text.size() > kMaxShownWidth) text = text.substr(0, char_start(text, kMaxShownWidth)) + "...";
  begin -= shift;
  end -= shift;
  size_t marker_len = std::max<size_t>(1, std::min(end, std::max(text.size(), begin + 1)) - begin);
  std::string gutter = fmt::format("{:>5}", loc.line);
  std::string out = fmt::format("{} | {}\n", gutter, text);
  size_t marker_chars = std::max<size_t>(1, char_count(text, begin, begin + marker_len));
  out += fmt::format("{} | {}^{}\n", std::string(gutter.size(), ' '), std::string(char_count(text, 0, begin), ' '),
                     std::string(marker_chars - 1, '~'));
  return out;
}

}  // namespace

std::string render(const Diagnostic& d) {
  std::string out = header(d.loc, "error", sanitize_utf8(d.message)) + "\n";
  if (d.loc.known() && !d.loc.file->line_text(d.loc.line).empty()) out += snippet(d.loc);
  for (const Note& note : d.notes) out += header(note.loc, "note", note.message) + "\n";
  return out;
}

}  // namespace nki
