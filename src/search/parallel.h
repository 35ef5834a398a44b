// A bounded parallel loop for agent calls (which mostly wait on the network).
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace search {

// Runs fn(0..n-1) on up to `threads` threads; returns when all are done. The first exception
// thrown by fn is rethrown after every thread has finished.
inline void parallel_for(size_t n, int threads, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  size_t workers = std::min<size_t>(n, threads < 1 ? 1 : static_cast<size_t>(threads));
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace search
