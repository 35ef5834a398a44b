// Exponential backoff with jitter between retries of a chat call.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

namespace llm {

class Backoff {
 public:
  // seed 0: seeded from the clock.
  Backoff(double initial_s, double max_s, uint64_t seed);
  // Delay before retry `retry` (1-based): min(max, initial * 2^(retry-1)) * U[0.5, 1].
  // Jitter spreads out clients that failed together so they do not retry in lockstep.
  double delay_s(int retry);

 private:
  double initial_s_, max_s_;
  std::mutex mutex_;
  std::mt19937_64 rng_;
};

}  // namespace llm
