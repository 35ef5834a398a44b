#include "base/content_hash.h"

#include <cstdint>

#include <fmt/core.h>

namespace base {

namespace {

struct Fnv {
  uint64_t state;
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state ^= c;
      state *= 0x100000001b3ull;
    }
  }
};

}  // namespace

std::string content_hash(std::initializer_list<std::string_view> parts) {
  // Two lanes with different offsets; the length prefix keeps ("ab","c") apart from ("a","bc").
  Fnv lo{0xcbf29ce484222325ull}, hi{0x84222325cbf29ce4ull};
  for (auto part : parts) {
    std::string len = fmt::format("{}:", part.size());
    lo.add(len), lo.add(part);
    hi.add(part), hi.add(len);
  }
  return fmt::format("{:016x}{:016x}", hi.state, lo.state);
}

std::string content_hash(std::string_view bytes) { return content_hash({bytes}); }

}  // namespace base
