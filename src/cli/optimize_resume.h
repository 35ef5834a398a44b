// What `optimize --resume RUN_DIR` refuses (issue 14, "Resume"): options that define the run given
// again with other values (they were ignored silently before), and a run store that is not this
// run's (missing, empty, or another run's: before, each of these silently started the run over).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/optimize_options.h"
#include "store/run_store.h"

namespace cli {

// A new, unique identity for a run, kept in config.json and in run.db's run record.
std::string new_run_uid();

// Options that define what the run computes (tasks, agent, arch, search parameters, benchmark,
// profiler...) may be given beside --resume only with the value the run has; the budgets, the
// workers and executor, --memory-out, --confirm-with-profiler and the display options may
// change. `asked` is the command line before restore(), `restored` after. Throws
// std::invalid_argument naming the option, both values and what to do instead.
void check_resume_options(const OptimizeOptions& asked, const OptimizeOptions& restored, const CLI::App& given);

// Before opening RUN_DIR/run.db for a resume: throws when it is missing.
void check_run_store_exists(const std::string& run_dir);
// After opening it: throws when it holds no run, or another run's (another run_uid; for runs
// recorded before run_uid, other tasks or another arch). Returns the run's id.
int64_t resumed_run_id(const std::string& run_dir, const OptimizeOptions& o, store::RunStore& store);

}  // namespace cli
