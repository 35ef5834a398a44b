#include "llm/endpoint_limiter.h"

#include <chrono>
#include <map>

namespace llm {

bool EndpointSemaphore::acquire(const std::atomic<bool>* cancel) {
  std::unique_lock lock(mutex_);
  // Wake periodically so that a cancelled caller does not wait for a slot.
  while (in_use_ >= limit_) {
    if (cancel && cancel->load()) return false;
    freed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (cancel && cancel->load()) return false;
  ++in_use_;
  return true;
}

void EndpointSemaphore::release() {
  {
    std::lock_guard lock(mutex_);
    --in_use_;
  }
  freed_.notify_one();
}

int EndpointSemaphore::in_use() {
  std::lock_guard lock(mutex_);
  return in_use_;
}

std::shared_ptr<EndpointSemaphore> endpoint_semaphore(const std::string& url, int limit) {
  static std::mutex registry_mutex;
  static std::map<std::string, std::weak_ptr<EndpointSemaphore>> registry;
  std::lock_guard lock(registry_mutex);
  auto& slot = registry[url];
  if (auto existing = slot.lock()) return existing;
  auto created = std::make_shared<EndpointSemaphore>(limit);
  slot = created;
  return created;
}

}  // namespace llm
