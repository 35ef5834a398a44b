#include "eval/slurm_executor.h"

#include <chrono>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "eval/run_dir.h"

namespace eval {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A task that left the queue gets this long for its result to appear: on a shared file system the
// rename can become visible to us a little after Slurm saw the task end.
constexpr double kResultGraceS = 2.0;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

struct SlurmExecutor::Task {
  std::string array_id;
  int index = 0;
  int attempt = 0;
  std::optional<Clock::time_point> ended_at;  // first poll that saw it ended without a result
};

class SlurmExecutor::Session {
 public:
  Session(SlurmExecutor& ex, const ResultFn& on_result) : ex_(ex), on_result_(on_result) {}

  void run(const std::vector<std::string>& keys) {
    std::set<std::string> wanted(keys.begin(), keys.end());
    guarded_until_ok([&] { adopt(wanted); });
    for (const auto& key : keys)
      if (!inflight_.count(key)) to_submit_.push_back(key);
    while (!to_submit_.empty() || !inflight_.empty()) {
      if (ex_.cancelled()) return cancel_all();
      if (!to_submit_.empty()) guarded([&] { submit(); });
      std::this_thread::sleep_for(std::chrono::duration<double>(ex_.config_.poll_interval_s));
      collect_results();
      if (!inflight_.empty()) guarded([&] { poll_states(); });
    }
  }

 private:
  // Runs a Slurm interaction; an unreachable controller is tolerated for controller_timeout_s.
  template <typename Fn>
  bool guarded(Fn&& fn) {
    auto began = Clock::now();  // a failing client call itself takes ~9 s: count it
    try {
      fn();
      unreachable_since_.reset();
      return true;
    } catch (const SlurmUnreachable& e) {
      if (!unreachable_since_) unreachable_since_ = began;
      if (seconds_since(*unreachable_since_) >= ex_.config_.controller_timeout_s)
        throw SlurmUnreachable(fmt::format(
            "slurm controller {} unreachable for {:.0f} s ({}); finished results are kept in {}, "
            "resume the run once the controller is back",
            SlurmClient::controller_name(), seconds_since(*unreachable_since_), e.what(), ex_.run_dir_.root()));
      return false;
    }
  }

  template <typename Fn>
  void guarded_until_ok(Fn&& fn) {
    while (!guarded(fn)) {
      if (ex_.cancelled()) return;
      std::this_thread::sleep_for(std::chrono::duration<double>(ex_.config_.poll_interval_s));
    }
  }

  std::string arrays_log() const { return ex_.run_dir_.slurm_dir() + "/arrays.jsonl"; }
  std::string keys_path(const std::string& batch) const { return ex_.run_dir_.slurm_dir() + "/" + batch + ".keys"; }

