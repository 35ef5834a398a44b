// Kernel text normalized for deduplication (hashed with base::content_hash): two kernels that differ only in comments, trailing whitespace
// or blank lines are the same kernel and are evaluated once (tests/unit/eval/source_hash_test.cpp).
#pragma once

#include <string>
#include <string_view>

namespace eval {

// Drops `#` comments outside string literals, trailing whitespace and blank lines, and turns
// CRLF into LF. Indentation is kept: in Python it is meaning.
std::string normalize_source(std::string_view text);

}  // namespace eval
