// Guards for code that recurses into nested values (repr, ==, <, hash, freeing): a list nested a
// million deep, or one that contains itself, must end in Python's behaviour (`[[...]]`, a
// RecursionError), never in a stack overflow. tests/unit/nki/robustness_test.cpp.
#pragma once

#include <vector>

#include "nki/value.h"

namespace nki {

// How deep repr/compare/hash may recurse into nested containers (Python's recursion limit).
constexpr int kMaxValueNesting = 1000;

// One level of recursion into a nested value; throws a Depth limit error
// ("maximum recursion depth exceeded <what>") past kMaxValueNesting levels on this thread.
class NestingGuard {
 public:
  explicit NestingGuard(const char* what);
  ~NestingGuard();
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;
};

// repr() of a container that may contain itself: while `self` is being printed on this thread,
// active() is false for a nested guard of the same object, which then prints "[...]" / "{...}".
class ReprGuard {
 public:
  explicit ReprGuard(const Object* self);
  ~ReprGuard();
  bool active() const { return active_; }

 private:
  const Object* self_;
  bool active_;
  NestingGuard depth_;
};

// Releases the values of a dying container without recursing into nested ones: the objects it
// held are freed one after another by the outermost release on this thread (a list nested a
// million deep is freed in a loop, not by a million nested destructors).
void release_values(std::vector<Value>& values);
void release_pairs(std::vector<std::pair<Value, Value>>& pairs);

}  // namespace nki
