// What `accelopt fidelity` prints: the per-entry table, the ladders, the summary figures (text or
// JSON), and the CI guard that compares the figures with the committed thresholds.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fidelity/stats.h"

namespace fidelity {

nlohmann::json to_json(const EntryResult& r);
nlohmann::json to_json(const Summary& s);

std::string format_text(const std::vector<EntryResult>& results, const Summary& s);

// The guarded figures (fidelity/thresholds.json): the number of entries that run, the median
// |log ratio| per generation, and Kendall tau per ladder. They may only be tightened.
struct Thresholds {
  int running_min = 0;
  // The entries compared when the thresholds were written. The median and tau are guarded over
  // these only, so that a kernel that starts to run (a language fix) cannot fail the guard by
  // moving a median; it joins the guarded set when the thresholds are next tightened.
  std::vector<std::string> compared_entries;
  std::map<std::string, double> median_abs_log_ratio_max;  // by generation
  std::map<std::string, double> ladder_tau_min;            // by ladder
  // Recorded-profile fields (fidelity/fields.h) outside their stated tolerance today, by
  // "group/name field": the largest |log(simulated / recorded)| allowed (inf: the field is zero on
  // one side only). Any other field must stay within its tolerance.
  std::map<std::string, double> field_abs_log_ratio_max;
};

// Today's figures as thresholds (rounded by 1e-4 towards the safe side).
Thresholds thresholds_of(const std::vector<EntryResult>& results);
nlohmann::json to_json(const Thresholds& t);
Thresholds thresholds_from_json(const nlohmann::json& j);  // throws std::runtime_error

// One line per guarded figure that got worse than its threshold; empty when the guard passes.
std::vector<std::string> guard_failures(const std::vector<EntryResult>& results, const Thresholds& t);

}  // namespace fidelity
