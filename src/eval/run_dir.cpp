#include "eval/run_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"

namespace eval {
namespace fs = std::filesystem;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read '{}'", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunDir::RunDir(std::string root) : root_(std::move(root)) {
  if (root_.empty()) throw std::runtime_error("evaluation run directory not set");
  std::error_code ec;
  for (const char* sub : {"jobs", "results", "logs", "slurm", "scratch"}) {
    fs::create_directories(fs::path(root_) / sub, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot create '{}/{}': {}", root_, sub, ec.message()));
  }
}

void check_job_key(const std::string& key) {
  bool hex = key.size() == 32 && std::all_of(key.begin(), key.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
             });
  if (!hex) throw std::runtime_error(fmt::format("'{}' is not a job key (32 lowercase hex digits)", key));
}

std::string RunDir::job_path(const std::string& key) const {
  check_job_key(key);
  return root_ + "/jobs/" + key + ".json";
}
std::string RunDir::result_path(const std::string& key) const {
  check_job_key(key);
  return root_ + "/results/" + key + ".json";
}
std::string RunDir::log_path(const std::string& key, int attempt) const {
  check_job_key(key);
  return fmt::format("{}/logs/{}.{}.log", root_, key, attempt);
}
std::string RunDir::slurm_dir() const { return root_ + "/slurm"; }
std::string RunDir::scratch_dir() const { return root_ + "/scratch"; }

void RunDir::write_job(const JobSpec& job) const { base::write_file_atomic(job_path(job.key), json_text(to_json(job), 1) + "\n"); }

JobSpec RunDir::read_job(const std::string& key) const {
  std::string path = job_path(key);
  try {
    return job_from_json(nlohmann::json::parse(read_text_file(path)));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("bad job file '{}': {}", path, e.what()));
  }
}

bool RunDir::has_result(const std::string& key) const {
  return ::access(result_path(key).c_str(), F_OK) == 0;
}

std::optional<Evaluation> RunDir::read_result(const std::string& key) const {
  std::string path = result_path(key);
  if (!has_result(key)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_text_file(path));
    return evaluation_from_json(j.at("evaluation"));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("bad result file '{}': {}", path, e.what()));
  }
}

void RunDir::write_result(const std::string& key, const Evaluation& evaluation, const std::string& origin) const {
  nlohmann::json j = {{"format", "accelopt-eval-result/1"}, {"key", key}, {"origin", origin},
                      {"evaluation", to_json(evaluation)}};
  base::write_file_atomic(result_path(key), json_text(j, 1) + "\n");
}

}  // namespace eval
