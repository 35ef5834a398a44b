#include "agents/builtin/failure_log.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

namespace agents::builtin {

namespace {

int count(const std::map<std::string, int>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

}  // namespace

std::string portable_key(const Site& site) {
  std::string k = site.transform;
  for (const auto& [name, value] : site.params)
    if (name != "line") k += fmt::format(" {}={}", name, value);
  return k;
}

void FailureLog::record(const std::string& task, const Site& site) {
  std::lock_guard lock(mutex_);
  std::string key = portable_key(site);
  by_task_key_[task + "|" + key]++;
  by_key_[key]++;
  by_task_transform_[task + "|" + site.transform]++;
}

int FailureLog::failures(const std::string& task, const Site& site) const {
  std::lock_guard lock(mutex_);
  return count(by_task_key_, task + "|" + portable_key(site));
}

double FailureLog::penalty(const std::string& task, const Site& site) const {
  std::lock_guard lock(mutex_);
  std::string key = portable_key(site);
  int same_task = count(by_task_key_, task + "|" + key);
  int other_tasks = count(by_key_, key) - same_task;
  int same_transform = count(by_task_transform_, task + "|" + site.transform) - same_task;
  // The exact rewrite failing on this task is strong evidence (a shape it does not fit); the same
  // rewrite elsewhere or a sibling parameter of the same transformation is weaker evidence.
  double w = std::pow(0.05, same_task) * std::pow(0.5, other_tasks) * std::pow(0.8, same_transform);
  return std::max(w, 1e-4);
}

nlohmann::json FailureLog::to_json() const {
  std::lock_guard lock(mutex_);
  return {{"by_task_key", by_task_key_}, {"by_key", by_key_}, {"by_task_transform", by_task_transform_}};
}

void FailureLog::restore(const nlohmann::json& j) {
  std::lock_guard lock(mutex_);
  by_task_key_ = j.value("by_task_key", std::map<std::string, int>{});
  by_key_ = j.value("by_key", std::map<std::string, int>{});
  by_task_transform_ = j.value("by_task_transform", std::map<std::string, int>{});
}

}  // namespace agents::builtin
