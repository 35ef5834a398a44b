// numpy's legacy RandomState stream (MT19937 + polar Box-Muller with a cached Gaussian),
// reproduced bit for bit so that a seed gives the same inputs as real numpy.
// See nki-language.md section 13.3.
#pragma once

#include <array>
#include <cstdint>

#include "tensor/array.h"

namespace tensor {

class LegacyRandom {
 public:
  explicit LegacyRandom(uint32_t seed = 0) { seed_with(seed); }
  void seed_with(uint32_t seed);  // also clears the cached Gaussian
  uint32_t next_u32();
  double random_sample();  // [0, 1), 53-bit
  double gauss();          // legacy_gauss
  double normal(double loc, double scale) { return loc + scale * gauss(); }
  double uniform(double low, double high) { return low + (high - low) * random_sample(); }

  // Arrays filled in C order (float64, as numpy returns them). A shape-only request still
  // advances nothing and returns a shape-only array.
  Array normal_array(double loc, double scale, const Shape& shape, bool shape_only = false);
  Array uniform_array(double low, double high, const Shape& shape, bool shape_only = false);
  Array random_array(const Shape& shape, bool shape_only = false);
  // n draws of normal(loc, scale) into out (what normal_array fills), advancing the stream alike.
  void fill_normal(double* out, int64_t n, double loc, double scale);

 private:
  std::array<uint32_t, 624> mt_{};
  int index_ = 625;
  bool has_gauss_ = false;
  double cached_gauss_ = 0;
};

}  // namespace tensor
