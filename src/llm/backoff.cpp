#include "llm/backoff.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace llm {

Backoff::Backoff(double initial_s, double max_s, uint64_t seed)
    : initial_s_(std::max(0.0, initial_s)),
      max_s_(std::max(0.0, max_s)),
      rng_(seed ? seed : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())) {}

double Backoff::delay_s(int retry) {
  double exponential = initial_s_ * std::pow(2.0, std::max(0, retry - 1));
  double capped = std::min(max_s_, exponential);
  std::lock_guard lock(mutex_);
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return capped * jitter(rng_);
}

}  // namespace llm
