// Observing a kernel's Python `for ... in range(...)` loops (issue 11, spellings): the core
// interpreter runs them as plain Python, and a library that records a trace may want them as
// loops. The NKI library records them as the loop kind the kernel's API makes of them
// (nki/lib/loop_range.cpp). Kept out of interpreter.h: only the `for` statement and the library
// that installs the observer need it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace nki {

class Interpreter;

struct RangeLoopObserver {
  virtual ~RangeLoopObserver() = default;
  virtual void iteration() = 0;  // before each iteration's body
  virtual void end() = 0;        // after the last one (also on break, return or an exception)
};

// Called when a `for` statement starts iterating a range of `trips` values; returns nullptr to
// leave the loop unobserved.
using RangeLoopObserverFactory = std::function<std::unique_ptr<RangeLoopObserver>(Interpreter&, int64_t trips)>;

void set_range_loop_observer(Interpreter& in, RangeLoopObserverFactory factory);
// Whether `import name` (a root such as "neuronxcc" or "nki") has run in this interpreter.
bool imported(Interpreter& in, std::string_view name);
// Whether the kernel is written in the newer `nki` API alone (imports `nki`, not `neuronxcc`): the
// rules of nki-language.md section 12 apply where they differ from the legacy API's.
bool imports_newer_api_only(Interpreter& in);

}  // namespace nki
