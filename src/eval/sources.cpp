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

}  // namespace eval
