// The evaluation job format shared by every executor and `accelopt worker` (docs/evaluation.md):
// one JSON file per job in the run directory, self-contained (kernel and reference text are
// embedded), so a worker on any node that sees the shared directory can execute it.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "eval/evaluate.h"

namespace eval {

struct ProfilerConfig {
  std::string kind = "sim";  // "sim" | "command"
  std::string command;       // for "command": run as `sh -c '<command> "$@"' - KERNEL REFERENCE`
};

struct JobSpec {
  std::string key;           // content key (job_key); names jobs/<key>.json and results/<key>.json
  EvalRequest request;       // kernel_text and reference_text filled
  ProfilerConfig profiler;
  std::string key_tag;       // EvalJob::key_tag (part of the key when non-empty)
  // TEST HOOK (tests only, never set by the search loop): makes the worker sleep, crash, hang or
  // return a canned Evaluation so executors are testable without evaluate(). See worker.cpp.
  std::string test_hook_json;
};

// The dedup/resume key: hash of the normalized kernel text and everything else that changes the
// result (reference text, arch, seeds, tolerance, profiler, limits, test hook), and the key tag
// when one is set (untagged keys are unchanged).
std::string job_key(const JobSpec& job);

nlohmann::json to_json(const JobSpec& job);
// Throws std::runtime_error naming the field for a malformed job.
JobSpec job_from_json(const nlohmann::json& j);

// Fills kernel_text / reference_text from their paths when empty (throws when unreadable).
void load_texts(EvalRequest& request);

}  // namespace eval
