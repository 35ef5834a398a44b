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
// max_seconds is the wall time of the whole evaluation.
using Limits = nki::Limits;
Limits default_limits();  // 2e9 steps, 16 GiB, 600 s, 1 MiB per source file

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
