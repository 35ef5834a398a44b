// Test support: how often a kernel loads from one of its arguments, counted on its loop-nest form.
#pragma once

#include <string>
#include <vector>

#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace loopnest_test {

// How many times the kernel loads from the kernel argument `param` (each load times its loops' trips).
inline int64_t loads_of(const std::string& text, const std::vector<loopnest::ArgSpec>& args, size_t param) {
  loopnest::Kernel k = loopnest::lift_source("k.py", text, args);
  int src = k.params.at(param).tensor;
  loopnest::Analysis an(k);
  int64_t n = 0;
  for (const auto& r : an.ops) {
    if (r.op().cls != loopnest::OpClass::Load) continue;
    bool from = false;
    for (const auto* a : loopnest::reads(r.op())) from = from || loopnest::storage_of(k, a->tensor) == src;
    if (!from) continue;
    int64_t times = 1;
    for (int l : r.loops) times *= k.loops.at(l).trip().value_or(0);
    n += times;
  }
  return n;
}

}  // namespace loopnest_test
