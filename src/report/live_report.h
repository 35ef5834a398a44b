// `accelopt optimize --report`: keeps RUN_DIR/report.html current while the run goes on. Every
// event goes on to the console display; after every checkpoint (each round, each task's end) the
// page is generated again from the run store and replaced atomically. The page reloads itself
// while the run is live, so a person can keep it open.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "search/progress.h"

namespace report {

class ReportRefresher : public search::ProgressObserver {
 public:
  ReportRefresher(search::ProgressObserver& inner, std::string run_dir, std::string page_path);
  void on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) override;
  void on_task_resume(const search::TaskResult& progress) override;
  void on_round_update(const search::RoundStats& live) override;
  void on_round_end(const search::RoundStats& stats) override;
  void on_task_end(const search::TaskResult& result) override;
  void on_message(const std::string& text) override;
  void on_retry(const std::string& agent, const llm::RetryNotice& notice) override;
  void on_checkpoint() override;

  // Writes the page now. `timeline`: simulate the best kernels for their timelines (the final
  // page; skipped during the run to keep rounds fast). A failure is reported once through the
  // display and never stops the run. Returns whether the page was written.
  bool refresh(bool timeline);

 private:
  search::ProgressObserver& inner_;
  std::string run_dir_, page_path_;
  bool warned_ = false;
};

// Notes in RUN_DIR/resumes.jsonl where a resumed run picked up (evaluations, USD and tokens so
// far, the task and its evaluations), so the report can mark the resume points on its curves.
// The store has no record of a process starting again. Never throws (a mark is not worth a run).
void record_resume(const std::string& run_dir, const search::RunState& state);
// The marks, oldest first ([] when there are none).
nlohmann::json read_resumes(const std::string& run_dir);

// Generates the report of RUN_DIR into `page_path` (the timelines' traces go beside it).
void write_run_report(const std::string& run_dir, const std::string& page_path, bool timeline);

}  // namespace report
