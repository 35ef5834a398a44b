#pragma once
// Whether digits (coefficient, count) number [0, total) each exactly once: sorted by coefficient,
// each coefficient the product of the counts below it and the last product the total (a mixed
// radix). An affine index `sum c_i * v_i` over loop variables from 0 of trips n_i covers its range
// exactly once iff its (c_i, n_i) do: retile_flat's flat map over the nest's loops and tile axes,
// and a list of None's item index over the loops binding it (lift_none_list.cpp).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace loopnest {

inline bool numbers_each_once(std::vector<std::pair<int64_t, int64_t>> digits, int64_t total) {
  std::sort(digits.begin(), digits.end());
  int64_t next = 1;
  for (const auto& [coeff, count] : digits) {
    if (coeff != next) return false;
    next *= count;
  }
  return next == total;
}

}  // namespace loopnest
