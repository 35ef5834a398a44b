// `accelopt worker`: executes evaluation jobs of a run directory, one process per job (local
// executor) or per Slurm array task. The result is written atomically to results/<key>.json;
// a worker that dies before that leaves no result and the executor retries the job.
#pragma once

#include <string>

#include "eval/run_dir.h"

namespace eval {

// Exit codes of a worker. Anything else (or a signal) is a crash.
enum WorkerExit : int {
  kWorkerOk = 0,             // result written
  kWorkerBadJob = 2,         // job file missing or malformed (not retried usefully)
  kWorkerProfilerFailed = 75 // EX_TEMPFAIL: the profiler failed; no result, retry
};

// Runs the job `key`; returns a WorkerExit. Errors go to stderr (the job log).
int run_worker_job(const RunDir& run, const std::string& key);

// Slurm array tasks find their job by index in a key list (one key per line).
std::string key_at_index(const std::string& key_list_path, int index);

}  // namespace eval
