// Ctrl-C / SIGTERM for long evaluations: while an InterruptGuard lives, SIGINT and SIGTERM set a
// process-wide flag instead of killing the process; every executor polls it and cancels its
// outstanding jobs (local workers killed, Slurm arrays scancel'ed), so nothing is left behind.
#pragma once

namespace eval {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers (nested guards are fine)
  ~InterruptGuard();  // restores the previous handlers
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

bool interrupt_requested();
void clear_interrupt();  // e.g. after the caller has handled one

}  // namespace eval
