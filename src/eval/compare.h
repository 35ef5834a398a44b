// The correctness rule of the check (design.md "Check"): output counts, shapes and dtype kinds
// (float or not) must agree, and every output must satisfy ||out - ref||_2 < tol * ||ref||_2, computed in float64.
#pragma once

#include <string>
#include <vector>

#include "tensor/array.h"

namespace eval {

struct OutputDiff {
  double rel_l2 = 0, max_abs_diff = 0, mean_abs_diff = 0, max_rel_diff = 0;
};

struct Comparison {
  bool correct = false;
  std::string problem;  // why not correct, for count/shape mismatches ("" otherwise)
  OutputDiff worst;     // the output with the largest rel_l2 (over all outputs)
  std::string nan_note;  // where the first output holding NaN has them ("" when none does)
};

// Differences of one output pair of equal shapes (float64). rel_l2 is |d|/|ref|, or |d| when
// ref is all zeros; max_rel_diff divides by |ref| elementwise, skipping zero references.
OutputDiff diff_outputs(const tensor::Array& out, const tensor::Array& ref);

Comparison compare_outputs(const std::vector<tensor::Array>& outs, const std::vector<tensor::Array>& refs,
                           double tolerance);

}  // namespace eval
