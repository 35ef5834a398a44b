// One kernel written in a round, after evaluation: which (candidate, plan) branch it belongs to,
// its code and its outcome.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "trn/profile.h"

namespace search {

struct KernelResult {
  size_t candidate = 0;  // index in the round's beam
  size_t plan = 0;       // index in that candidate's plans
  int sample = 0;        // k
  std::string id;        // "r3.c1.p4.k0"
  std::string code;
  std::string status;    // eval status, or "no_code" / "not_evaluated"
  bool correct = false;
  double latency_ms = 0;
  std::optional<trn::Profile> profile;
  std::vector<std::string> diagnostics;
  int fix_attempts = 0;  // how many times the fixer rewrote it
  std::vector<std::string> replaced_codes;  // the failed versions the fixer rewrote, oldest first
};

}  // namespace search
