// A hash index over the keys of an insertion-ordered container (a dict's keys, a set's elements),
// so that a lookup costs O(1) instead of a scan: filling a dict or set of n keys was O(n^2).
//
// Only keys whose hash agrees with value equality are hashed (None, bools, ints, floats, strings
// and tuples of them: `1 == 1.0 == True` hash alike); any other key (an object that hashes by
// identity, or compares equal across types) is kept in a list that every lookup scans. The
// container may append keys freely (they are indexed at the next lookup); a removal or a
// replacement of its keys must call invalidate().
#pragma once

#include <cstddef>
#include <functional>
#include <unordered_map>
#include <vector>

namespace nki {

class Value;

class KeyIndex {
 public:
  static constexpr size_t npos = static_cast<size_t>(-1);
  // The position of the key equal to `key` among the container's `size` keys, or npos.
  size_t find(const Value& key, size_t size, const std::function<const Value&(size_t)>& key_at);
  void invalidate();
  size_t bytes() const;  // the index's own memory, charged with the container's

 private:
  void index_new(size_t size, const std::function<const Value&(size_t)>& key_at);
  std::unordered_multimap<size_t, size_t> hashed_;  // hash -> position
  std::vector<size_t> unhashed_;
  size_t indexed_ = 0;  // positions [0, indexed_) are indexed
};

}  // namespace nki
