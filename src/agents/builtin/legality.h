// Legality pre-checks that need the task, not just the kernel text: a free size must tile the
// dimensions it covers exactly unless the kernel masks the remainder (a tile of 2048 over 7168
// columns leaves the last 1024 unwritten and fails the check).
#pragma once

#include <set>
#include <string>

#include "agents/builtin/transform.h"
#include "agents/types.h"

namespace agents::builtin {

// The task's sizes: numbers in the kernel file name ("silu_M4096_N7168_0.py" -> 4096, 7168) and
// integer module-level constants of the reference ("N = 7168").
std::set<int64_t> task_dimensions(const TaskInfo& task);

// False when `site` is a free-size change that cannot tile some dimension the old size tiled
// exactly and the kernel has no mask for a remainder, or shrinks a size variable below an inner
// tile (`block // 1024` with block = 512). True for every other site.
bool plausible(const Site& site, const std::set<int64_t>& dims, const std::string& kernel_text);

}  // namespace agents::builtin
