// Test helper: evaluates numpy expressions in a real python3 + numpy and returns the results as
// Arrays, so tests compare accelopt's numerics with numpy's own. Inputs are written as raw files;
// all expressions of one oracle run in a single python process.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tensor/array.h"

namespace tensor::testing {

// The interpreter with numpy (Debian's python3-numpy); empty when unavailable.
std::string python_with_numpy();

struct OracleResult {
  std::optional<Array> value;  // nullopt when numpy raised
  std::string error;           // numpy's exception message
};

class NumpyOracle {
 public:
  NumpyOracle();
  ~NumpyOracle();
  // Saves `a` and returns a Python expression that loads it with its dtype and shape.
  std::string input(const Array& a);
  // Python statements run before the expressions (imports are done already: numpy as np).
  void prelude(const std::string& code) { prelude_ += code + "\n"; }
  // Queues `expr`; its result is results()[returned index] after run().
  size_t expect(const std::string& expr);
  std::vector<OracleResult> run();

 private:
  std::string dir_;
  std::string prelude_;
  std::vector<std::string> exprs_;
  int inputs_ = 0;
};

// Element-by-element comparison helpers (doubles; NaN == NaN).
double max_abs_diff(const Array& a, const Array& b);
// Largest |a - b| / |b| where NaNs in the same place count as equal (0 when b == a == 0).
double max_rel_diff(const Array& a, const Array& b);
bool bit_equal(const Array& a, const Array& b);  // same shape, dtype and identical values

}  // namespace tensor::testing
