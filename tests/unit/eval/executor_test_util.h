// Helpers for executor tests: jobs whose worker behaviour comes from a TEST HOOK, so the tests
// do not depend on eval::evaluate().
#pragma once

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/executor.h"
#include "support/test_paths.h"

namespace eval {

inline nlohmann::json canned_ok(double latency_ms) {
  return {{"status", "ok"}, {"correct", true}, {"profile", {{"latency", latency_ms}}}};
}

inline EvalJob hooked_job(const std::string& id, const std::string& kernel_text, const nlohmann::json& hook) {
  EvalJob job;
  job.id = id;
  job.request.kernel_text = kernel_text;
  job.request.reference_text = "def forward(a):\n    return a\n";
  job.test_hook_json = hook.dump();
  return job;
}

inline int count_lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

inline ExecutorConfig local_config(const std::string& run_dir) {
  ExecutorConfig c;
  c.kind = "local";
  c.run_dir = run_dir;
  c.worker_binary = ACCELOPT_TEST_BINARY;  // the test build obeys the jobs' test hooks
  c.workers = 2;
  c.retries = 1;
  return c;
}

}  // namespace eval
