#include <gtest/gtest.h>

#include "test_util.h"
#include "tensor/ops.h"

namespace tensor {
namespace {

using testing::NumpyOracle;

std::string py_axes(const std::vector<int>& axes) {
  if (axes.empty()) return "None";
  std::string s = "(";
  for (int a : axes) s += std::to_string(a) + ",";
  return s + ")";
}

// Random shapes and axis sets; float32 sums must match numpy's pairwise summation bit for bit
// (same order of additions), other reductions exactly or to float rounding.
TEST(Reduce, MatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(3);
  NumpyOracle np;
  struct Run {
    ReduceOp op;
    Array a;
    std::vector<int> axes;
    bool keepdims;
  };
  std::vector<Run> runs;
  const std::pair<ReduceOp, const char*> ops[] = {{ReduceOp::Sum, "sum"}, {ReduceOp::Mean, "mean"},
                                                  {ReduceOp::Max, "max"}, {ReduceOp::Min, "min"},
                                                  {ReduceOp::Prod, "prod"}};
  for (int case_idx = 0; case_idx < 60; ++case_idx) {
    Shape s = testing::random_shape(rng, 4, 40);
    if (s.empty()) s = {300};
    if (case_idx % 10 == 0) s = {3, 5000};  // long rows exercise the recursive pairwise split
    std::vector<int> axes;
    for (int dim_idx = 0; dim_idx < int(s.size()); ++dim_idx)
      if (rng() % 2) axes.push_back(rng() % 2 ? dim_idx : dim_idx - int(s.size()));
    auto [op, name] = ops[case_idx % 5];
    DType dtype = case_idx % 3 == 2 ? DType::Float64 : DType::Float32;
    Array a = testing::random_array(rng, s, dtype, op == ReduceOp::Prod ? 0.2 : 1.0);
    if (op == ReduceOp::Prod) a = binary(BinaryOp::Add, a, Array::scalar(dtype, 1.0), dtype, dtype);
    bool keepdims = rng() % 2;
    runs.push_back({op, a, axes, keepdims});
    np.expect(np.input(a) + "." + name + "(axis=" + py_axes(axes) + ", keepdims=" + (keepdims ? "True" : "False") + ")");
  }
  np.expect(np.input(Array::full({1000000}, DType::Float32, 0.1)) + ".sum()");
  auto results = np.run();
  for (size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    ASSERT_TRUE(results[k].value) << results[k].error;
    Array got = reduce(r.op, r.a, r.axes, r.keepdims, r.a.dtype());
    ASSERT_EQ(got.shape(), results[k].value->shape()) << k;
    ASSERT_EQ(got.dtype(), results[k].value->dtype()) << k;
    if (r.op == ReduceOp::Prod)
      EXPECT_LE(diff_stats(got, *results[k].value).max_rel, 1e-5) << k;
    else
      EXPECT_TRUE(testing::bit_equal(got, *results[k].value))
          << "case " << k << " shape " << shape_str(r.a.shape()) << " axes " << py_axes(r.axes)
          << " max diff " << diff_stats(got, *results[k].value).max_abs;
  }
  Array big = reduce(ReduceOp::Sum, Array::full({1000000}, DType::Float32, 0.1), {}, false, DType::Float32);
  EXPECT_TRUE(testing::bit_equal(big, *results.back().value)) << big.item() << " vs " << results.back().value->item();
}

TEST(Reduce, EmptyAndErrors) {
  Array e = Array::zeros({0, 3}, DType::Float32);
  EXPECT_EQ(reduce(ReduceOp::Sum, e, {0}, false, DType::Float32).get({1}), 0.0);
  EXPECT_THROW(reduce(ReduceOp::Max, e, {0}, false, DType::Float32), ArrayError);
  EXPECT_THROW(reduce(ReduceOp::Sum, e, {2}, false, DType::Float32), ArrayError);
  EXPECT_THROW(reduce(ReduceOp::Sum, e, {1, -1}, false, DType::Float32), ArrayError);
  Array b = Array::from_values({3}, DType::Float32, {0.0, 0.5, 2.0});
  EXPECT_EQ(reduce(ReduceOp::All, b, {}, false, DType::Bool).item(), 0.0);
  EXPECT_EQ(reduce(ReduceOp::Any, b, {}, false, DType::Bool).item(), 1.0);
  Array so = reduce(ReduceOp::Sum, Array::shape_only({4, 5, 6}, DType::Float32), {1}, true, DType::Float32);
  EXPECT_FALSE(so.has_data());
  EXPECT_EQ(so.shape(), (Shape{4, 1, 6}));
}

// 2-d, batched with broadcast batch dims, 1-d operands, transposed (non-contiguous) views.
TEST(Matmul, MatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(9);
  NumpyOracle np;
  std::vector<std::pair<Array, Array>> runs;
  const std::pair<Shape, Shape> shapes[] = {
      {{5, 7}, {7, 3}},       {{64, 130}, {130, 33}}, {{2, 4, 6}, {2, 6, 5}}, {{1, 16, 8, 4}, {1, 16, 4, 8}},
      {{3, 1, 4, 5}, {2, 5, 6}}, {{7}, {7, 4}},        {{4, 7}, {7}},          {{9}, {9}},
      {{0, 4}, {4, 3}},       {{3, 0}, {0, 2}}};
  for (const auto& [sa, sb] : shapes)
    for (DType t : {DType::Float32, DType::Float64, DType::Int64}) {
      Array a = testing::random_array(rng, sa, t), b = testing::random_array(rng, sb, t);
      runs.push_back({a, b});
      np.expect("np.matmul(" + np.input(a) + ", " + np.input(b) + ")");
    }
  Array at = testing::random_array(rng, {40, 30}, DType::Float32);
  runs.push_back({transpose(at, {}), testing::random_array(rng, {40, 20}, DType::Float32)});
  np.expect(np.input(runs.back().first) + " @ " + np.input(runs.back().second));
  auto results = np.run();
  for (size_t k = 0; k < runs.size(); ++k) {
    ASSERT_TRUE(results[k].value) << results[k].error;
    Array got = matmul(runs[k].first, runs[k].second);
    ASSERT_EQ(got.shape(), results[k].value->shape()) << k;
    ASSERT_EQ(got.dtype(), results[k].value->dtype()) << k;
    if (got.size()) EXPECT_LE(diff_stats(got, *results[k].value).rel_l2, 1e-6) << k;
  }
}

TEST(Matmul, ErrorsAndShapeOnly) {
  EXPECT_THROW(matmul(Array::zeros({2, 3}, DType::Float32), Array::zeros({4, 2}, DType::Float32)), ArrayError);
  EXPECT_THROW(matmul(Array::zeros({2, 3, 4}, DType::Float32), Array::zeros({3, 4, 2}, DType::Float32)), ArrayError);
  Array s = matmul(Array::shape_only({8, 128, 64}, DType::Float32), Array::zeros({64, 32}, DType::Float32));
  EXPECT_FALSE(s.has_data());
  EXPECT_EQ(s.shape(), (Shape{8, 128, 32}));
}

// The Tensor Engine primitive: acc (+)= A^T B, also into a strided PSUM-like view and a bf16 acc.
TEST(Matmul, TnAccumulate) {
  std::mt19937 rng(1);
  Array a = testing::random_array(rng, {128, 64}, DType::Float32);
  Array b = testing::random_array(rng, {128, 96}, DType::Float32);
  Array want = matmul(transpose(a, {}), b);
  Array acc = Array::zeros({64, 96}, DType::Float32);
  matmul_tn_accumulate(a, b, acc, false);
  EXPECT_LE(diff_stats(acc, want).rel_l2, 1e-6);
  matmul_tn_accumulate(a, b, acc, true);
  Array twice = binary(BinaryOp::Add, want, want, DType::Float32, DType::Float32);
  EXPECT_LE(diff_stats(acc, twice).rel_l2, 1e-6);

  Array psum = Array::zeros({2, 64, 128}, DType::Float32);
  Array view = get_index(psum, {int64_t{1}, Slice{}, Slice{0, 96, {}}});
  matmul_tn_accumulate(a, b, view, false);
  EXPECT_LE(diff_stats(get_index(psum, {int64_t{1}, Slice{}, Slice{0, 96, {}}}), want).rel_l2, 1e-6);
  EXPECT_EQ(psum.get({0, 3, 3}), 0.0);

  Array a_t = transpose(testing::random_array(rng, {64, 128}, DType::Float32), {});  // column-major operand
  Array acc2 = Array::zeros({64, 96}, DType::Float32);
  matmul_tn_accumulate(a_t, b, acc2, false);
  EXPECT_LE(diff_stats(acc2, matmul(transpose(a_t, {}), b)).rel_l2, 1e-6);

  Array bf = Array::zeros({64, 96}, DType::BFloat16);
  matmul_tn_accumulate(a, b, bf, false);
  EXPECT_EQ(bf.get({0, 0}), round_to(DType::BFloat16, float(want.get({0, 0}))));
  EXPECT_THROW(matmul_tn_accumulate(a, a, acc, false), ArrayError);
}

}  // namespace
}  // namespace tensor
