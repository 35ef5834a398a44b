// Shared helpers for the tensor tests: random arrays and shapes from a seeded generator.
#pragma once

#include "support/prerequisite.h"

#include <random>

#include "numpy_oracle.h"
#include "tensor/array.h"
#include "tensor/random.h"

#define REQUIRE_NUMPY() \
  ACCELOPT_REQUIRE(!::tensor::testing::python_with_numpy().empty(), "python3 with numpy not available")

namespace tensor::testing {

inline Array random_array(std::mt19937& rng, const Shape& shape, DType dtype, double scale = 1.0) {
  std::normal_distribution<double> dist(0.0, scale);
  std::vector<double> values(num_elements(shape));
  for (double& v : values) v = is_float(dtype) ? dist(rng) : std::round(dist(rng) * 10);
  if (dtype == DType::Bool)
    for (double& v : values) v = v > 0;
  return Array::from_values(shape, dtype, values);
}

// A shape of 0..max_ndim dims, each 1..max_dim.
inline Shape random_shape(std::mt19937& rng, int max_ndim, int64_t max_dim) {
  std::uniform_int_distribution<int> nd(0, max_ndim);
  std::uniform_int_distribution<int64_t> dim(1, max_dim);
  Shape s(nd(rng));
  for (int64_t& d : s) d = dim(rng);
  return s;
}

// A shape that broadcasts with `s`: some trailing dims kept, some set to 1, maybe fewer dims.
inline Shape broadcastable_with(std::mt19937& rng, const Shape& s) {
  std::uniform_int_distribution<size_t> drop(0, s.size());
  Shape out(s.begin() + drop(rng), s.end());
  for (int64_t& d : out)
    if (rng() % 3 == 0) d = 1;
  return out;
}

}  // namespace tensor::testing
