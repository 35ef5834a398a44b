// nl.affine_range / nl.sequential_range / nl.static_range: iterate concrete ints in order (the
// legal schedule that makes Python `if` on loop variables work) and emit the loop records.
#pragma once

#include "nki/value.h"
#include "trn/trace.h"

namespace nki::lib {

struct LoopRangeObj : Object {
  trn::LoopKind kind;
  int64_t start, stop, step;
  LoopRangeObj(trn::LoopKind k, int64_t a, int64_t b, int64_t s) : kind(k), start(a), stop(b), step(s) {}
  std::string type_name() const override;
  std::string repr() const override;
  std::unique_ptr<Iterator> iter(Interpreter& in) override;
  std::optional<int64_t> length() const override;
};

// Builds a range from range-like arguments: (stop), (start, stop), (start, stop, step).
Value make_loop_range(trn::LoopKind kind, const std::vector<Value>& args, std::string_view api);

// Records a kernel's Python `for ... in range(...)` loops in the trace as the loop kind its API
// makes of them (loop_range.cpp); installed with the builtin modules.
void install_range_loop_recorder(Interpreter& in);

}  // namespace nki::lib
