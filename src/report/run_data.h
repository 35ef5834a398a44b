// The data of a run's report page, read from a run directory: run.db (the whole history),
// config.json, summary.json (or, for a run still going, its last checkpoint), best/ and the
// agents file. It works on finished, stopped and running runs. The page (page.h) draws it; the
// JSON layout is documented in docs/report.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/task_history.h"

namespace store {
class RunStore;
}

namespace report {

struct ReportOptions {
  // Kernel texts of every kernel (for the diff of any lineage child) while they add up to at most
  // this many bytes; beyond it only the lineage tree's own kernels carry their text.
  size_t max_code_bytes = 8u << 20;
  // Simulate the best kernel of every task once more to draw its engine timeline (and write the
  // Chrome trace beside the page).
  bool timeline = true;
  std::string timeline_dir;  // where the Chrome traces go ("" = none are kept)
};

// Every task's history in the store's run `run_id`, in the order the tasks were first evaluated.
std::vector<TaskHistory> load_histories(store::RunStore& store, int64_t run_id);

// Memory items with how often they were offered to a planner and reused (docs/report.md, Memory).
// `items`: the store's memory_items in order (JSON each); `round_order`: "task/round" -> sequence
// number of that round in the run; `plans`: (sequence number of the plan's round, plan title,
// improved kernels, written kernels) per plan; `capacity`: the memory's capacity.
struct PlanUse {
  int seq = 0;
  std::string title;
  int kernels = 0, improved = 0;
};
struct MemoryEntry {
  nlohmann::json item;
  int seq = 0;  // sequence number of the round that added it
};
nlohmann::json memory_usage_json(const std::vector<MemoryEntry>& items, const std::vector<PlanUse>& plans,
                                 size_t capacity);

// The command line that reproduces a run from its config.json.
std::string reproduce_command(const nlohmann::json& config, const std::string& run_dir);

// The whole page data of one run. Throws std::runtime_error when RUN_DIR is not a run directory.
nlohmann::json load_run_data(const std::string& run_dir, const ReportOptions& options = {});

// Several runs on the same axes (`accelopt report RUN_A RUN_B ...`).
nlohmann::json load_compare_data(const std::vector<std::string>& run_dirs);

}  // namespace report
