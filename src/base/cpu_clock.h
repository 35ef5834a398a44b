// The CPU time of the calling thread: what a computation costs, independent of how many other
// processes share the machine (wall time on a loaded 2-core host is 5-12x the CPU time; see
// docs/evaluation.md "Limits").
#pragma once

#include <time.h>

namespace base {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace base
