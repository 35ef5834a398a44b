// The result of evaluating one kernel against a task's reference (design.md "Evaluation"):
// status, correctness per seed, diagnostics, and the profile of a correct kernel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "eval/failure.h"
#include "eval/status.h"
#include "trn/profile.h"

namespace eval {

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
  // Why the evaluation failed, typed (status == classify(*failure) when set).
  std::optional<Failure> failure;
  std::vector<std::string> diagnostics;  // the failure rendered compiler-style, plus notes
  std::optional<trn::Profile> profile;   // filled for correct kernels
  // Not a result: the evaluation was cancelled before it finished (Ctrl-C, budget stop). Never
  // stored; a resumed run evaluates the kernel again.
  bool cancelled = false;
  double latency_ms() const { return profile ? profile->latency : 0.0; }
};

// An evaluation that ended with `f`: status = classify(f.failure), the failure and its rendering.
Evaluation failed_evaluation(const Failed& f);

nlohmann::json to_json(const Evaluation& e);
// The JSON text of an Evaluation (indent < 0: one line). Never throws for text that is not
// UTF-8 (a diagnostic quoting a kernel's bytes): such bytes become U+FFFD, the JSON is kept.
std::string to_json_text(const Evaluation& e, int indent = -1);
std::string json_text(const nlohmann::json& j, int indent = -1);
Evaluation evaluation_from_json(const nlohmann::json& j);

}  // namespace eval
