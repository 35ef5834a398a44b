// TEST HOOKS of the worker, compiled only into the test build of the CLI (`accelopt-test`,
// tests/support/CMakeLists.txt): a job's `test_hook` object makes the worker misbehave on purpose
// so that executors can be tested without eval::evaluate(). The production `accelopt` has no
// hook code and refuses a job that carries one (eval/worker.h).
//   "record_run": PATH          append "KEY PID" to PATH each time the job starts
//   "sleep_s": S                sleep S seconds first
//   "crash": "abort"|"exit"     abort (SIGABRT) or _exit(3) before writing a result
//   "crash_once_marker": PATH   crash like "abort" unless PATH exists (creates it first)
//   "hang": true                never finish (until killed)
//   "result": {Evaluation}      return this Evaluation instead of calling evaluate()
#pragma once

#include <optional>
#include <string>

#include "eval/evaluation.h"

namespace eval {

// Applies the side effects (record, sleep, crash, hang) of a hook; returns the canned result.
// Throws std::runtime_error for a malformed hook.
std::optional<Evaluation> apply_test_hook(const std::string& hook_json, const std::string& key);

}  // namespace eval
