// The kernel arguments of a task as the loop-nest lifter takes them (shapes and dtypes of the
// arrays, values of the scalars), from the reference's shape-only inputs (eval::reference_arg_specs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/task_case.h"
#include "loopnest/arg_spec.h"
#include "nki/value.h"

namespace bench {

std::vector<loopnest::ArgSpec> arg_specs(const std::vector<nki::Value>& args);

// The reference of a kernel file: `<stem>.ref.py` beside it (the kernel corpus), else the one found
// by its name in a benchmark directory: the nearest ancestor
// of the file holding summary.json, else the default benchmark root. A case matches when its
// kernel has the same file name (`silu_M4096_N7168_0.py`, also under nkibench/styles/<style>/) or
// the file is named after the task (`silu.py`). "" when none does. `bench_root` (a user's
// --bench-root) is looked in before the default root, by file name like it.
std::string reference_for_kernel(const std::string& kernel_path, const std::string& bench_root = "");

// The benchmark case whose reference is the file `reference_path` (the same file, however the path
// is spelled), searched in the same directories as reference_for_kernel; nullopt when no case has it.
// `accelopt eval` takes the task's tolerance from it (mamba's is 3e-5, nkibench.md).
std::optional<TaskCase> case_for_reference(const std::string& reference_path, const std::string& bench_root = "");

}  // namespace bench
