#include "eval/slurm_client.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "eval/process.h"

namespace eval {
namespace {

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The client programs retry for several seconds and then print one of these.
bool is_unreachable(const std::string& err) {
  for (const char* needle : {"Unable to contact slurm controller", "Socket timed out", "Connection refused",
                             "connect failure", "Zero Bytes were transmitted", "Slurm backup controller in standby"})
    if (err.find(needle) != std::string::npos) return true;
  return false;
}

CaptureResult run_slurm(const std::vector<std::string>& argv, double timeout_s) {
  CaptureResult r = run_capture(argv, timeout_s);
  if (r.status.timed_out)
    throw SlurmUnreachable(fmt::format("'{}' did not answer within {:.0f} s", argv[0], timeout_s));
  if (r.status.exited && r.status.code == 0) return r;
  std::string message = fmt::format("'{}' failed ({}): {}", join(argv, " "), r.status.describe(), trim(r.err));
  if (is_unreachable(r.err)) throw SlurmUnreachable(message);
  throw std::runtime_error(message);
}

}  // namespace

bool slurm_state_active(const std::string& state) {
  static const std::set<std::string> active = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
                                               "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING",
                                               "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD"};
  return active.count(state) > 0;
}

std::vector<std::string> SlurmClient::sbatch_argv(const SbatchOptions& o) const {
  std::string array = fmt::format("0-{}", o.array_size - 1);
  if (o.max_concurrent > 0) array += fmt::format("%{}", o.max_concurrent);
  std::vector<std::string> argv = {"sbatch", "--parsable", "--array=" + array, "--job-name=" + o.job_name,
                                   "--output=" + o.output_pattern,
                                   fmt::format("--cpus-per-task={}", o.cpus_per_task),
                                   fmt::format("--time={}", o.time_limit_minutes)};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.account.empty()) argv.push_back("--account=" + o.account);
  std::istringstream extra(o.extra_args);
  for (std::string word; extra >> word;) argv.push_back(word);
  argv.push_back(o.script);
  return argv;
}

std::string SlurmClient::submit(const SbatchOptions& options) const {
  CaptureResult r = run_slurm(sbatch_argv(options), timeout_s_);
  std::string id = trim(r.out.substr(0, r.out.find(';')));  // --parsable: "id" or "id;cluster"
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error(fmt::format("sbatch printed '{}' instead of a job id", trim(r.out)));
  return id;
}

std::vector<ArrayTaskState> parse_squeue(const std::string& text) {
  std::vector<ArrayTaskState> states;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty()) continue;
    size_t bar1 = line.find('|'), bar2 = line.find('|', bar1 + 1);
    if (bar1 == std::string::npos || bar2 == std::string::npos) continue;
    std::string index = line.substr(bar1 + 1, bar2 - bar1 - 1);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) continue;  // "N/A"
    states.push_back({line.substr(0, bar1), std::stoi(index), line.substr(bar2 + 1)});
  }
  return states;
}

std::vector<ArrayTaskState> SlurmClient::query(const std::vector<std::string>& array_ids) const {
  if (array_ids.empty()) return {};
  std::vector<std::string> argv = {"squeue", "-h", "-r", "-t", "all", "-j", join(array_ids, ","), "-o", "%F|%K|%T"};
  CaptureResult r = run_capture(argv, timeout_s_);
  // Arrays older than MinJobAge are forgotten; squeue then fails with this message: no tasks.
  if (!r.status.timed_out && r.err.find("Invalid job id specified") != std::string::npos) return {};
  if (r.status.timed_out || !r.status.exited || r.status.code != 0) r = run_slurm(argv, timeout_s_);
  return parse_squeue(r.out);
}

void SlurmClient::cancel(const std::vector<std::string>& array_ids) const {
  if (array_ids.empty()) return;
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), array_ids.begin(), array_ids.end());
  run_slurm(argv, timeout_s_);
}

std::string SlurmClient::controller_name() {
  const char* env = std::getenv("SLURM_CONF");
  std::ifstream in(env && *env ? env : "/etc/slurm/slurm.conf");
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    for (const char* key : {"SlurmctldHost=", "ControlMachine="})
      if (line.rfind(key, 0) == 0) return trim(line.substr(std::string(key).size()));
  }
  return "(unknown host: no slurm.conf found)";
}

}  // namespace eval
