// Profilers: where the numbers of a correct kernel come from. `sim` is the NeuronCore simulator
// (run inside eval::evaluate); `command` runs an external program, e.g. a wrapper around
// neuron-profile on a Trainium host, and reads its JSON summary (protocol: docs/evaluation.md).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "eval/evaluate.h"
#include "eval/job.h"

namespace eval {

// A failure of the profiling machinery itself, not of the kernel: the worker exits without a
// result so that the executor retries the job.
struct ProfilerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Profiler {
 public:
  virtual ~Profiler() = default;
  // True when evaluate() itself should produce the profile (the simulator).
  virtual bool simulated() const = 0;
  // Adds the profile to an evaluation whose check passed. Throws ProfilerError.
  virtual void profile(const EvalRequest& request, Evaluation& checked) = 0;
};

// `scratch_dir` receives kernel/reference files when the request has text but no readable path.
// Throws std::runtime_error for an unknown kind or a `command` profiler without a command.
std::unique_ptr<Profiler> make_profiler(const ProfilerConfig& config, const std::string& scratch_dir);

}  // namespace eval
