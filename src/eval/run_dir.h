// The run directory shared by the executor and its workers (local disk or a shared file system):
//
//   <run>/jobs/<key>.json      job specs (JobSpec), written before dispatch
//   <run>/results/<key>.json   results, written atomically (temp file + rename) by the worker
//   <run>/logs/<key>.<n>.log   worker stdout/stderr of attempt n (local executor)
//   <run>/slurm/               batch scripts, key lists, array-task logs (slurm executor)
//
// A result that exists is final: executors never re-run its job (resume).
#pragma once

#include <optional>
#include <string>

#include "eval/evaluation.h"
#include "eval/job.h"

namespace eval {

// Job keys name files: anything but 32 lowercase hex digits (e.g. "../x") is refused, so no job,
// result or log is ever written outside the run directory. Throws std::runtime_error.
void check_job_key(const std::string& key);

class RunDir {
 public:
  explicit RunDir(std::string root);  // creates the subdirectories; throws when it cannot
  const std::string& root() const { return root_; }

  std::string job_path(const std::string& key) const;
  std::string result_path(const std::string& key) const;
  std::string log_path(const std::string& key, int attempt) const;
  std::string slurm_dir() const;
  std::string scratch_dir() const;  // files a worker writes for external profilers

  void write_job(const JobSpec& job) const;
  JobSpec read_job(const std::string& key) const;
  bool has_result(const std::string& key) const;
  // nullopt when absent; throws when present but unreadable (a corrupt result is not silently
  // re-run: atomic rename means it cannot be half-written by us).
  std::optional<Evaluation> read_result(const std::string& key) const;
  void write_result(const std::string& key, const Evaluation& evaluation, const std::string& origin) const;

 private:
  std::string root_;
};
std::string read_text_file(const std::string& path);

}  // namespace eval
