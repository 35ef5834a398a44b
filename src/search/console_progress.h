// The progress display of `accelopt optimize`. On a terminal, a panel of three lines redrawn in
// place while a round runs:
//
//   [run] task 1/2 silu_M4096_N7168 · round 2/3 · planned 12, written 23 (1 unparsed)
//     evaluations [##########----------] 12/23 · running 4 · failed 2 · elapsed 0:41 · left ~1:20
//     best 1.215x (62.3% of peak) · 1234 tokens · 0.0125 USD · report: runs/x/report.html
//
// and one log line per finished round above it. Otherwise (a pipe, a file, --no-progress) only the
// log lines, which carry the run's name, the task's place and the round's figures. Every retry of
// a model call is a log line of its own either way, and the round's retries are counted on the
// panel and its line.
#pragma once

#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "search/progress.h"

namespace search {

// What the display knows about the whole run, for "task i of n" and the time estimate.
struct ProgressPlan {
  std::vector<std::string> tasks;  // in run order
  int rounds = 0;                  // rounds per task (T)
  std::string report;              // where the report is ("" = none is written)
  int width = 0;                   // the terminal's columns: panel lines are cut to fit (0 = no limit)
};

class ConsoleProgress : public ProgressObserver {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  // `live`: redraw the panel (a terminal); else log lines at round ends only.
  ConsoleProgress(std::FILE* out, bool live, std::string run_name, ProgressPlan plan = {}, Clock clock = {});
  void on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) override;
  void on_task_resume(const TaskResult& progress) override;
  void on_round_update(const RoundStats& live) override;
  void on_round_end(const RoundStats& stats) override;
  void on_task_end(const TaskResult& result) override;
  void on_message(const std::string& text) override;
  // One log line per retry (429s, 5xx, timeouts, refused connections): what failed and how long
  // the client waits.
  void on_retry(const std::string& agent, const llm::RetryNotice& notice) override;

  // The panel's lines for `s` (no escapes), and the progress bar of done/total; public for tests.
  std::vector<std::string> panel(const RoundStats& s) const;
  static std::string bar(int done, int total, int width);
  // "1:05", "12:00:03".
  static std::string clock_text(double seconds);
  // `line` cut to `width` columns (UTF-8 characters), ending in "…" when cut; 0 = unchanged. A
  // panel line that wrapped would break the redraw, which moves up one line per panel line.
  static std::string fit(const std::string& line, int width);

 private:
  std::string round_line(const RoundStats& s) const;
  std::string best_text(const RoundStats& s) const;
  std::string task_place(const std::string& task) const;
  std::optional<double> seconds_left(const RoundStats& s) const;
  void log(const std::string& line);
  std::string erase_panel();  // the escapes that erase the panel on screen ("" if none)
  std::string panel_text();   // the panel's lines as drawn now ("" if none)
  void show(const std::string& frame);
  void draw_panel();

  std::mutex mutex_;  // on_retry comes from the agents' threads; the other calls hold it too
  std::FILE* out_;
  bool live_;
  std::string run_;
  ProgressPlan plan_;
  Clock clock_;
  double start_s_ = 0;
  double start_position_ = -1;  // run position (in rounds) when this process began, for the estimate
  int panel_lines_ = 0;         // lines of the panel on screen now
  std::optional<RoundStats> current_;  // the running round (panel shown)
  double baseline_ms_ = 0, peak_ms_ = 0;
  double best_ms_ = 0;  // the best after the last finished round (the baseline's at first)
  int retries_ = 0;     // retries waited for in the running round (on its panel and its line)
};

}  // namespace search
