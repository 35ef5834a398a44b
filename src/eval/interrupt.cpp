#include "eval/interrupt.h"

#include <signal.h>

#include <atomic>

namespace eval {
namespace {

std::atomic<bool> g_interrupted{false};  // lock-free: safe to set from a signal handler
static_assert(std::atomic<bool>::is_always_lock_free);
std::atomic<int> g_depth{0};
struct sigaction g_old_int, g_old_term;

void on_signal(int) { g_interrupted.store(true); }

}  // namespace

InterruptGuard::InterruptGuard() {
  if (g_depth.fetch_add(1) != 0) return;
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  if (g_depth.fetch_sub(1) != 1) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool interrupt_requested() { return g_interrupted.load(); }
void clear_interrupt() { g_interrupted.store(false); }

}  // namespace eval
