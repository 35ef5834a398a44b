// The one content hash of accelopt: 128 bits (two FNV-1a-64 lanes over length-prefixed parts),
// 32 lowercase hex digits. Every cache key and stored identity uses it: evaluation keys and LLM
// request hashes in run.db, job keys in the run directory, reference-cache file names, memory
// item ids. Not cryptographic: a key for content that accelopt itself wrote or read.
//
// The values are stored (run.db, memory.json), so the algorithm is frozen:
// tests/unit/base/content_hash_test.cpp pins known values; changing it needs a store migration.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace base {

// The hash of a sequence of parts; ("ab", "c") and ("a", "bc") differ.
std::string content_hash(std::initializer_list<std::string_view> parts);

// The hash of one text: content_hash({bytes}).
std::string content_hash(std::string_view bytes);

}  // namespace base
