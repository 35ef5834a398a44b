// What a run leaves in its directory and prints at the end: the best kernel of each task under
// the task's kernel file name in RUN_DIR/best/ (so `accelopt bench --kernels RUN_DIR/best` scores
// them), RUN_DIR/summary.json, RUN_DIR/memory.json, and the human-readable summary table.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "search/search_state.h"

namespace search {

// Per-task results of a state: finished tasks, then the stopped/unfinished one (if any).
std::vector<TaskResult> task_results(const RunState& state);

// The summary document (summary.json): status, stop reason, per-task results, totals.
nlohmann::json run_summary(const RunState& state, const std::string& run_name);

// Writes best/, summary.json and memory.json atomically (base::write_file_atomic).
// Throws std::runtime_error naming the file on an I/O error.
void write_run_outputs(const std::string& run_dir, const RunState& state, const std::string& run_name);

// The end-of-run table from a summary document (also used by `accelopt show`).
std::string format_summary(const nlohmann::json& summary);

}  // namespace search
