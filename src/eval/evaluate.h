// Evaluate one kernel against one task reference: the check of design.md "Check" and the
// profile of the checked run. This is what `accelopt eval`, the worker processes and the
// benchmark call; eval/pipeline.cpp is the pipeline, step by step.
#pragma once

#include <string>
#include <vector>

#include "eval/evaluation.h"
#include "eval/kernel_exec.h"
#include "nki/interpreter.h"

namespace eval {

// The one limits type of an evaluation (the interpreter's), with the evaluation's defaults:
// max_cpu_seconds is the CPU time of the whole evaluation (every seed, the reference included),
// the time limit; max_seconds its wall-clock backstop (docs/evaluation.md "Limits").
using Limits = nki::Limits;
// A loaded 2-core machine gave the check 1/12 of a core (2 Dec 2026: 2.5 s of CPU in 31.7 s of
// wall time); the backstop allows a fourth of a core before calling the machine too loaded.
constexpr double kWallBackstopFactor = 4;
Limits default_limits();  // 2e9 steps, 16 GiB, 600 s of CPU (2400 s wall backstop), 1 MiB per source file
// Limits for a time limit of `cpu_seconds` of CPU time, with its wall-clock backstop.
Limits limits_for_cpu_seconds(double cpu_seconds);

struct EvalRequest {
  std::string kernel_path, reference_path;
  std::string kernel_text, reference_text;   // when non-empty, used instead of reading the paths
  bool read_files = true;                    // false: the texts are the files (a worker reads no path)
  std::string arch = "trn1";
  std::vector<int> seeds = {0, 21, 42, 63, 84};
  double tolerance = 2e-5;
  bool profile = true;                       // profile a correct kernel on the simulator
  std::string cache_dir;                     // reference-output cache ("" = no cache)
  Limits limits = default_limits();
  KernelEntry entry;                         // which function of the kernel file runs (default: kernel)
};

// Never throws for anything a kernel or reference does: every failure is an Evaluation with a
// status and a typed failure (docs/evaluation.md "Statuses").
Evaluation evaluate(const EvalRequest& request);

}  // namespace eval
