// Job lists: a JSON-lines file of evaluation jobs, for evaluating many kernels through an
// executor from the command line (`accelopt worker --dispatch LIST`). One object per line:
//   {"id": "k1", "kernel": "k1.py", "reference": "ref.py", "arch": "trn1",
//    "seeds": [0, 21], "tolerance": 2e-5, "test_hook": {...}}
// Relative paths are relative to the list's directory. Only "kernel" and "reference" are required.
#pragma once

#include <string>
#include <vector>

#include "eval/executor.h"

namespace eval {

// Throws std::runtime_error naming the file and line for a malformed entry.
std::vector<EvalJob> read_job_list(const std::string& path);
// One line per job, in order: {"id": ..., "evaluation": {...}}.
std::string format_results(const std::vector<EvalJob>& jobs, const std::vector<Evaluation>& results);

}  // namespace eval
