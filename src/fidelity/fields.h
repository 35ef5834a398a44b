// Field by field: the simulated neuron-profile summary of an entry against the recorded real
// profile (the seven Trn1 baselines of trn1-baseline-profiles.json), every documented field we
// emit, each with a stated tolerance (`accelopt fidelity --fields`, docs/simulator.md "Profile").
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fidelity/runner.h"

namespace fidelity {

// One documented summary field and how closely the simulator must reproduce it.
struct FieldSpec {
  std::string name;
  // Within tolerance when |log(simulated / recorded)| <= max_abs_log_ratio, or when the two differ
  // by at most abs_slack (fractions near zero, where a ratio says nothing).
  double max_abs_log_ratio = 0;
  double abs_slack = 0;
};

// The fields compared, in neuron-profile's order, with their tolerances.
const std::vector<FieldSpec>& compared_fields();

struct FieldRow {
  std::string field;
  bool recorded_present = false;  // the real profile has the field (absent ones are not compared)
  double simulated = 0, recorded = 0;
  double ratio = 0;  // simulated / recorded (1 when both are 0, inf when only the recorded is 0)
  bool within = true;
  FieldSpec spec;
};

// Every compared field of a simulated profile against a recorded one (field name -> value).
std::vector<FieldRow> compare_fields(const nlohmann::json& simulated, const std::map<std::string, double>& recorded);

// The rows of every entry of `results` that has a recorded profile and ran.
struct EntryFields {
  const EntryResult* result = nullptr;
  std::vector<FieldRow> rows;
};
std::vector<EntryFields> field_comparisons(const std::vector<EntryResult>& results);

// One table per entry (field, ours, recorded, ratio, tolerance, ok) and a ratio matrix of all.
std::string format_fields_text(const std::vector<EntryFields>& fields);
nlohmann::json fields_to_json(const std::vector<EntryFields>& fields);

}  // namespace fidelity
