#include "eval/sources.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/core.h>

namespace eval {

std::string read_source(const std::string& path, uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SourceReadError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)), false);
  std::string text;
  char chunk[1 << 16];
  // One byte past the cap tells "exactly the cap" from "more".
  while (text.size() <= max_bytes) {
    in.read(chunk, std::streamsize(std::min<uint64_t>(sizeof chunk, max_bytes + 1 - text.size())));
    if (in.gcount() <= 0) break;
    text.append(chunk, size_t(in.gcount()));
  }
  if (in.bad()) throw SourceReadError(fmt::format("cannot read '{}': read error", path), false);
  if (text.size() > max_bytes)
    throw SourceReadError(fmt::format("'{}' is larger than the source size limit of {} bytes", path, max_bytes), true);
  return text;
}

std::optional<Failed> check_kernel_encoding(const std::string& path, const std::string& text) {
  size_t bad = nki::first_invalid_utf8(text);
  if (bad == std::string::npos) return std::nullopt;
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < bad; ++i) {
    if (text[i] == '\n') line++, col = 1;
    else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) col++;
  }
  return failed(Failure{Stage::ParseKernel, nki::ErrorKind::Syntax, nki::LimitKind::None, path, line, col,
                        fmt::format("the file is not valid UTF-8: byte 0x{:02x} cannot be decoded (Python source "
                                    "files are UTF-8)", static_cast<unsigned char>(text[bad]))});
}

}  // namespace eval
