// The correctness rule: counts, shapes, float64 relative L2 against the tolerance, the mismatch
// figures, and the lower-precision text rule.
#include <cmath>

#include <gtest/gtest.h>

#include "eval/compare.h"

namespace {

tensor::Array f32(const tensor::Shape& shape, const std::vector<double>& v) {
  return tensor::Array::from_values(shape, tensor::DType::Float32, v);
}

TEST(Compare, ExactMatchIsCorrect) {
  auto a = f32({2, 2}, {1, 2, 3, 4});
  auto c = eval::compare_outputs({a}, {a}, 2e-5);
  EXPECT_TRUE(c.correct);
  EXPECT_EQ(c.worst.rel_l2, 0);
}

TEST(Compare, MismatchFigures) {
  auto ref = f32({4}, {1, 2, 3, 4});
  auto out = f32({4}, {1, 2, 3, 5});
  auto c = eval::compare_outputs({out}, {ref}, 2e-5);
  EXPECT_FALSE(c.correct);
  EXPECT_TRUE(c.problem.empty());
  EXPECT_DOUBLE_EQ(c.worst.max_abs_diff, 1.0);
  EXPECT_DOUBLE_EQ(c.worst.mean_abs_diff, 0.25);
  EXPECT_DOUBLE_EQ(c.worst.max_rel_diff, 0.25);
  EXPECT_DOUBLE_EQ(c.worst.rel_l2, 1.0 / std::sqrt(30.0));
}

TEST(Compare, ToleranceBoundaryIsStrict) {
  auto ref = f32({1}, {1.0});
  auto out = f32({1}, {1.0 + 0.25});
  EXPECT_FALSE(eval::compare_outputs({out}, {ref}, 0.25).correct);  // rel_l2 == tol fails (< required)
  EXPECT_TRUE(eval::compare_outputs({out}, {ref}, 0.2500001).correct);
}

TEST(Compare, NanFails) {
  auto ref = f32({2}, {1, 1});
  auto out = f32({2}, {1, NAN});
  auto c = eval::compare_outputs({out}, {ref}, 1.0);
  EXPECT_FALSE(c.correct);
}

// An outside author's mamba left its last 1024 columns unstored and saw only "rel_l2 inf".
TEST(Compare, NanElementsAreLocatedByTheirBoundingBox) {
  std::vector<double> ref_values(4 * 6, 1.0), out_values(4 * 6, 1.0);
  for (int r = 1; r < 3; ++r)
    for (int col = 4; col < 6; ++col) out_values[size_t(r * 6 + col)] = NAN;
  auto c = eval::compare_outputs({f32({4, 6}, ref_values), f32({4, 6}, out_values)},
                                 {f32({4, 6}, ref_values), f32({4, 6}, ref_values)}, 1e-3);
  EXPECT_FALSE(c.correct);
  EXPECT_EQ(c.nan_note.rfind("output 1: 4 of 24 elements are NaN, all within [1:3, 4:6]", 0), 0u) << c.nan_note;
  EXPECT_TRUE(eval::compare_outputs({f32({2}, {1, 2})}, {f32({2}, {1, 3})}, 1e-3).nan_note.empty());
}

TEST(Compare, CountAndShapeMismatch) {
  auto a = f32({2, 2}, {1, 2, 3, 4});
  auto b = f32({4}, {1, 2, 3, 4});
  auto count = eval::compare_outputs({a, a}, {a}, 1.0);
  EXPECT_FALSE(count.correct);
  EXPECT_EQ(count.problem, "kernel returned 2 output(s), reference has 1");
  auto shape = eval::compare_outputs({b}, {a}, 1.0);
  EXPECT_FALSE(shape.correct);
  EXPECT_EQ(shape.problem, "output 0 has shape (4,), reference shape is (2, 2)");
}

TEST(Compare, WorstOutputIsReported) {
  auto ref = f32({2}, {1, 1});
  auto close = f32({2}, {1, 1});
  auto far = f32({2}, {2, 1});
  auto c = eval::compare_outputs({close, far}, {ref, ref}, 1e-3);
  EXPECT_FALSE(c.correct);
  EXPECT_DOUBLE_EQ(c.worst.max_abs_diff, 1.0);
}

}  // namespace
