// A stable 128-bit content hash (two FNV-1a-64 lanes over length-prefixed parts), hex encoded.
// Used for cache keys (kernel evaluations, recorded LLM answers); not cryptographic.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace agents {

std::string content_hash(std::initializer_list<std::string_view> parts);

}  // namespace agents
