// Reads a source file a command was given, never past `max_bytes` (a file name like /dev/zero
// must not read until memory runs out); on failure prints "accelopt: error: ..." and returns
// nullopt, so every command reports an unreadable or oversized input the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "eval/sources.h"

namespace cli {

inline std::optional<std::string> read_source_file(const std::string& path, uint64_t max_bytes = 1ull << 20) {
  try {
    return eval::read_source(path, max_bytes);
  } catch (const eval::SourceReadError& e) {
    fmt::print(stderr, "accelopt: error: {}\n", e.what());
    return std::nullopt;
  }
}

}  // namespace cli
