// A count with its noun in the right number ("1 round", "4 rounds", "1 retry", "2 retries"):
// every line that prints a count says it through this, so none reads "done after 1 rounds".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/core.h>

namespace base {

// `plural` defaults to `singular` + "s".
inline std::string count_of(int64_t n, std::string_view singular, std::string_view plural = {}) {
  if (n == 1) return fmt::format("1 {}", singular);
  if (plural.empty()) return fmt::format("{} {}s", n, singular);
  return fmt::format("{} {}", n, plural);
}

}  // namespace base