  // Tasks of arrays submitted by an earlier (killed) run that are still queued or running.
  void adopt(const std::set<std::string>& wanted) {
    std::map<std::string, std::string> batch_of;  // array id -> batch name
    std::ifstream in(arrays_log());
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("array") && j.contains("batch"))
        batch_of[j["array"].get<std::string>()] = j["batch"].get<std::string>();
    }
    if (batch_of.empty()) return;
    std::vector<std::string> ids;
    for (const auto& [id, batch] : batch_of) ids.push_back(id);
    for (const auto& task : ex_.client_.query(ids)) {
      if (!slurm_state_active(task.state)) continue;
      auto [key, attempt] = key_line(batch_of[task.array_id], task.index);
      if (!wanted.count(key) || inflight_.count(key)) continue;
      inflight_[key] = Task{task.array_id, task.index, attempt, std::nullopt};
      attempts_[key] = attempt;
    }
  }

  std::pair<std::string, int> key_line(const std::string& batch, int index) const {
    std::ifstream in(keys_path(batch));
    std::string line;
    for (int line_idx = 0; std::getline(in, line); ++line_idx) {
      if (line_idx != index) continue;
      std::istringstream fields(line);
      std::string key;
      int attempt = 1;
      fields >> key >> attempt;
      return {key, attempt};
    }
    return {"", 0};
  }

  void submit() {
    std::vector<std::string> keys(to_submit_.begin(), to_submit_.end());
    std::string batch = fmt::format("b{}-{}", std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  std::chrono::system_clock::now().time_since_epoch()).count(),
                                    batch_counter_++);
    std::string list;
    for (const auto& key : keys) list += fmt::format("{} {}\n", key, attempts_[key] + 1);
    base::write_file_atomic(keys_path(batch), list);
    std::string script = ex_.run_dir_.slurm_dir() + "/" + batch + ".sh";
    base::write_file_atomic(script, fmt::format("#!/bin/sh\nexec {} worker --run-dir {} --batch {} --index \"$SLURM_ARRAY_TASK_ID\"\n",
                                          shell_quote(ex_.worker_binary()), shell_quote(ex_.run_dir_.root()), batch));
    const ExecutorConfig& c = ex_.config_;
    SbatchOptions options{"accelopt-eval", ex_.run_dir_.slurm_dir() + "/" + batch + "_%a.out", script,
                          static_cast<int>(keys.size()), c.max_concurrent, c.cpus_per_task, c.time_limit_minutes,
                          c.partition, c.account, c.extra_sbatch_args};
    std::string array_id = ex_.client_.submit(options);  // throws: nothing below happens
    std::ofstream(arrays_log(), std::ios::app) << nlohmann::json{{"array", array_id}, {"batch", batch}}.dump() << "\n";
    for (size_t idx = 0; idx < keys.size(); ++idx) {
      int attempt = ++attempts_[keys[idx]];
      inflight_[keys[idx]] = Task{array_id, static_cast<int>(idx), attempt, std::nullopt};
    }
    to_submit_.clear();
  }

  void collect_results() {
    for (auto it = inflight_.begin(); it != inflight_.end();) {
      if (!ex_.run_dir_.has_result(it->first)) {
        ++it;
        continue;
      }
      std::string key = it->first;
      it = inflight_.erase(it);
      on_result_(key);
    }
  }

  std::vector<std::string> active_arrays() const {
    std::set<std::string> ids;
    for (const auto& [key, task] : inflight_) ids.insert(task.array_id);
    return {ids.begin(), ids.end()};
  }

  void poll_states() {
    std::map<std::pair<std::string, int>, std::string> states;
    for (const auto& task : ex_.client_.query(active_arrays())) states[{task.array_id, task.index}] = task.state;
    collect_results();  // results that landed while squeue ran
    for (auto it = inflight_.begin(); it != inflight_.end();) {
      Task& task = it->second;
      auto state = states.find({task.array_id, task.index});
      if (state != states.end() && slurm_state_active(state->second)) {
        task.ended_at.reset();
        ++it;
        continue;
      }
      if (!task.ended_at) task.ended_at = Clock::now();
      if (seconds_since(*task.ended_at) < kResultGraceS) {
        ++it;
        continue;
      }
      std::string why = state == states.end() ? "gone from the queue" : state->second;
      std::string key = it->first;
      it = inflight_.erase(it);
      fail(key, task, why);
    }
  }

  void fail(const std::string& key, const Task& task, const std::string& why) {
    if (task.attempt <= ex_.config_.retries) {
      to_submit_.push_back(key);
      return;
    }
    ex_.record_failure(key, task.attempt,
                       fmt::format("slurm task {}_{} ended {} without a result", task.array_id, task.index, why),
                       why == "TIMEOUT");
    on_result_(key);
  }

  void cancel_all() {
    std::vector<std::string> ids = active_arrays();
    if (ids.empty()) return;
    if (!guarded([&] { ex_.client_.cancel(ids); })) return;
    auto start = Clock::now();
    while (seconds_since(start) < 30) {
      bool any_active = false;
      bool ok = guarded([&] {
        for (const auto& task : ex_.client_.query(ids)) any_active |= slurm_state_active(task.state);
      });
      if (ok && !any_active) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(ex_.config_.poll_interval_s));
    }
    collect_results();
  }

  SlurmExecutor& ex_;
  const ResultFn& on_result_;
  std::map<std::string, Task> inflight_;
  std::map<std::string, int> attempts_;
  std::deque<std::string> to_submit_;
  std::optional<Clock::time_point> unreachable_since_;
  int batch_counter_ = 0;
};

SlurmExecutor::SlurmExecutor(ExecutorConfig config) : JobSetExecutor(std::move(config)) {}

void SlurmExecutor::execute(const std::vector<std::string>& keys, const ResultFn& on_result) {
  Session(*this, on_result).run(keys);
}

}  // namespace eval
