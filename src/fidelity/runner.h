// Runs one fidelity entry: the numerics check at the entry's check shape (the reference's module
// constants overridden by check_params), then the trace-only profile at the measured shape through
// the same path a real profile takes (eval::profile_kernel: interpreter -> trace -> simulator),
// and the simulated quantity that the entry's metric is compared with.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/status.h"
#include "fidelity/manifest.h"
#include "lower/options.h"
#include "trn/profile.h"

namespace fidelity {

struct RunOptions {
  bool check = true;         // run the numerics check
  bool check_slow = false;   // also the checks marked `check: slow`
  std::string timeline_dir;  // write a Chrome trace per entry here ("" = none)
  // Simulator parameters to override (trn::set_parameter names), for calibration scans; applied
  // to the configuration of each entry's generation.
  std::vector<std::pair<std::string, double>> parameters;
  // The compiler-stage rules to run (ablations: --lower).
  lower::Options lowering;
};

enum class CheckState { Passed, Failed, Skipped };

struct EntryResult {
  const Entry* entry = nullptr;
  CheckState check = CheckState::Skipped;
  std::string check_note;               // why it was skipped, or the check's outcome
  eval::Status profile_outcome = eval::Status::InternalError;
  std::optional<trn::Profile> profile;  // the simulated profile at the measured shape
  std::vector<std::string> diagnostics; // of the failing step(s), rendered
  double measured_us = 0;               // the entry's measurement as a time
  double simulated_us = 0;              // the simulated counterpart (whole-run latencies: + launch offset)
  double seconds = 0;                   // wall time of the trace-only profile

  bool runs() const { return profile.has_value() && check != CheckState::Failed; }
  bool compared() const { return runs() && entry->metric != Metric::None && simulated_us > 0; }
  double ratio() const { return simulated_us / measured_us; }  // compared() entries only
};

// The reference text with `params` appended as module-level assignments (they override the
// file's constants, which get_inputs/forward read at call time).
std::string reference_with_params(const std::string& text, const std::map<std::string, std::string>& params);

// The kernel text with each constant's first assignment line (`NAME = ...`, any indentation) set to
// the given value. Throws std::runtime_error naming a constant the text does not assign.
std::string kernel_with_constants(const std::string& text, const std::map<std::string, std::string>& constants);

// The simulated quantity an entry's metric is compared with, in microseconds.
double simulated_quantity_us(const Entry& entry, const trn::Profile& profile);

EntryResult run_entry(const Entry& entry, const RunOptions& options);

}  // namespace fidelity
