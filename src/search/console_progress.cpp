#include "search/console_progress.h"

#include "base/plural.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/core.h>

namespace search {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ConsoleProgress::ConsoleProgress(std::FILE* out, bool live, std::string run_name, ProgressPlan plan, Clock clock)
    : out_(out), live_(live), run_(std::move(run_name)), plan_(std::move(plan)), clock_(clock ? clock : steady_seconds) {
  start_s_ = clock_();
}

std::string ConsoleProgress::bar(int done, int total, int width) {
  int filled = total > 0 ? std::clamp(static_cast<int>(std::lround(static_cast<double>(width) * done / total)), 0, width) : 0;
  return "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '-') + "]";
}

std::string ConsoleProgress::clock_text(double seconds) {
  auto s = static_cast<int64_t>(std::max(0.0, seconds) + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string ConsoleProgress::fit(const std::string& line, int width) {
  if (width <= 0) return line;
  auto is_lead = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; };
  int columns = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (!is_lead(line[i])) continue;
    if (++columns == width) {
      // Characters after this one? Then replace it by the ellipsis.
      size_t next = i + 1;
      while (next < line.size() && !is_lead(line[next])) ++next;
      return next >= line.size() ? line : line.substr(0, i) + "…";
    }
  }
  return line;
}

std::string ConsoleProgress::task_place(const std::string& task) const {
  auto it = std::find(plan_.tasks.begin(), plan_.tasks.end(), task);
  if (it == plan_.tasks.end()) return task;
  return fmt::format("task {}/{} {}", it - plan_.tasks.begin() + 1, plan_.tasks.size(), task);
}

std::string ConsoleProgress::best_text(const RoundStats& s) const {
  // A running round knows its best only at its end: until then, the best of the rounds before.
  double ms = s.best_latency_ms > 0 ? s.best_latency_ms : best_ms_;
  std::string best = "-", peak;
  if (ms > 0 && baseline_ms_ > 0) best = fmt::format("{:.3f}x", baseline_ms_ / ms);
  if (ms > 0 && peak_ms_ > 0) peak = fmt::format(" ({:.1f}% of peak)", 100 * peak_ms_ / ms);
  return "best " + best + peak;
}

std::string ConsoleProgress::round_line(const RoundStats& s) const {
  std::string rounds = plan_.rounds > 0 ? fmt::format("{}/{}", s.round, plan_.rounds) : std::to_string(s.round);
  std::string retries = retries_ ? ", " + base::count_of(retries_, "retry", "retries") : "";
  return fmt::format(
      "[{}] {} round {}: planned {}, written {} ({} unparsed), evaluated {} ({} failed, {} fixed), {}, {} tokens, "
      "{:.4f} USD{}, elapsed {}",
      run_, task_place(s.task), rounds, s.plans, s.kernels_written, s.kernels_unparsed, s.evaluated, s.eval_failed, s.fixed,
      best_text(s), s.usage.tokens(), s.usage.cost_usd, retries, clock_text(clock_() - start_s_)) +
         (s.stop_message.empty() ? "" : "; stop: " + s.stop_message) +
         (s.no_plan_reason.empty() ? "" : "; no plan: " + s.no_plan_reason);
}

// The estimate: the run's position in rounds (finished tasks' rounds, finished rounds of this task,
// and the evaluated share of the running round) against the time this process has taken for the
// part it did.
std::optional<double> ConsoleProgress::seconds_left(const RoundStats& s) const {
  auto it = std::find(plan_.tasks.begin(), plan_.tasks.end(), s.task);
  if (it == plan_.tasks.end() || plan_.rounds <= 0) return std::nullopt;
  int done = s.attempted + s.batch_done;
  double in_round = s.expected > 0 ? std::min(1.0, static_cast<double>(done) / s.expected) : 0.0;
  double position = static_cast<double>(it - plan_.tasks.begin()) * plan_.rounds + (s.round - 1) + in_round;
  double total = static_cast<double>(plan_.tasks.size()) * plan_.rounds;
  double from = start_position_ < 0 ? position : start_position_;
  double elapsed = clock_() - start_s_;
  if (position - from <= 1e-9 || elapsed <= 0) return std::nullopt;
  return elapsed / (position - from) * (total - position);
}

std::vector<std::string> ConsoleProgress::panel(const RoundStats& s) const {
  std::string rounds = plan_.rounds > 0 ? fmt::format("{}/{}", s.round, plan_.rounds) : std::to_string(s.round);
  std::string head = fmt::format("[{}] {} · round {} · planned {}, written {} ({} unparsed)", run_, task_place(s.task),
                                 rounds, s.plans, s.kernels_written, s.kernels_unparsed);
  int done = s.attempted + s.batch_done;
  int total = std::max(s.expected, done + s.running);
  auto left = seconds_left(s);
  std::string progress = fmt::format("  evaluations {} {}/{} · running {} · failed {} · elapsed {} · left {}",
                                     bar(done, total, 20), done, total, s.running, s.eval_failed + s.batch_failed,
                                     clock_text(clock_() - start_s_), left ? "~" + clock_text(*left) : "?");
  std::string spend = fmt::format("  {} · {} tokens · {:.4f} USD", best_text(s), s.usage.tokens(), s.usage.cost_usd);
  if (retries_) spend += " · " + base::count_of(retries_, "retry", "retries");
  if (!plan_.report.empty()) spend += " · report: " + plan_.report;
  return {head, progress, spend};
}

