// The options of `accelopt optimize` and their record in RUN_DIR/config.json, which --resume and
// --replay read back (docs/optimize.md).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "eval/executor.h"
#include "search/params.h"

namespace cli {

struct OptimizeOptions {
  std::string task, tasks, agent = "builtin", config, memory_in, memory_out, out, resume, bench_root, arch = "trn1";
  std::string kernels;  // --kernels DIR: the baselines come from DIR instead of <bench_root>/kernels
  std::string prompts;
  std::string check_seeds;  // "" = the task's own seeds (all five)
  std::string cache_dir;    // reference-output cache for search-time checks ("" = the default one)
  std::string replay;       // a recorded run whose answers this run replays ("" = call the models)
  bool no_cache = false;
  search::SearchParams params;
  search::Budgets budgets;
  eval::ExecutorConfig executor;
  uint64_t seed = 0;
  bool no_progress = false;
  bool report = false;  // --report: keep RUN_DIR/report.html current during the run (docs/report.md)
  std::string confirm_with_profiler;  // command profiler for the final baselines and bests ("" = none)
  std::string run_uid;  // the run's identity, in config.json and run.db (optimize_resume.h); "" = older run
};

nlohmann::json to_json(const OptimizeOptions& o);

// Restores the options of a run from its config.json (for --resume and --replay). Options given
// on the command line that may change between processes win: the budgets (a budget-stopped run
// continues with more), the executor and workers, and for a replay the arch, the benchmark and
// the baseline kernels (the same answers judged by another simulator or arch). `given` is the command line as parsed.
void restore(OptimizeOptions& o, const nlohmann::json& saved, const CLI::App& given);

// Reads RUN_DIR/config.json; throws std::invalid_argument naming `flag` when RUN_DIR is not a run.
nlohmann::json read_run_config(const std::string& run_dir, const std::string& flag);

}  // namespace cli
