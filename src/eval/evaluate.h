// Evaluate one kernel against one task reference: the harness of design.md "Check" plus the
// profiler. This is what `accelopt eval`, the worker processes and the benchmark all call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/evaluation.h"

namespace eval {

struct Limits {
  uint64_t max_steps = 2'000'000'000;        // interpreter steps (statements + expressions)
  uint64_t max_bytes = 16ull << 30;          // bytes of arrays alive at once
  double max_seconds = 600;                  // wall time of the whole evaluation
};

struct EvalRequest {
  std::string kernel_path, reference_path;
  std::string kernel_text, reference_text;   // when non-empty, used instead of reading the paths
  std::string arch = "trn1";
  std::vector<int> seeds = {0, 21, 42, 63, 84};
  double tolerance = 2e-5;
  bool profile = true;                       // run the simulator for a correct kernel
  std::string cache_dir;                     // reference-output cache ("" = no cache)
  Limits limits;
};

Evaluation evaluate(const EvalRequest& request);

}  // namespace eval
