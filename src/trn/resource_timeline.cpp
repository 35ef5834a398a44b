#include "trn/resource_timeline.h"

#include <algorithm>
#include <iterator>

namespace trn {
namespace {

// Busy intervals kept per timeline: the compiler reorders within a window, not across a whole
// kernel. Past kWindow intervals the oldest half folds into the horizon. This also bounds the
// search of first_fit (the idle gaps that fixed costs leave are never filled) and keeps the
// sorted vectors below short to shift.
constexpr size_t kWindow = 512;

using Interval = std::pair<double, double>;  // start, end

// First interval whose start is greater than t.
std::vector<Interval>::const_iterator after(const std::vector<Interval>& v, double t) {
  return std::upper_bound(v.begin(), v.end(), t, [](double x, const Interval& i) { return x < i.first; });
}

// Adds [start, end) to sorted disjoint intervals, merging with those it touches.
void insert_merged(std::vector<Interval>& v, double start, double end) {
  if (v.empty() || start > v.back().second) {  // the common case: after the last one
    v.emplace_back(start, end);
    return;
  }
  auto it = v.begin() + (after(v, start) - v.cbegin());
  auto first = it;
  if (first != v.begin() && std::prev(first)->second >= start) --first;
  auto last = it;
  while (last != v.end() && last->first <= end) ++last;
  if (first == last) {
    v.insert(first, {start, end});
    return;
  }
  first->first = std::min(first->first, start);
  first->second = std::max({end, std::prev(last)->second, first->second});
  v.erase(first + 1, last);
}

}  // namespace

double ResourceTimeline::first_fit(double earliest, double duration) const {
  double start = std::max(earliest, horizon_);
  if (duration <= 0) return start;
  auto it = after(busy_, start);
  if (it != busy_.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
  while (it != busy_.end() && it->first < start + duration) {
    start = std::max(start, it->second);
    ++it;
  }
  return start;
}

void ResourceTimeline::occupy(double start, double duration) {
  busy_ns_ += std::max(duration, 0.0);
  if (duration <= 0) return;
  insert_merged(busy_, start, start + duration);
  if (busy_.size() > kWindow) advance_horizon(busy_[kWindow / 2].first);
}

double ResourceTimeline::reserve(double earliest, double duration) {
  double start = first_fit(earliest, duration);
  occupy(start, duration);
  return start;
}

double ResourceTimeline::busy_end_before(double t) const {
  auto it = after(busy_, t);
  while (it != busy_.begin()) {
    --it;
    if (it->second <= t) return std::max(it->second, horizon_);
  }
  return horizon_;
}

void ResourceTimeline::advance_horizon(double horizon) {
  if (horizon <= horizon_) return;
  horizon_ = horizon;
  auto keep = std::find_if(busy_.begin(), busy_.end(), [&](const Interval& i) { return i.second > horizon_; });
  busy_.erase(busy_.begin(), keep);
  if (!busy_.empty() && busy_.front().first < horizon_) busy_.front().first = horizon_;
}

void IntervalUnion::add(double start, double end) {
  start = std::max(start, horizon_);
  if (end <= start) return;
  insert_merged(open_, start, end);
  if (open_.size() > kWindow) advance_horizon(open_[kWindow / 2].first);
}

void IntervalUnion::advance_horizon(double horizon) {
  if (horizon <= horizon_) return;
  horizon_ = horizon;
  size_t n = 0;
  while (n < open_.size() && open_[n].first < horizon_) {
    if (open_[n].second <= horizon_) {
      closed_ += open_[n].second - open_[n].first;
      ++n;
    } else {
      // Straddles the horizon: close the part before it.
      closed_ += horizon_ - open_[n].first;
      open_[n].first = horizon_;
      break;
    }
  }
  open_.erase(open_.begin(), open_.begin() + long(n));
}

double IntervalUnion::total() const {
  double sum = closed_;
  for (const auto& [start, end] : open_) sum += end - start;
  return sum;
}

}  // namespace trn
