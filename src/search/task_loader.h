// Builds TaskSpecs from a benchmark directory in the NKIBench layout (bench/loader.h): reference
// and baseline text, kernel file name, tolerance and the published peak estimate for the arch.
#pragma once

#include <string>
#include <vector>

#include "search/task_spec.h"

namespace search {

// `selection`: "all", or task names / task_config names separated by commas. Throws
// std::invalid_argument naming an unknown task, std::runtime_error for an unreadable suite.
// Suite entries that fail to load are reported in `warnings` and skipped.
// `kernels_dir` (optional, `optimize --kernels`): the baseline kernel of each task comes from this
// directory (bench::find_kernel_in: the bundled file name, else <task>.py) instead of the
// benchmark's kernels/. A task named in `selection` with no kernel there, or with a kernel file
// that does not name the one kernel it runs (several kernels, none named 'kernel':
// bench::check_kernel_text), is an error; with "all" it is skipped with a warning.
std::vector<TaskSpec> load_tasks(const std::string& bench_root, const std::string& selection, const std::string& arch,
                                 std::vector<std::string>& warnings, const std::string& kernels_dir = "");

}  // namespace search
