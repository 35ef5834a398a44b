// numpy's broadcasting of two shapes, for any containers of int64 sizes (tensor::Shape, and the
// allocation-free index shapes of the NKI library's trace-only path).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tensor {

// out (resized to the longer rank) = the broadcast of a and b; false when they do not broadcast.
template <class A, class B, class Out>
bool broadcast_dims(const A& a, const B& b, Out& out) {
  size_t nd = std::max(a.size(), b.size());
  out.resize(nd);
  for (size_t i = 0; i < nd; ++i) {
    int64_t da = i < nd - a.size() ? 1 : a[i - (nd - a.size())];
    int64_t db = i < nd - b.size() ? 1 : b[i - (nd - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

}  // namespace tensor
