// The result of evaluating one kernel against a task's reference (design.md "Evaluation"):
// status, correctness per seed, diagnostics, and the profile of a correct kernel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "trn/profile.h"

namespace eval {

enum class Status { Ok, CompileError, RuntimeError, Incorrect, Timeout, LowerPrecision, InternalError };
const char* to_string(Status s);               // "ok", "compile_error", "runtime_error", "incorrect",
                                               // "timeout", "lower_precision", "internal_error"
std::optional<Status> parse_status(const std::string& s);

struct SeedResult {
  int seed = 0;
  bool correct = false;
  double rel_l2 = 0;            // worst output's relative L2 error
  double max_abs_diff = 0, mean_abs_diff = 0, max_rel_diff = 0;
};

struct Evaluation {
  Status status = Status::InternalError;
  bool correct = false;
  std::vector<SeedResult> seeds;
  std::vector<std::string> diagnostics;  // rendered, compiler-style
  std::optional<trn::Profile> profile;   // filled for correct kernels
  double latency_ms() const { return profile ? profile->latency : 0.0; }
};

nlohmann::json to_json(const Evaluation& e);
Evaluation evaluation_from_json(const nlohmann::json& j);

}  // namespace eval
