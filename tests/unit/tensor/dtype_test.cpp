#include <gtest/gtest.h>

#include "support/prerequisite.h"

#include <cmath>
#include <cstring>
#include <random>

#include "numpy_oracle.h"
#include "tensor/dtype.h"
#include "tensor/ops.h"

namespace tensor {
namespace {

using testing::NumpyOracle;

const DType kNumpyTypes[] = {DType::Bool,   DType::Int8,   DType::Int16,   DType::Int32,   DType::Int64,
                             DType::UInt8,  DType::UInt16, DType::UInt32,  DType::UInt64,  DType::Float16,
                             DType::Float32, DType::Float64};

#define REQUIRE_NUMPY() \
  ACCELOPT_REQUIRE(!testing::python_with_numpy().empty(), "python3 with numpy not available")

TEST(DType, NamesRoundTrip) {
  for (int t = 0; t <= static_cast<int>(DType::Float64); ++t) {
    DType d = static_cast<DType>(t);
    EXPECT_EQ(parse_dtype(name(d)), d) << name(d);
  }
  EXPECT_EQ(parse_dtype("float"), DType::Float64);
  EXPECT_EQ(parse_dtype("bool_"), DType::Bool);
  EXPECT_FALSE(parse_dtype("complex64"));
}

// Every pair of numpy dtypes, array with array: numpy.promote_types.
TEST(DType, PromoteMatchesNumpy) {
  REQUIRE_NUMPY();
  NumpyOracle np;
  std::vector<std::pair<DType, DType>> pairs;
  for (DType a : kNumpyTypes)
    for (DType b : kNumpyTypes) {
      pairs.push_back({a, b});
      np.expect("np.zeros(1, dtype=np.promote_types('" + std::string(name(a)) + "', '" + std::string(name(b)) + "'))");
    }
  auto results = np.run();
  for (size_t k = 0; k < pairs.size(); ++k)
    EXPECT_EQ(name(promote(pairs[k].first, pairs[k].second)), name(results[k].value->dtype()))
        << name(pairs[k].first) << " + " << name(pairs[k].second);
}

// Array with Python scalar and with numpy scalars, value-based (NumPy 1.24 rules).
TEST(DType, ScalarPromotionMatchesNumpy) {
  REQUIRE_NUMPY();
  NumpyOracle np;
  struct Case {
    DType array;
    std::optional<DType> scalar;  // nullopt: Python scalar
    ScalarKind kind;
    double value;
    std::string literal;
  };
  std::vector<Case> cases;
  const std::pair<ScalarKind, std::string> python_scalars[] = {
      {ScalarKind::Bool, "True"}, {ScalarKind::Int, "0"},       {ScalarKind::Int, "1"},
      {ScalarKind::Int, "-1"},    {ScalarKind::Int, "300"},     {ScalarKind::Int, "-300"},
      {ScalarKind::Int, "70000"}, {ScalarKind::Int, "-70000"},  {ScalarKind::Int, "5000000000"},
      {ScalarKind::Float, "0.5"}, {ScalarKind::Float, "-1e5"},  {ScalarKind::Float, "1e300"},
      {ScalarKind::Float, "0.9"}};
  for (DType t : kNumpyTypes) {
    for (const auto& [kind, lit] : python_scalars) {
      double v = lit == "True" ? 1.0 : std::stod(lit);
      cases.push_back({t, std::nullopt, kind, v, lit});
      np.expect("np.ones(2, '" + std::string(name(t)) + "') + " + lit);
    }
    for (DType s : {DType::Bool, DType::Int8, DType::Int64, DType::UInt8, DType::Float32, DType::Float64})
      for (double v : {1.0, 200.0, -3.0}) {
        cases.push_back({t, s, ScalarKind::Float, v, ""});
        np.expect("np.ones(2, '" + std::string(name(t)) + "') + np.dtype('" + std::string(name(s)) + "').type(" +
                  std::to_string(v) + ")");
      }
  }
  auto results = np.run();
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    ASSERT_TRUE(results[k].value) << results[k].error;
    double v = c.scalar ? cast_scalar(*c.scalar, c.value) : c.value;
    DType got = c.scalar ? promote_array_scalar(c.array, *c.scalar, v) : promote_with_scalar(c.array, c.kind, v);
    EXPECT_EQ(name(got), name(results[k].value->dtype()))
        << name(c.array) << " array with " << (c.scalar ? name(*c.scalar) : "python") << " " << v;
  }
}

TEST(DType, NkiPromotionTable) {  // nki-language.md 3.8
  EXPECT_EQ(nki_promote(DType::Int32, DType::Float16), DType::Float16);
  EXPECT_EQ(nki_promote(DType::UInt16, DType::TFloat32), DType::TFloat32);
  EXPECT_EQ(nki_promote(DType::Float32, DType::TFloat32), DType::Float32);
  EXPECT_EQ(nki_promote(DType::Float32, DType::BFloat16), DType::Float32);
  EXPECT_EQ(nki_promote(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(nki_promote(DType::Float8E4M3, DType::Float16), DType::Float16);
  EXPECT_EQ(nki_promote(DType::Float8E4M3, DType::BFloat16), DType::BFloat16);
  EXPECT_EQ(nki_promote(DType::Float8E4M3, DType::Float8E5M2), DType::BFloat16);
  EXPECT_EQ(nki_promote(DType::Int16, DType::Int32), DType::Int32);
  EXPECT_EQ(nki_promote(DType::UInt8, DType::UInt16), DType::UInt16);
  EXPECT_EQ(nki_promote(DType::UInt16, DType::Int32), DType::Int32);
  EXPECT_EQ(nki_promote(DType::Int8, DType::UInt8), DType::Int16);
  EXPECT_EQ(nki_promote(DType::Int8, DType::UInt16), DType::Int32);
  EXPECT_EQ(nki_promote(DType::Int32, DType::UInt32), DType::Float32);
}

// float16 rounding is checked against numpy's own float16 conversion for many values,
// including exact ties, subnormals and overflow.
TEST(DType, Float16RoundingMatchesNumpy) {
  REQUIRE_NUMPY();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-26, 16);
  std::vector<double> values;
  for (int idx = 0; idx < 4000; ++idx)
    values.push_back(std::ldexp(mantissa(rng), exponent(rng)) * (idx % 2 ? -1.0 : 1.0));
  for (int m = 0; m < 64; ++m) values.push_back(1.0 + (2 * m + 1) * std::ldexp(1.0, -11));  // ties
  values.push_back(65519.0);
  values.push_back(65520.0);
  values.push_back(1e-8);
  Array in = Array::from_values({int64_t(values.size())}, DType::Float32, values);
  NumpyOracle np;
  np.expect(np.input(in) + ".astype(np.float16)");
  auto results = np.run();
  Array mine = astype(in, DType::Float16);
  ASSERT_TRUE(results[0].value);
  EXPECT_TRUE(testing::bit_equal(mine, *results[0].value));
}

// bf16/tf32 round-to-nearest-even: exact values stay, halfway cases go to the even neighbour.
TEST(DType, BFloat16AndTf32RoundToNearestEven) {
  for (int m = 0; m < 128; ++m) {
    float exact = 1.0f + m / 128.0f;
    EXPECT_EQ(round_to(DType::BFloat16, exact), exact);
    float tie = exact + 1.0f / 256.0f;
    float even = (m % 2 == 0) ? exact : exact + 1.0f / 128.0f;
    EXPECT_EQ(round_to(DType::BFloat16, tie), even) << m;
    EXPECT_EQ(round_to(DType::BFloat16, std::nextafter(tie, 3.0f)), exact + 1.0f / 128.0f);
  }
  EXPECT_TRUE(std::isnan(round_to(DType::BFloat16, NAN)));
  EXPECT_TRUE(std::isinf(round_to(DType::BFloat16, 3.4e38f)));
  EXPECT_EQ(round_to(DType::TFloat32, 1.0f + 1.0f / 2048.0f), 1.0f);
  EXPECT_EQ(round_to(DType::TFloat32, 1.0f + 3.0f / 2048.0f), 1.0f + 2.0f / 1024.0f);
}

TEST(DType, Float8Formats) {
  EXPECT_EQ(round_to(DType::Float8E4M3, 240.0f), 240.0f);
  EXPECT_EQ(round_to(DType::Float8E4M3, 247.0f), 240.0f);
  EXPECT_TRUE(std::isinf(round_to(DType::Float8E4M3, 248.0f)));
  EXPECT_EQ(round_to(DType::Float8E4M3, 0.3f), 0.3125f);
  EXPECT_EQ(round_to(DType::Float8E4M3, std::ldexp(1.0f, -9)), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(round_to(DType::Float8E4M3, std::ldexp(1.0f, -11)), 0.0f);
  EXPECT_EQ(round_to(DType::Float8E5M2, 57344.0f), 57344.0f);
  EXPECT_TRUE(std::isinf(round_to(DType::Float8E5M2, 61440.0f)));
  EXPECT_EQ(round_to(DType::Float8E5M2, 1.125f), 1.0f);  // tie to even
  EXPECT_EQ(round_to(DType::Float8E5M2, 1.375f), 1.5f);
}

TEST(DType, CastScalarWrapsIntegers) {
  EXPECT_EQ(cast_scalar(DType::Int8, 200), -56);
  EXPECT_EQ(cast_scalar(DType::UInt8, -1), 255);
  EXPECT_EQ(cast_scalar(DType::Int32, -2.7), -2);
  EXPECT_EQ(cast_scalar(DType::Bool, 0.5), 1);
  EXPECT_EQ(cast_scalar(DType::Float32, 0.1), static_cast<double>(0.1f));
}

}  // namespace
}  // namespace tensor
