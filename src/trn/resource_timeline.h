// A resource in time (a compute engine, a shared memory port, or the DMA capacity of a core shared
// by its queues) on which work is placed first-fit: a job that becomes ready early uses a gap left
// before a job placed earlier in program order but ready later. For the DMA fabric this is the
// round-robin between queues; for a compute engine it is the compiler's scheduler moving
// independent instructions (of other affine_range iterations) into idle time.
#pragma once

#include <utility>
#include <vector>

namespace trn {

class ResourceTimeline {
 public:
  // Reserves `duration` at or after `earliest`; returns the start.
  double reserve(double earliest, double duration);
  // The start `reserve` would return, without reserving.
  double first_fit(double earliest, double duration) const;
  // Marks [start, start + duration) busy; the caller knows it is free (from first_fit).
  void occupy(double start, double duration);
  // End of the last busy interval that ends at or before `t` (the horizon if none).
  double busy_end_before(double t) const;
  // Nothing will ever ask for time before `horizon` again; forget older reservations.
  void advance_horizon(double horizon);
  double busy_ns() const { return busy_ns_; }

 private:
  std::vector<std::pair<double, double>> busy_;  // (start, end), sorted, disjoint
  double horizon_ = 0;
  double busy_ns_ = 0;
};

// Total length of a union of time intervals (the profiler's "at least one ... in flight").
// Intervals may arrive in any order; those ending before the horizon are folded into the total.
class IntervalUnion {
 public:
  void add(double start, double end);
  void advance_horizon(double horizon);
  double total() const;

 private:
  std::vector<std::pair<double, double>> open_;  // (start, end), sorted, disjoint
  double closed_ = 0;
  double horizon_ = 0;
};

}  // namespace trn
