#include "report/live_report.h"

#include <filesystem>

#include <fmt/core.h>

#include "report/page.h"
#include "report/run_data.h"

namespace report {

void write_run_report(const std::string& run_dir, const std::string& page_path, bool timeline) {
  ReportOptions options;
  options.timeline = timeline;
  options.timeline_dir = std::filesystem::absolute(page_path).parent_path().string();
  nlohmann::json data = load_run_data(run_dir, options);
  write_page(page_path, render_page(data, fmt::format("accelopt run {}", data["run"].value("name", ""))));
}

ReportRefresher::ReportRefresher(search::ProgressObserver& inner, std::string run_dir, std::string page_path)
    : inner_(inner), run_dir_(std::move(run_dir)), page_path_(std::move(page_path)) {}

void ReportRefresher::on_task_start(const std::string& task, const agents::Candidate& baseline, double peak_latency_ms) {
  inner_.on_task_start(task, baseline, peak_latency_ms);
}
void ReportRefresher::on_task_resume(const search::TaskResult& progress) { inner_.on_task_resume(progress); }
void ReportRefresher::on_round_update(const search::RoundStats& live) { inner_.on_round_update(live); }
void ReportRefresher::on_round_end(const search::RoundStats& stats) { inner_.on_round_end(stats); }
void ReportRefresher::on_task_end(const search::TaskResult& result) { inner_.on_task_end(result); }
void ReportRefresher::on_message(const std::string& text) { inner_.on_message(text); }
void ReportRefresher::on_retry(const std::string& agent, const llm::RetryNotice& notice) { inner_.on_retry(agent, notice); }

void ReportRefresher::on_checkpoint() {
  inner_.on_checkpoint();
  refresh(false);
}

bool ReportRefresher::refresh(bool timeline) {
  try {
    write_run_report(run_dir_, page_path_, timeline);
    return true;
  } catch (const std::exception& e) {
    if (!warned_) inner_.on_message(fmt::format("warning: the report could not be written: {}", e.what()));
    warned_ = true;
    return false;
  }
}

}  // namespace report
