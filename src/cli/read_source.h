// Reads a file a command was given; on failure prints "accelopt: error: cannot read 'PATH'" and
// returns nullopt, so every command reports an unreadable input the same way.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/core.h>

namespace cli {

inline std::optional<std::string> read_source_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "accelopt: error: cannot read '{}'\n", path);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace cli
