#include "eval/job_list.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace eval {
namespace {

std::string resolve(const std::filesystem::path& base, const std::string& path) {
  std::filesystem::path p(path);
  return p.is_absolute() ? path : (base / p).lexically_normal().string();
}

EvalJob job_from_line(const nlohmann::json& j, const std::filesystem::path& base, int line_no) {
  if (!j.is_object()) throw std::runtime_error("expected a JSON object");
  if (!j.contains("kernel") || !j.contains("reference")) throw std::runtime_error("needs \"kernel\" and \"reference\"");
  EvalJob job;
  job.id = j.value("id", fmt::format("line{}", line_no));
  job.request.kernel_path = resolve(base, j["kernel"].get<std::string>());
  job.request.reference_path = resolve(base, j["reference"].get<std::string>());
  job.request.arch = j.value("arch", job.request.arch);
  job.request.seeds = j.value("seeds", job.request.seeds);
  job.request.tolerance = j.value("tolerance", job.request.tolerance);
  if (j.contains("test_hook")) job.test_hook_json = j["test_hook"].dump();
  return job;
}

}  // namespace

std::vector<EvalJob> read_job_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read job list '{}'", path));
  std::filesystem::path base = std::filesystem::absolute(path).parent_path();
  std::vector<EvalJob> jobs;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      jobs.push_back(job_from_line(nlohmann::json::parse(line), base, line_no));
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: bad job: {}", path, line_no, e.what()));
    }
  }
  return jobs;
}

std::string format_results(const std::vector<EvalJob>& jobs, const std::vector<Evaluation>& results) {
  std::string out;
  for (size_t job_idx = 0; job_idx < jobs.size() && job_idx < results.size(); ++job_idx)
    out += json_text(nlohmann::json{{"id", jobs[job_idx].id}, {"evaluation", to_json(results[job_idx])}}) + "\n";
  return out;
}

}  // namespace eval
