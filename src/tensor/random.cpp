// numpy's legacy RandomState: MT19937 (init_genrand seeding) and legacy_gauss.
#include "tensor/random.h"

#include <cmath>

namespace tensor {

void LegacyRandom::seed_with(uint32_t seed) {
  // numpy/random/src/mt19937/mt19937.c: mt19937_seed
  for (int pos = 0; pos < 624; ++pos) {
    mt_[pos] = seed;
    seed = 1812433253u * (seed ^ (seed >> 30)) + static_cast<uint32_t>(pos + 1);
  }
  index_ = 624;
  has_gauss_ = false;
  cached_gauss_ = 0;
}

uint32_t LegacyRandom::next_u32() {
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrixA = 0x9908b0dfu;
  if (index_ >= 624) {  // regenerate the whole state (mt19937_gen)
    int k = 0;
    for (; k < 624 - 397; ++k) {
      uint32_t y = (mt_[k] & kUpper) | (mt_[k + 1] & kLower);
      mt_[k] = mt_[k + 397] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    }
    for (; k < 623; ++k) {
      uint32_t y = (mt_[k] & kUpper) | (mt_[k + 1] & kLower);
      mt_[k] = mt_[k + 397 - 624] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    }
    uint32_t y = (mt_[623] & kUpper) | (mt_[0] & kLower);
    mt_[623] = mt_[396] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
    index_ = 0;
  }
  uint32_t y = mt_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

double LegacyRandom::random_sample() {
  uint32_t a = next_u32() >> 5, b = next_u32() >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double LegacyRandom::gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    double g = cached_gauss_;
    cached_gauss_ = 0;
    return g;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * random_sample() - 1.0;
    x2 = 2.0 * random_sample() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = std::sqrt(-2.0 * std::log(r2) / r2);  // polar Box-Muller
  cached_gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

namespace {
template <class F>
Array fill_array(const Shape& shape, bool shape_only, F&& next) {
  if (shape_only) return Array::shape_only(shape, DType::Float64);
  Array out = Array::empty(shape, DType::Float64);
  double* p = out.f64();
  for (int64_t idx = 0; idx < out.size(); ++idx) p[idx] = next();
  return out;
}
}  // namespace

Array LegacyRandom::normal_array(double loc, double scale, const Shape& shape, bool shape_only) {
  return fill_array(shape, shape_only, [&] { return normal(loc, scale); });
}
Array LegacyRandom::uniform_array(double low, double high, const Shape& shape, bool shape_only) {
  return fill_array(shape, shape_only, [&] { return uniform(low, high); });
}
Array LegacyRandom::random_array(const Shape& shape, bool shape_only) {
  return fill_array(shape, shape_only, [&] { return random_sample(); });
}

}  // namespace tensor
