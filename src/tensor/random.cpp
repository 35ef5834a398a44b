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

namespace {

// The MT19937 state update (mt19937_gen): regenerates all 624 words at once.
void regenerate(std::array<uint32_t, 624>& mt) {
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrixA = 0x9908b0dfu;
  int k = 0;
  for (; k < 624 - 397; ++k) {
    uint32_t y = (mt[k] & kUpper) | (mt[k + 1] & kLower);
    mt[k] = mt[k + 397] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
  }
  for (; k < 623; ++k) {
    uint32_t y = (mt[k] & kUpper) | (mt[k + 1] & kLower);
    mt[k] = mt[k + 397 - 624] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
  }
  uint32_t y = (mt[623] & kUpper) | (mt[0] & kLower);
  mt[623] = mt[396] ^ (y >> 1) ^ (-(y & 1u) & kMatrixA);
}

inline uint32_t temper(uint32_t y) {
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

}  // namespace

uint32_t LegacyRandom::next_u32() {
  if (index_ >= 624) {
    regenerate(mt_);
    index_ = 0;
  }
  return temper(mt_[index_++]);
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

// The bulk form of normal(): the same draws and arithmetic as calling normal() per element (so
// the stream stays bit-identical to numpy's), with the generator inlined into one loop. Arrays of
// normal samples are most of the input generation of the benchmark (adamw draws 90M of them).
void LegacyRandom::fill_normal(double* out, int64_t n, double loc, double scale) {
  int64_t idx = 0;
  if (idx < n && has_gauss_) out[idx++] = normal(loc, scale);
  // Local copies of the state keep the hot loop in registers.
  int index = index_;
  auto next = [&]() -> uint32_t {
    if (index >= 624) {
      regenerate(mt_);
      index = 0;
    }
    return temper(mt_[index++]);
  };
  auto sample = [&]() -> double {
    uint32_t a = next() >> 5, b = next() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  };
  for (; idx < n; idx += 2) {
    double x1, x2, r2;
    do {
      x1 = 2.0 * sample() - 1.0;
      x2 = 2.0 * sample() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = std::sqrt(-2.0 * std::log(r2) / r2);
    out[idx] = loc + scale * (f * x2);
    if (idx + 1 < n) {
      out[idx + 1] = loc + scale * (f * x1);
    } else {  // odd count: the second value stays cached for the next draw, as in gauss()
      has_gauss_ = true;
      cached_gauss_ = f * x1;
    }
  }
  index_ = index;
}

Array LegacyRandom::normal_array(double loc, double scale, const Shape& shape, bool shape_only) {
  if (shape_only) return Array::shape_only(shape, DType::Float64);
  Array out = Array::empty(shape, DType::Float64);
  fill_normal(out.f64(), out.size(), loc, scale);
  return out;
}
Array LegacyRandom::uniform_array(double low, double high, const Shape& shape, bool shape_only) {
  return fill_array(shape, shape_only, [&] { return uniform(low, high); });
}
Array LegacyRandom::random_array(const Shape& shape, bool shape_only) {
  return fill_array(shape, shape_only, [&] { return random_sample(); });
}

}  // namespace tensor
