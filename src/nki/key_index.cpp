#include "nki/key_index.h"

#include <algorithm>

#include "nki/core_ops.h"

namespace nki {

namespace {

// Keys whose core::hash_value agrees with values_equal.
bool hashable_by_value(const Value& v) {
  if (!v.is_object()) return true;
  if (v.as<StrObj>()) return true;
  if (auto* t = v.as<TupleObj>()) return std::all_of(t->items.begin(), t->items.end(), hashable_by_value);
  return false;
}

}  // namespace

void KeyIndex::index_new(size_t size, const std::function<const Value&(size_t)>& key_at) {
  if (indexed_ > size) invalidate();  // shrunk without invalidate(): start again
  for (; indexed_ < size; ++indexed_) {
    const Value& k = key_at(indexed_);
    if (hashable_by_value(k)) hashed_.emplace(core::hash_value(k), indexed_);
    else unhashed_.push_back(indexed_);
  }
}

size_t KeyIndex::find(const Value& key, size_t size, const std::function<const Value&(size_t)>& key_at) {
  if (!hashable_by_value(key)) {
    for (size_t i = 0; i < size; ++i)
      if (values_equal(key_at(i), key)) return i;
    return npos;
  }
  index_new(size, key_at);
  auto [lo, hi] = hashed_.equal_range(core::hash_value(key));
  for (auto it = lo; it != hi; ++it)
    if (values_equal(key_at(it->second), key)) return it->second;
  for (size_t i : unhashed_)
    if (values_equal(key_at(i), key)) return i;
  return npos;
}

void KeyIndex::invalidate() {
  hashed_.clear();
  unhashed_.clear();
  indexed_ = 0;
}

size_t KeyIndex::bytes() const {
  return hashed_.size() * (2 * sizeof(size_t) + 2 * sizeof(void*)) + hashed_.bucket_count() * sizeof(void*) +
         unhashed_.capacity() * sizeof(size_t);
}

}  // namespace nki
