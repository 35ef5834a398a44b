// A task as the search loop needs it: what agents see (TaskInfo) plus what evaluation needs.
#pragma once

#include <string>
#include <vector>

#include "agents/types.h"

namespace search {

struct TaskSpec {
  agents::TaskInfo info;          // name, reference and baseline text, kernel file name, arch, peak
  std::string reference_path;     // for evaluation jobs (text is sent too)
  std::string baseline_path;
  double tolerance = 2e-5;
  std::vector<int> seeds = {0, 21, 42, 63, 84};          // checks during the search (--check-seeds)
  std::vector<int> recheck_seeds = {0, 21, 42, 63, 84};  // the final check of the reported best
  // Part of the evaluation cache key when non-empty. The final re-check sets it ("recheck") so
  // that it never reuses a search-time result and always runs in a fresh worker process.
  std::string key_tag;
  // Whether the evaluator's reference-output cache may answer for the reference (the final
  // re-check computes the reference afresh).
  bool ref_cache = true;
};

}  // namespace search
