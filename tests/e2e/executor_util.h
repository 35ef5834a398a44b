// Helpers for the executor end-to-end tests: run `accelopt worker --dispatch` on job lists whose
// jobs carry TEST HOOKs (canned results, crashes, hangs), so pass/fail does not depend on the
// evaluate() implementation.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include "support/test_paths.h"

namespace executor_e2e {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "accelopt-e2e-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
    std::filesystem::permissions(path_, std::filesystem::perms::all);  // slurm jobs may run as another user
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

inline nlohmann::json canned_ok(double latency_ms) {
  return {{"status", "ok"}, {"correct", true}, {"profile", {{"latency", latency_ms}}}};
}

// Writes a job list of hooked jobs (one kernel file each, one shared reference).
struct JobListBuilder {
  std::string dir;
  std::vector<nlohmann::json> lines;
  JobListBuilder& add(const std::string& id, const std::string& kernel_text, const nlohmann::json& hook) {
    std::ofstream(dir + "/" + id + ".py") << kernel_text;
    lines.push_back({{"id", id}, {"kernel", id + ".py"}, {"reference", "reference.py"}, {"test_hook", hook}});
    return *this;
  }
  std::string write(const std::string& name = "jobs.jsonl") const {
    std::ofstream(dir + "/reference.py") << "def forward(a):\n    return a\n";
    std::ofstream out(dir + "/" + name);
    for (const auto& l : lines) out << l.dump() << "\n";
    return dir + "/" + name;
  }
};

struct CommandRun {
  int exit_code = -1;
  std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs accelopt with `args` (already shell-quoted where needed), capturing stdout and stderr. The
// test build (ACCELOPT_TEST_BINARY): its workers obey the job lists' test hooks.
inline CommandRun run_accelopt(const std::string& dir, const std::string& args, const std::string& env = "") {
  std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  std::string cmd = env + " " + shell_quote(ACCELOPT_TEST_BINARY) + " " + args + " >" + shell_quote(out) + " 2>" +
                    shell_quote(err);
  int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, read_file(out), read_file(err)};
}

// Starts accelopt in the background (own process), for kill/interrupt tests.
inline pid_t spawn_accelopt(const std::vector<std::string>& args, const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string bin = ACCELOPT_TEST_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!std::freopen(log.c_str(), "w", stdout) || !std::freopen(log.c_str(), "a", stderr)) ::_exit(126);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

inline int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

template <typename Pred>
bool wait_until(Pred pred, double timeout_s) {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < timeout_s) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

inline bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0; }

// "KEY PID" lines written by the record_run hook: the worker pids.
inline std::vector<pid_t> recorded_pids(const std::string& path) {
  std::vector<pid_t> pids;
  for (const auto& line : lines_of(path)) pids.push_back(std::stoi(line.substr(line.find(' ') + 1)));
  return pids;
}

inline std::vector<nlohmann::json> result_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace executor_e2e

namespace executor_e2e {

// The one smoke test with a real kernel: examples/add through the service must give exactly
// what `accelopt eval` gives, and the kernel is correct.
inline std::string add_example_list(const std::string& dir) {
  std::string root = ACCELOPT_SOURCE_DIR;
  std::ofstream(dir + "/add.jsonl") << nlohmann::json{{"id", "add"}, {"kernel", root + "/examples/add/kernel.py"},
                                                      {"reference", root + "/examples/add/reference.py"}}
                                           .dump()
                                    << "\n";
  return dir + "/add.jsonl";
}

inline nlohmann::json direct_eval_of_add(const std::string& dir) {
  std::string root = ACCELOPT_SOURCE_DIR;
  CommandRun r = run_accelopt(dir, "eval --json --no-cache --kernel " + root + "/examples/add/kernel.py --reference " +
                                       root + "/examples/add/reference.py");
  return nlohmann::json::parse(r.out, nullptr, false);
}

}  // namespace executor_e2e
