// A resource in time (a compute engine, or the DMA capacity of a core shared by its queues) on
// which work is placed first-fit: a job that becomes ready early uses a gap left before a job
// placed earlier in program order but ready later. For the DMA fabric this is the round-robin
// between queues; for a compute engine it is the compiler's scheduler moving independent
// instructions (of other affine_range iterations) into idle time.
#pragma once

#include <map>

namespace trn {

class ResourceTimeline {
 public:
  // Reserves `duration` of fabric time at or after `earliest`; returns the start.
  double reserve(double earliest, double duration);
  // Nothing will ever ask for time before `horizon` again; forget older reservations.
  void advance_horizon(double horizon);
  double busy_ns() const { return busy_ns_; }

 private:
  std::map<double, double> busy_;  // start -> end, disjoint
  double horizon_ = 0;
  double busy_ns_ = 0;
};

}  // namespace trn
