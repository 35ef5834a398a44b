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
  std::vector<int> seeds = {0, 21, 42, 63, 84};
};

}  // namespace search
