// One benchmark case: a task (e.g. "matmul"), one configuration of it (e.g. "M4096_N12288_K5120")
// with its size values, and the reference/kernel pair that implements it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/peak.h"

namespace bench {

struct TaskCase {
  std::string task;    // summary.json key, selects the peak formula and default tolerance
  std::string config;  // case id
  TaskValues values;
  std::string reference_path;  // resolved against the bench root
  std::string kernel_path;
  std::string seed_path;       // seeds/<task>.yaml (informational; may be empty)
  std::optional<double> tolerance;  // from summary.json; else default_tolerance(task)

  std::string name() const { return task + "_" + config; }
  double effective_tolerance() const;
};

// The harness's relative-L2 tolerance for a task summary.json gives none, and for a kernel checked
// against a reference that is no benchmark case's.
inline constexpr double kDefaultTolerance = 2e-5;

// The published per-task tolerance: 3e-5 for mamba, kDefaultTolerance for every other task.
double default_tolerance(const std::string& task);

// The harness's seeds.
inline const std::vector<int> kDefaultSeeds = {0, 21, 42, 63, 84};

// Parses "0,21,42": non-negative integers separated by commas. Throws std::invalid_argument
// naming the bad item.
std::vector<int> parse_seeds(const std::string& text);

}  // namespace bench
