// Reading the source files of an evaluation: never more than the size cap (a `--kernel
// /dev/zero` must end with an error, not with the memory of the machine).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>

#include "eval/failure.h"

namespace eval {

struct SourceReadError : std::runtime_error {
  SourceReadError(std::string message, bool too_large) : std::runtime_error(std::move(message)), too_large(too_large) {}
  bool too_large;  // the file exceeds the cap (else it could not be read)
};

// The bytes of `path`, at most `max_bytes` of them. Throws SourceReadError.
std::string read_source(const std::string& path, uint64_t max_bytes);

// A kernel text that is not UTF-8 (Python's source encoding, a byte order mark allowed) is a
// compile error located at its first bad byte. Checked before a job is written (JSON holds only
// UTF-8) and again by the lexer.
std::optional<Failed> check_kernel_encoding(const std::string& path, const std::string& text);

}  // namespace eval
