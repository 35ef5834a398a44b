// Per-endpoint concurrency limits: every client of the same URL shares one counting semaphore,
// so agents pointed at the same server together respect its limit.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace llm {

class EndpointSemaphore {
 public:
  explicit EndpointSemaphore(int limit) : limit_(limit < 1 ? 1 : limit) {}
  // Blocks until a slot is free; returns false (without a slot) if `cancel` became true.
  bool acquire(const std::atomic<bool>* cancel);
  void release();
  int limit() const { return limit_; }
  int in_use();

 private:
  const int limit_;
  int in_use_ = 0;
  std::mutex mutex_;
  std::condition_variable freed_;
};

// The semaphore for `url`, created with `limit` on first use (later limits are ignored).
std::shared_ptr<EndpointSemaphore> endpoint_semaphore(const std::string& url, int limit);

// Holds one slot for its lifetime.
class SlotGuard {
 public:
  explicit SlotGuard(EndpointSemaphore& semaphore) : semaphore_(semaphore) {}
  ~SlotGuard() { semaphore_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  EndpointSemaphore& semaphore_;
};

}  // namespace llm
