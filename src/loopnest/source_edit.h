// Edits of a kernel file's text at a source position, for moves that change what the author wrote
// and lift the kernel again (param_size.cpp, evacuate_psum.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace loopnest {

// The byte offset of 1-based (line, col) in `text`; npos when the line is not there.
inline size_t source_offset(const std::string& text, uint32_t line, uint32_t col) {
  size_t at = 0;
  for (uint32_t l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string::npos) return std::string::npos;
    ++at;
  }
  return at + col - 1;
}

}  // namespace loopnest
