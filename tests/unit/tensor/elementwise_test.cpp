#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"
#include "tensor/ops.h"

namespace tensor {
namespace {

using testing::NumpyOracle;

struct BinaryCase {
  BinaryOp op;
  const char* numpy;
};
const BinaryCase kBinary[] = {
    {BinaryOp::Add, "np.add"},          {BinaryOp::Sub, "np.subtract"},      {BinaryOp::Mul, "np.multiply"},
    {BinaryOp::Div, "np.divide"},       {BinaryOp::Maximum, "np.maximum"},   {BinaryOp::Minimum, "np.minimum"},
    {BinaryOp::FloorDiv, "np.floor_divide"}, {BinaryOp::Mod, "np.remainder"}, {BinaryOp::Pow, "np.power"},
    {BinaryOp::Lt, "np.less"},          {BinaryOp::Ge, "np.greater_equal"},  {BinaryOp::Eq, "np.equal"},
};

// Random shapes that broadcast, random dtypes (float32/float64/int32), numpy's result dtype:
// values and dtypes must agree (float32 within 1 ulp-ish of numpy's SIMD loops).
TEST(Elementwise, BinaryMatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(11);
  NumpyOracle np;
  struct Run {
    Array a, b;
    BinaryOp op;
  };
  std::vector<Run> runs;
  const DType dtypes[] = {DType::Float32, DType::Float64, DType::Int32};
  for (int case_idx = 0; case_idx < 120; ++case_idx) {
    Shape sa = testing::random_shape(rng, 4, 6);
    Shape sb = testing::broadcastable_with(rng, sa);
    if (rng() % 2) std::swap(sa, sb);
    const BinaryCase& bc = kBinary[case_idx % std::size(kBinary)];
    DType ta = dtypes[rng() % 3], tb = dtypes[rng() % 3];
    bool is_int = !is_float(promote(ta, tb));
    if (is_int && bc.op == BinaryOp::Pow) tb = DType::Float32;
    Array a = testing::random_array(rng, sa, ta), b = testing::random_array(rng, sb, tb);
    runs.push_back({a, b, bc.op});
    np.expect(std::string(bc.numpy) + "(" + np.input(a) + ", " + np.input(b) + ")");
  }
  auto results = np.run();
  for (size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    ASSERT_TRUE(results[k].value) << results[k].error;
    const Array& want = *results[k].value;
    // numpy 1.24: a 0-d operand takes part like a scalar (value-based casting)
    DType compute = r.b.ndim() == 0 && r.a.ndim() > 0   ? promote_array_scalar(r.a.dtype(), r.b.dtype(), r.b.item())
                    : r.a.ndim() == 0 && r.b.ndim() > 0 ? promote_array_scalar(r.b.dtype(), r.a.dtype(), r.a.item())
                                                        : promote(r.a.dtype(), r.b.dtype());
    if (r.op == BinaryOp::Div && !is_float(compute)) compute = DType::Float64;
    DType out = want.dtype();
    Array got = binary(r.op, r.a, r.b, compute, out);
    ASSERT_EQ(got.shape(), want.shape()) << k;
    ASSERT_EQ(got.dtype(), want.dtype()) << k;
    EXPECT_LE(testing::max_rel_diff(got, want), 1e-6)
        << "case " << k << " op " << int(r.op) << " " << name(r.a.dtype()) << shape_str(r.a.shape()) << " "
        << name(r.b.dtype()) << shape_str(r.b.shape());
  }
}

struct UnaryCase {
  UnaryOp op;
  const char* numpy;  // expression of x
  bool positive;      // domain needs x > 0
};
const UnaryCase kUnary[] = {
    {UnaryOp::Exp, "np.exp(x)", false},       {UnaryOp::Log, "np.log(x)", true},
    {UnaryOp::Sqrt, "np.sqrt(x)", true},      {UnaryOp::Tanh, "np.tanh(x)", false},
    {UnaryOp::Abs, "np.abs(x)", false},       {UnaryOp::Square, "np.square(x)", false},
    {UnaryOp::Reciprocal, "np.reciprocal(x)", false}, {UnaryOp::Neg, "np.negative(x)", false},
    {UnaryOp::Sign, "np.sign(x)", false},     {UnaryOp::Floor, "np.floor(x)", false},
    {UnaryOp::Sigmoid, "1 / (1 + np.exp(-x))", false}, {UnaryOp::Silu, "x / (1 + np.exp(-x))", false},
    {UnaryOp::Relu, "np.maximum(x, 0)", false}, {UnaryOp::Softplus, "np.log1p(np.exp(x))", false},
    {UnaryOp::Rsqrt, "1 / np.sqrt(x)", true}, {UnaryOp::Arctan, "np.arctan(x)", false},
    {UnaryOp::GeluApproxTanh, "0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))", false},
    {UnaryOp::Mish, "x * np.tanh(np.log1p(np.exp(x)))", false},
    {UnaryOp::ErfDx, "2 / np.sqrt(np.pi) * np.exp(-x * x)", false},
};

// Activation functions and ufuncs in float64 against numpy (definitions from nki-language.md 9.2).
TEST(Elementwise, UnaryMatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(5);
  NumpyOracle np;
  std::vector<Array> inputs;
  for (const UnaryCase& uc : kUnary) {
    Array x = testing::random_array(rng, {7, 33}, DType::Float64, 3.0);
    if (uc.positive) x = unary(UnaryOp::Abs, x, DType::Float64, DType::Float64);
    inputs.push_back(x);
    np.prelude("x = None");
    np.expect("(lambda x: " + std::string(uc.numpy) + ")(" + np.input(x) + ")");
  }
  auto results = np.run();
  for (size_t k = 0; k < inputs.size(); ++k) {
    ASSERT_TRUE(results[k].value) << results[k].error;
    Array got = unary(kUnary[k].op, inputs[k], DType::Float64, DType::Float64);
    EXPECT_LE(diff_stats(got, *results[k].value).rel_l2, 1e-14) << kUnary[k].numpy;
    // float32 compute stays close to the float64 result
    Array got32 = unary(kUnary[k].op, astype(inputs[k], DType::Float32), DType::Float32, DType::Float32);
    EXPECT_EQ(got32.dtype(), DType::Float32);
    EXPECT_LE(diff_stats(got32, *results[k].value).rel_l2, 1e-6) << kUnary[k].numpy;
  }
}

TEST(Elementwise, GeluErfDerivativesAreConsistent) {
  // d/dx gelu == gelu_dx, checked by central differences in float64.
  Array x = arange(-4, 4, 0.25, DType::Float64);
  double h = 1e-6;
  Array xp = binary(BinaryOp::Add, x, Array::scalar(DType::Float64, h), DType::Float64, DType::Float64);
  Array xm = binary(BinaryOp::Sub, x, Array::scalar(DType::Float64, h), DType::Float64, DType::Float64);
  for (auto [f, df] : {std::pair{UnaryOp::Gelu, UnaryOp::GeluDx}, {UnaryOp::Erf, UnaryOp::ErfDx}, {UnaryOp::Silu, UnaryOp::SiluDx}}) {
    Array num = binary(BinaryOp::Div,
                       binary(BinaryOp::Sub, unary(f, xp, DType::Float64, DType::Float64),
                              unary(f, xm, DType::Float64, DType::Float64), DType::Float64, DType::Float64),
                       Array::scalar(DType::Float64, 2 * h), DType::Float64, DType::Float64);
    EXPECT_LE(diff_stats(num, unary(df, x, DType::Float64, DType::Float64)).max_abs, 1e-8) << int(f);
  }
}

TEST(Elementwise, NarrowOutputIsRounded) {
  Array a = Array::full({4}, DType::Float32, 1.0);
  Array b = Array::full({4}, DType::Float32, 1.0 / 512);
  Array c = binary(BinaryOp::Add, a, b, DType::Float32, DType::BFloat16);
  EXPECT_EQ(c.dtype(), DType::BFloat16);
  EXPECT_EQ(c.get({0}), 1.0);  // 1 + 2^-9 rounds to 1 in bf16
  Array d = binary(BinaryOp::Add, a, b, DType::Float32, DType::Float32);
  EXPECT_EQ(d.get({0}), 1.0 + 1.0 / 512);
}

TEST(Elementwise, IntegerEdgeCasesDoNotTrap) {
  Array a = Array::from_values({4}, DType::Int64, {7, -7, 5, -9223372036854775807.0 - 1});
  Array z = Array::from_values({4}, DType::Int64, {0, 2, -2, -1});
  Array q = binary(BinaryOp::FloorDiv, a, z, DType::Int64, DType::Int64);
  EXPECT_EQ(q.get({0}), 0);
  EXPECT_EQ(q.get({1}), -4);
  EXPECT_EQ(q.get({2}), -3);
  Array m = binary(BinaryOp::Mod, a, z, DType::Int64, DType::Int64);
  EXPECT_EQ(m.get({1}), 1);
  EXPECT_EQ(m.get({2}), -1);
  EXPECT_THROW(binary(BinaryOp::Pow, a, z, DType::Int64, DType::Int64), ArrayError);
  Array w = binary(BinaryOp::Add, Array::full({1}, DType::Int32, 2147483647), Array::full({1}, DType::Int32, 1),
                   DType::Int32, DType::Int32);
  EXPECT_EQ(w.get({0}), -2147483648.0);
}

TEST(Elementwise, ShapeOnlyPropagates) {
  Array a = Array::shape_only({128, 512}, DType::Float32);
  Array b = Array::full({128, 1}, DType::Float32, 2);
  Array c = binary(BinaryOp::Mul, a, b, DType::Float32, DType::Float32);
  EXPECT_FALSE(c.has_data());
  EXPECT_EQ(c.shape(), (Shape{128, 512}));
  EXPECT_FALSE(unary(UnaryOp::Exp, c, DType::Float32, DType::Float32).has_data());
  EXPECT_THROW(binary(BinaryOp::Add, a, Array::shape_only({3}, DType::Float32), DType::Float32, DType::Float32), ArrayError);
}

TEST(Elementwise, BroadcastErrorNamesShapes) {
  try {
    broadcast_shapes({2, 3}, {4});
    FAIL();
  } catch (const ArrayError& e) {
    EXPECT_STREQ(e.what(), "operands could not be broadcast together with shapes (2, 3) (4,)");
  }
}

}  // namespace
}  // namespace tensor