std::string ConsoleProgress::erase_panel() {
  if (panel_lines_ == 0) return {};
  // Up to the panel's first line, then erase to the end of the screen.
  std::string erase = fmt::format("\033[{}A\r\033[J", panel_lines_);
  panel_lines_ = 0;
  return erase;
}

std::string ConsoleProgress::panel_text() {
  if (!live_ || !current_) return {};
  auto lines = panel(*current_);
  std::string text;
  for (const auto& line : lines) text += fit(line, plan_.width - 1) + "\n";
  panel_lines_ = static_cast<int>(lines.size());
  return text;
}

void ConsoleProgress::show(const std::string& frame) {
  // The whole frame (erase, log line, panel) in one write: stderr is unbuffered, so a write per
  // piece let a terminal draw a panel with its last line still missing.
  std::fwrite(frame.data(), 1, frame.size(), out_);
  std::fflush(out_);
}

void ConsoleProgress::draw_panel() {
  if (!live_ || !current_) return;
  std::string frame = erase_panel();  // before panel_text(), which sets the new panel's height
  show(frame + panel_text());
}

void ConsoleProgress::log(const std::string& line) {
  std::string frame = erase_panel() + line + "\n";  // before panel_text(), as above
  show(frame + panel_text());
}

void ConsoleProgress::on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) {
  std::lock_guard lock(mutex_);
  baseline_ms_ = best_ms_ = baseline.latency_ms;
  peak_ms_ = peak_latency_ms;
  current_.reset();
  std::string peak = peak_latency_ms > 0 ? fmt::format(", {:.1f}% of peak", 100 * peak_latency_ms / baseline.latency_ms) : "";
  log(fmt::format("[{}] {}: baseline {:.4f} ms{}", run_, task_place(task), baseline.latency_ms, peak));
}

void ConsoleProgress::on_task_resume(const TaskResult& progress) {
  std::lock_guard lock(mutex_);
  baseline_ms_ = progress.baseline_latency_ms;
  best_ms_ = progress.best_latency_ms > 0 ? progress.best_latency_ms : progress.baseline_latency_ms;
  peak_ms_ = progress.peak_latency_ms;
  current_.reset();
  std::string best = progress.best_latency_ms > 0
                         ? fmt::format(", best {:.4f} ms ({:.3f}x)", progress.best_latency_ms, progress.speedup())
                         : "";
  log(fmt::format("[{}] {}: resuming after round {} (baseline {:.4f} ms{})", run_, task_place(progress.task),
                  progress.rounds_done, progress.baseline_latency_ms, best));
}

void ConsoleProgress::on_round_update(const RoundStats& live) {
  std::lock_guard lock(mutex_);
  if (start_position_ < 0) {
    // Where this process began (a resumed run starts in the middle): the estimate's origin.
    auto it = std::find(plan_.tasks.begin(), plan_.tasks.end(), live.task);
    if (it != plan_.tasks.end()) start_position_ = static_cast<double>(it - plan_.tasks.begin()) * plan_.rounds + (live.round - 1);
  }
  if (!live_) return;
  current_ = live;
  draw_panel();
}

void ConsoleProgress::on_round_end(const RoundStats& stats) {
  std::lock_guard lock(mutex_);
  current_.reset();
  if (stats.best_latency_ms > 0) best_ms_ = stats.best_latency_ms;
  log(round_line(stats));
  retries_ = 0;
}

void ConsoleProgress::on_task_end(const TaskResult& result) {
  std::lock_guard lock(mutex_);
  current_.reset();
  if (!result.error.empty()) return;  // already reported by on_message
  std::string confidence = result.speedup_confidence();
  log(fmt::format("[{}] {}: done after {}{}, {:.4f} ms -> {:.4f} ms ({:.3f}x{}){}", run_, task_place(result.task),
                  base::count_of(result.rounds_done, "round"), result.stop_message.empty() ? "" : " (" + result.stop_message + ")",
                  result.baseline_latency_ms, result.best_latency_ms, result.speedup(),
                  confidence == "unconfirmed" ? ", unconfirmed: inside the simulator's error band" : "",
                  plan_.report.empty() ? "" : "; report: " + plan_.report));
}

void ConsoleProgress::on_message(const std::string& text) {
  std::lock_guard lock(mutex_);
  log(fmt::format("[{}] {}", run_, text));
}

void ConsoleProgress::on_retry(const std::string& agent, const llm::RetryNotice& notice) {
  std::lock_guard lock(mutex_);
  ++retries_;  // counted on the panel and the round's line
  int next = notice.attempt + 1;
  std::string of = next <= notice.max_attempts ? fmt::format("{} of {}", next, notice.max_attempts)
                                               : fmt::format("{}, within the retry window", next);
  log(fmt::format("[{}] {} call failed ({}): {}; retrying in {:.1f} s (attempt {})", run_, agent,
                  llm::to_string(notice.kind), notice.reason, notice.wait_s, of));
}

}  // namespace search
