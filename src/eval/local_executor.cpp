#include "eval/local_executor.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/core.h>

#include "eval/process.h"

namespace eval {
namespace {

using Clock = std::chrono::steady_clock;

struct RunningJob {
  std::string key;
  int attempt = 0;
  Clock::time_point started;
  std::unique_ptr<ChildProcess> process;
};

// Waits until a worker exits, a deadline passes, or `max_wait_ms` (to notice cancellation).
void wait_for_event(const std::vector<RunningJob>& running, double timeout_s, int max_wait_ms) {
  std::vector<pollfd> fds;
  double next_deadline_s = max_wait_ms / 1000.0;
  for (const auto& job : running) {
    if (job.process->pidfd() >= 0) fds.push_back({job.process->pidfd(), POLLIN, 0});
    double elapsed = std::chrono::duration<double>(Clock::now() - job.started).count();
    next_deadline_s = std::min(next_deadline_s, std::max(0.0, timeout_s - elapsed));
  }
  int wait_ms = static_cast<int>(next_deadline_s * 1000) + 1;
  if (fds.size() < running.size()) wait_ms = std::min(wait_ms, 5);  // no pidfd: fall back to polling
  ::poll(fds.data(), fds.size(), wait_ms);
}

}  // namespace

LocalExecutor::LocalExecutor(ExecutorConfig config) : JobSetExecutor(std::move(config)) {}

void LocalExecutor::execute(const std::vector<std::string>& keys, const ResultFn& on_result) {
  std::deque<std::string> queue(keys.begin(), keys.end());
  std::map<std::string, int> attempts;
  std::vector<RunningJob> running;
  const std::string binary = worker_binary();

  auto finish = [&](RunningJob& job) {
    if (run_dir_.has_result(job.key)) return on_result(job.key);
    // A worker that died with the run's Ctrl-C (the terminal signals the whole process group) has
    // no result, and its failure is not one: the job stays undone and a resumed run runs it.
    if (cancelled()) return;
    const ExitStatus& status = job.process->status();
    if (job.attempt <= config_.retries) {
      queue.push_front(job.key);  // retry first: its round is waiting for it
      return;
    }
    record_failure(job.key, job.attempt, "worker " + status.describe(), status.timed_out);
    on_result(job.key);
  };

  while (!queue.empty() || !running.empty()) {
    if (cancelled()) {
      for (auto& job : running) job.process->terminate(1.0, false);
      return;
    }
    while (!queue.empty() && static_cast<int>(running.size()) < std::max(1, config_.workers)) {
      RunningJob job{queue.front(), ++attempts[queue.front()], Clock::now(), nullptr};
      queue.pop_front();
      job.process = std::make_unique<ChildProcess>(
          std::vector<std::string>{binary, "worker", "--run-dir", run_dir_.root(), "--job", job.key},
          run_dir_.log_path(job.key, job.attempt));
      running.push_back(std::move(job));
    }
    wait_for_event(running, config_.job_timeout_s, 100);
    for (size_t idx = 0; idx < running.size();) {
      RunningJob& job = running[idx];
      double elapsed = std::chrono::duration<double>(Clock::now() - job.started).count();
      bool exited = job.process->poll_exit();
      if (!exited && elapsed < config_.job_timeout_s) {
        ++idx;
        continue;
      }
      if (!exited) job.process->terminate(1.0, true);
      RunningJob finished = std::move(job);
      running.erase(running.begin() + static_cast<long>(idx));
      finish(finished);
    }
  }
}

}  // namespace eval
