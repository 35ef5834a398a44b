// The progress display of `accelopt optimize`: on a terminal, one status line per round redrawn
// in place (kernels planned, written, evaluated, failed; best speedup and percent of peak; tokens
// and USD; retries so far); otherwise plain log lines that carry the run and task names. Every
// retry of a model call is a log line of its own either way.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "search/progress.h"

namespace search {

class ConsoleProgress : public ProgressObserver {
 public:
  // `live`: redraw a status line (a terminal); else log lines at round ends only.
  ConsoleProgress(std::FILE* out, bool live, std::string run_name);
  void on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) override;
  void on_task_resume(const TaskResult& progress) override;
  void on_round_update(const RoundStats& live) override;
  void on_round_end(const RoundStats& stats) override;
  void on_task_end(const TaskResult& result) override;
  void on_message(const std::string& text) override;
  // One log line per retry (429s, 5xx, timeouts, refused connections): what failed and how long
  // the client waits.
  void on_retry(const std::string& agent, const llm::RetryNotice& notice) override;

 private:
  std::string status_line(const RoundStats& s) const;
  void end_live_line();

  std::mutex mutex_;  // on_retry comes from the agents' threads
  std::FILE* out_;
  bool live_;
  bool line_open_ = false;
  std::string run_;
  double baseline_ms_ = 0, peak_ms_ = 0;
  int retries_ = 0;  // retries waited for in the running round (shown on its status line)
};

}  // namespace search
