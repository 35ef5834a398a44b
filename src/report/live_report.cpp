#include "report/live_report.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "report/page.h"
#include "report/run_data.h"

namespace report {

void record_resume(const std::string& run_dir, const search::RunState& state) {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json mark = {{"at", stamp},
                         {"evaluations", state.evaluations},
                         {"usd", state.usage.cost_usd},
                         {"tokens", state.usage.tokens()},
                         {"tasks_finished", state.finished.size()}};
  if (state.current) {
    mark["task"] = state.current->result.task;
    mark["round"] = state.current->result.rounds_done;
    mark["task_evaluations"] = state.current->result.evaluations;
  }
  std::ofstream out(std::filesystem::path(run_dir) / "resumes.jsonl", std::ios::app);
  out << mark.dump() << "\n";
}

nlohmann::json read_resumes(const std::string& run_dir) {
  nlohmann::json marks = nlohmann::json::array();
  std::ifstream in(std::filesystem::path(run_dir) / "resumes.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) marks.push_back(std::move(j));
  }
  return marks;
}

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
