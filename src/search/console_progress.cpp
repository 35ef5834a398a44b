#include "search/console_progress.h"

#include <fmt/core.h>

namespace search {

ConsoleProgress::ConsoleProgress(std::FILE* out, bool live, std::string run_name)
    : out_(out), live_(live), run_(std::move(run_name)) {}

std::string ConsoleProgress::status_line(const RoundStats& s) const {
  std::string best = "-", peak = "";
  if (s.best_latency_ms > 0 && baseline_ms_ > 0) best = fmt::format("{:.3f}x", baseline_ms_ / s.best_latency_ms);
  if (s.best_latency_ms > 0 && peak_ms_ > 0) peak = fmt::format(" ({:.1f}% of peak)", 100 * peak_ms_ / s.best_latency_ms);
  std::string retries = retries_ ? fmt::format(", {} retr{}", retries_, retries_ == 1 ? "y" : "ies") : "";
  return fmt::format(
      "[{}] {} round {}: planned {}, written {} ({} unparsed), evaluated {} ({} failed, {} fixed), best {}{}, "
      "{} tokens, {:.4f} USD{}",
      run_, s.task, s.round, s.plans, s.kernels_written, s.kernels_unparsed, s.evaluated, s.eval_failed, s.fixed,
      best, peak, s.usage.tokens(), s.usage.cost_usd, retries);
}

void ConsoleProgress::end_live_line() {
  if (!line_open_) return;
  fmt::print(out_, "\n");
  line_open_ = false;
}

void ConsoleProgress::on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) {
  std::lock_guard lock(mutex_);
  end_live_line();
  baseline_ms_ = baseline.latency_ms;
  peak_ms_ = peak_latency_ms;
  std::string peak = peak_latency_ms > 0 ? fmt::format(", {:.1f}% of peak", 100 * peak_latency_ms / baseline.latency_ms) : "";
  fmt::print(out_, "[{}] {}: baseline {:.4f} ms{}\n", run_, task, baseline.latency_ms, peak);
  std::fflush(out_);
}

void ConsoleProgress::on_task_resume(const TaskResult& progress) {
  std::lock_guard lock(mutex_);
  end_live_line();
  baseline_ms_ = progress.baseline_latency_ms;
  peak_ms_ = progress.peak_latency_ms;
  std::string best = progress.best_latency_ms > 0
                         ? fmt::format(", best {:.4f} ms ({:.3f}x)", progress.best_latency_ms, progress.speedup())
                         : "";
  fmt::print(out_, "[{}] {}: resuming after round {} (baseline {:.4f} ms{})\n", run_, progress.task,
             progress.rounds_done, progress.baseline_latency_ms, best);
  std::fflush(out_);
}

void ConsoleProgress::on_round_update(const RoundStats& live) {
  std::lock_guard lock(mutex_);
  if (!live_) return;
  // \r + erase-line redraws the status in place.
  fmt::print(out_, "\r\033[2K{}", status_line(live));
  line_open_ = true;
  std::fflush(out_);
}

void ConsoleProgress::on_round_end(const RoundStats& stats) {
  std::lock_guard lock(mutex_);
  if (live_) {
    fmt::print(out_, "\r\033[2K{}\n", status_line(stats));
    line_open_ = false;
  } else {
    fmt::print(out_, "{}\n", status_line(stats));
  }
  retries_ = 0;
  std::fflush(out_);
}

void ConsoleProgress::on_task_end(const TaskResult& result) {
  std::lock_guard lock(mutex_);
  end_live_line();
  if (!result.error.empty()) return;  // already reported by on_message
  fmt::print(out_, "[{}] {}: done after {} rounds, {:.4f} ms -> {:.4f} ms ({:.3f}x)\n", run_, result.task,
             result.rounds_done, result.baseline_latency_ms, result.best_latency_ms, result.speedup());
  std::fflush(out_);
}

void ConsoleProgress::on_message(const std::string& text) {
  std::lock_guard lock(mutex_);
  end_live_line();
  fmt::print(out_, "[{}] {}\n", run_, text);
  std::fflush(out_);
}

void ConsoleProgress::on_retry(const std::string& agent, const llm::RetryNotice& notice) {
  std::lock_guard lock(mutex_);
  end_live_line();  // the status line is drawn again at the next update
  ++retries_;
  int next = notice.attempt + 1;
  std::string of = next <= notice.max_attempts ? fmt::format("{} of {}", next, notice.max_attempts)
                                               : fmt::format("{}, within the retry window", next);
  fmt::print(out_, "[{}] {} call failed ({}): {}; retrying in {:.1f} s (attempt {})\n", run_, agent,
             llm::to_string(notice.kind), notice.reason, notice.wait_s, of);
  std::fflush(out_);
}

}  // namespace search
