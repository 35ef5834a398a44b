// The correctness harness (design.md "Check", nki-language.md §14.3) for one kernel against one
// reference: for each seed, seed numpy's global RNG, get_inputs(), forward() (or the cached
// outputs), transform_to_nki_inputs(), run the kernel with numerics, transform_nki_outputs(),
// then compare (bench/compare.h). Stops at the first failing seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/compare.h"
#include "bench/kernel_exec.h"
#include "bench/outcome.h"
#include "nki/value.h"

namespace nki {
class Interpreter;
}

namespace bench {

struct CheckLimits {
  uint64_t max_steps = 2'000'000'000;
  uint64_t max_bytes = 16ull << 30;
  double max_seconds = 600;  // the whole check
};

struct CheckRequest {
  std::string kernel_path, kernel_text;        // text is what runs; path is for diagnostics
  std::string reference_path, reference_text;
  std::vector<int> seeds = {0, 21, 42, 63, 84};
  double tolerance = 2e-5;
  std::string cache_dir;                       // reference-output cache ("" = none)
  CheckLimits limits;
  KernelEntry entry;                           // which function runs (default: kernel)
};

struct SeedCheck {
  int seed = 0;
  bool correct = false;
  OutputDiff diff;
};

struct CheckResult {
  Outcome outcome = Outcome::InternalError;
  std::vector<SeedCheck> seeds;          // the seeds that ran, in order
  std::vector<std::string> diagnostics;  // rendered
  // Kernel arguments of the last seed that ran, as shape-only values (for a trace-only replay).
  std::vector<nki::Value> shape_only_args;
};

CheckResult check_kernel(const CheckRequest& request);

}  // namespace bench
