#include "trn/resource_timeline.h"

#include <algorithm>
#include <iterator>

namespace trn {

double ResourceTimeline::reserve(double earliest, double duration) {
  busy_ns_ += duration;
  double start = std::max(earliest, horizon_);
  if (duration <= 0) return start;
  // First interval that ends after `start`.
  auto it = busy_.upper_bound(start);
  if (it != busy_.begin()) {
    auto prev = std::prev(it);
    if (prev->second > start) start = prev->second;
  }
  while (it != busy_.end() && it->first < start + duration) {
    start = std::max(start, it->second);
    ++it;
  }
  double end = start + duration;
  // Insert and merge with touching neighbours to keep the map small.
  auto next = busy_.lower_bound(start);
  if (next != busy_.end() && next->first <= end) {
    end = std::max(end, next->second);
    next = busy_.erase(next);
  }
  if (next != busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second >= start) {
      prev->second = std::max(prev->second, end);
      return start;
    }
  }
  busy_.emplace(start, end);
  // Bound the memory of pathological traces: fold the oldest reservations into the horizon.
  if (busy_.size() > 8192) advance_horizon(std::next(busy_.begin(), 4096)->first);
  return start;
}

void ResourceTimeline::advance_horizon(double horizon) {
  if (horizon <= horizon_) return;
  horizon_ = horizon;
  while (!busy_.empty() && busy_.begin()->second <= horizon_) busy_.erase(busy_.begin());
  if (!busy_.empty() && busy_.begin()->first < horizon_) {
    double end = busy_.begin()->second;
    busy_.erase(busy_.begin());
    busy_.emplace(horizon_, end);
  }
}

}  // namespace trn
