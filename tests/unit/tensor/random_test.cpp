#include <gtest/gtest.h>

#include "support/prerequisite.h"

#include "numpy_oracle.h"
#include "tensor/random.h"

namespace tensor {
namespace {

#define REQUIRE_NUMPY() \
  ACCELOPT_REQUIRE(!testing::python_with_numpy().empty(), "python3 with numpy not available")

// The same sequence of calls in numpy and in LegacyRandom must give bit-identical doubles,
// including the cached second Gaussian across calls of odd sizes.
TEST(LegacyRandom, BitIdenticalToNumpy) {
  REQUIRE_NUMPY();
  const uint32_t seeds[] = {0, 1, 21, 42, 63, 84, 12345, 4294967295u};
  testing::NumpyOracle np;
  for (uint32_t seed : seeds) {
    std::string s = std::to_string(seed);
    np.expect("(np.random.seed(" + s + "), np.random.normal(0, 1, size=(3, 5)))[1]");
    np.expect("np.random.normal(2.5, 0.05, size=7)");
    np.expect("np.random.uniform(-1, 3, size=(2, 3))");
    np.expect("np.random.normal(size=1)");
    np.expect("np.random.rand(5, 1)");
    np.expect("np.random.random_sample(9)");
    np.expect("np.random.randn(3)");
  }
  auto results = np.run();
  size_t k = 0;
  for (uint32_t seed : seeds) {
    LegacyRandom rng(seed);
    std::vector<Array> mine = {rng.normal_array(0, 1, {3, 5}), rng.normal_array(2.5, 0.05, {7}),
                               rng.uniform_array(-1, 3, {2, 3}), rng.normal_array(0, 1, {1}),
                               rng.random_array({5, 1}), rng.random_array({9}), rng.normal_array(0, 1, {3})};
    for (const Array& a : mine) {
      ASSERT_TRUE(results[k].value) << results[k].error;
      EXPECT_TRUE(testing::bit_equal(a, *results[k].value)) << "seed " << seed << " call " << k;
      ++k;
    }
  }
}

TEST(LegacyRandom, ReseedClearsCachedGaussian) {
  LegacyRandom rng(5);
  double first = rng.gauss();
  rng.gauss();
  rng.gauss();  // leaves a cached value
  rng.seed_with(5);
  EXPECT_EQ(rng.gauss(), first);
}

TEST(LegacyRandom, ShapeOnlyDoesNotAdvance) {
  LegacyRandom a(3), b(3);
  Array s = a.normal_array(0, 1, {1000, 1000}, /*shape_only=*/true);
  EXPECT_FALSE(s.has_data());
  EXPECT_EQ(s.shape(), (Shape{1000, 1000}));
  EXPECT_EQ(a.gauss(), b.gauss());
}

// The bulk normal_array loop must draw exactly what per-element normal() calls draw: odd and even
// sizes, a cached Gaussian left over from before, and many MT19937 regenerations (624 words).
TEST(LegacyRandom, BulkNormalMatchesScalarDraws) {
  LegacyRandom bulk(42), scalar(42);
  bulk.gauss();  // leaves a cached Gaussian for the first bulk call
  scalar.gauss();
  for (int64_t n : {1, 2, 7, 5001, 2, 3, 1000}) {
    Array a = bulk.normal_array(0.5, 2.0, {n});
    for (int64_t idx = 0; idx < n; ++idx)
      ASSERT_EQ(a.f64()[idx], scalar.normal(0.5, 2.0)) << "size " << n << " element " << idx;
  }
  EXPECT_EQ(bulk.gauss(), scalar.gauss());
  EXPECT_EQ(bulk.random_sample(), scalar.random_sample());
}

}  // namespace
}  // namespace tensor
