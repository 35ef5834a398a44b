// Sums of a host counter's bumps over a loop's iterations (lift_counter.cpp): the bump of one
// iteration is an expression of the loop's index whose guards (the selects an `if` on the index
// leaves, `i + 1 < n`, `(i + 1) % 32 == 0`) are half-lines and congruences of it; the sum over the
// iterations before the current one is then a quasi-affine expression of the index (min / max /
// floor divisions), as a compiler's scalar evolution counts an induction variable.
#pragma once

#include <optional>

#include "loopnest/iexpr.h"

namespace loopnest {

// The variable a sum runs over (no loop of a form has it).
constexpr int kSumIndex = (1 << 28) + 7;

// Sum of `f` over kSumIndex in [lo, hi) (nothing when hi <= lo); nullopt when `f` is not a sum of
// constants under guards on kSumIndex that are half-lines (any coefficient) or one congruence
// (`(m + b) % M == r`, b constant), or multiplies kSumIndex itself (a bump by the index).
std::optional<IExpr> sum_over(const IExpr& f, const IExpr& lo, const IExpr& hi, const Ranges* ranges = nullptr);

// `e` built again from its terms with the loops' ranges (each min / max decided either way round).
IExpr rebuilt(const IExpr& e, const Ranges* ranges);

}  // namespace loopnest
