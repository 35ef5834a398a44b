// `accelopt worker`: executes evaluation jobs of a run directory, one process per job (local
// executor) or per Slurm array task. The result is written atomically to results/<key>.json;
// a worker that dies before that leaves no result and the executor retries the job.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "eval/evaluation.h"
#include "eval/run_dir.h"

namespace eval {

// Exit codes of a worker. Anything else (or a signal) is a crash.
enum WorkerExit : int {
  kWorkerOk = 0,             // result written
  kWorkerBadJob = 2,         // job file missing or malformed (not retried usefully)
  kWorkerProfilerFailed = 75 // EX_TEMPFAIL: the profiler failed; no result, retry
};

// Runs the job `key`; returns a WorkerExit. Errors go to stderr (the job log). The worker reads
// nothing but the job file: kernel and reference come as text (never read from the job's paths),
// and a job that carries a test hook is refused unless a hook is installed.
int run_worker_job(const RunDir& run, const std::string& key);

// What a test build does with a job's `test_hook` object (sleep, crash, hang, or a canned
// Evaluation: tests/support/test_hooks.h). Only the test build of the CLI installs one.
using JobHook = std::function<std::optional<Evaluation>(const std::string& hook_json, const std::string& key)>;
void install_job_hook(JobHook hook);

// Slurm array tasks find their job by index in a key list (one key per line).
std::string key_at_index(const std::string& key_list_path, int index);

}  // namespace eval