namespace tensor {
namespace {

// float32 exp reproduces numpy's own SIMD algorithm bit for bit (the references' softmax, silu
// and mamba depend on it), including overflow, underflow to subnormals and zero, inf and NaN.
TEST(Elementwise, Float32ExpIsBitIdenticalToNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(2);
  std::vector<double> values = {0.0, -0.0, 88.7, 88.72283935546875, 89.0, -87.0, -100.0, -103.9, -103.97208404541015625,
                                -104.0, INFINITY, -INFINITY, NAN, 1e-30, -1e-30};
  for (double scale : {0.003, 1.0, 10.0, 40.0}) {
    std::normal_distribution<double> dist(0, scale);
    for (int idx = 0; idx < 5000; ++idx) values.push_back(dist(rng));
  }
  Array x = Array::from_values({int64_t(values.size())}, DType::Float32, values);
  NumpyOracle np;
  np.expect("np.exp(" + np.input(x) + ")");
  auto results = np.run();
  ASSERT_TRUE(results[0].value) << results[0].error;
  Array got = unary(UnaryOp::Exp, x, DType::Float32, DType::Float32);
  EXPECT_TRUE(testing::bit_equal(got, *results[0].value));
  int64_t mismatches = 0;
  for (int64_t idx = 0; idx < got.size(); ++idx) {
    double g = got.get({idx}), w = results[0].value->get({idx});
    if (!(g == w || (std::isnan(g) && std::isnan(w)))) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

// The in-place PSUM add gives exactly binary(Add) + assign, through strided views, and declines
// (touching nothing) what it does not handle.
TEST(Elementwise, AddIntoMatchesBinaryAddAndDeclinesOtherCases) {
  Array base = reshape(arange(0, 48, 1, DType::Float32), {6, 8});
  Array src = reshape(unary(UnaryOp::Sqrt, arange(1, 49, 1, DType::Float32), DType::Float32, DType::Float32), {6, 8});
  Array dst = base.copy();
  Array dst_view = dst.view({3, 4}, {16, 2}, 1);  // every other row and column, from (0, 1)
  Array src_view = src.view({3, 4}, {1, 8}, 0);   // column-major walk: strided on both axes
  Array expected = binary(BinaryOp::Add, dst_view, src_view, DType::Float32, DType::Float32);
  ASSERT_TRUE(add_into_f32(dst_view, src_view));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(dst_view.get({i, j}), expected.get({i, j}));
  EXPECT_EQ(dst.get({0, 0}), 0.0);  // outside the view: untouched
  Array f64 = astype(base, DType::Float64);
  EXPECT_FALSE(add_into_f32(f64, src));
  Array before = dst.copy();
  EXPECT_FALSE(add_into_f32(dst, src.view({8}, {1}, 0)));        // shapes differ (no broadcasting)
  EXPECT_FALSE(add_into_f32(dst, dst.view({6, 8}, {8, 1}, 0)));  // overlapping
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 8; ++j) EXPECT_EQ(dst.get({i, j}), before.get({i, j}));
}

}  // namespace
}  // namespace tensor
