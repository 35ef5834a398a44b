// What the built-in agent learns from rewrites the harness rejected. The search hands every
// kernel that failed the five-seed check (or did not compile) to the fixer; the built-in fixer
// does not repair, it records the plan's site here, and the planner down-weights the same
// transformation+parameters on every later kernel of the task (the failed kernel's descendants
// and its siblings alike) and, less, on other tasks. Thread-safe: plans and fixes run in parallel.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "agents/builtin/transform.h"

namespace agents::builtin {

class FailureLog {
 public:
  void record(const std::string& task, const Site& site);
  // A multiplier in (0, 1] for `site` on `task`: 1 when nothing like it failed.
  double penalty(const std::string& task, const Site& site) const;
  int failures(const std::string& task, const Site& site) const;  // exact (transform, params) matches
  // The counts, for the planner's checkpointed state.
  nlohmann::json to_json() const;
  void restore(const nlohmann::json& j);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> by_task_key_;        // "task|key without line" -> count
  std::map<std::string, int> by_key_;             // "key without line" -> count over all tasks
  std::map<std::string, int> by_task_transform_;  // "task|transform" -> count
};

// The site's key without its anchor line: the same rewrite on a descendant kernel, whose lines
// moved, has the same portable key.
std::string portable_key(const Site& site);

}  // namespace agents::builtin
