// Results of running benchmark cases, and their renderings: the text table of `accelopt bench`,
// CSV, and JSON ({"arch", "peak_constants", "tasks": [...], "geomean_percent_of_peak"}).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "bench/peak.h"
#include "trn/profile.h"

namespace bench {

struct BenchRow {
  std::string task, config, kernel;  // kernel: path of the kernel file
  std::string status;                // eval status name ("ok", "incorrect", ...) or "error"
  bool correct = false;
  std::optional<PeakEstimate> peak;  // absent when the task has no formula
  std::optional<trn::Profile> profile;
  std::vector<std::string> diagnostics;
  double rel_l2 = 0;       // worst seed
  double seconds = 0;      // wall time of the evaluation

  double latency_ms() const { return profile ? profile->latency : 0.0; }
  // peak / latency * 100 when both are known and the kernel is correct.
  std::optional<double> percent_of_peak() const;
};

struct BenchReport {
  std::string arch;
  std::string peak_description;
  std::vector<BenchRow> rows;
  std::vector<std::string> errors;  // suite-level errors (malformed entries)

  // Geometric mean of percent_of_peak over rows that have one; nullopt if none.
  std::optional<double> geomean_percent() const;
};

std::string render_table(const BenchReport& report);
std::string render_csv(const BenchReport& report);
nlohmann::json to_json(const BenchReport& report);

}  // namespace bench
