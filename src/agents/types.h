// The values agents exchange with the search loop: the task being optimized, a candidate kernel,
// a plan (one optimization), a kernel draft written for a plan, a slow/fast rewrite pair, and the
// experience item the summarizer distils from a pair. LLM agents and the built-in rewrite agent
// (src/agents/builtin/) read and produce exactly these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loopnest/arg_spec.h"
#include "trn/profile.h"

namespace agents {

// What an agent may know about the task: its reference program and the baseline's figures.
struct TaskInfo {
  std::string name;               // e.g. "silu"
  std::string reference_text;     // the reference .py (get_inputs / forward / transform_*)
  std::string baseline_text;      // the baseline kernel .py
  std::string kernel_file_name;   // e.g. "silu_M4096_N7168_0.py"
  std::string arch = "trn1";
  double baseline_latency_ms = 0;
  double peak_latency_ms = 0;     // published "percentage of peak" bound (0 = unknown)
  double firm_peak_ms = 0;        // the parts of that bound no kernel beats (PeakEstimate::firm_latency_ms)
  // The kernel's arguments (shapes, dtypes, scalars) for the loop-nest form; empty = unknown.
  std::vector<loopnest::ArgSpec> kernel_args;
};

// A kernel in the beam: correct and profiled.
struct Candidate {
  std::string id;                 // stable within a run, e.g. "r3.c1.p4.k0" or "baseline"
  std::string kernel_text;
  double latency_ms = 0;
  std::optional<trn::Profile> profile;
};

// One optimization proposed by a planner for one candidate.
struct Plan {
  std::string title;              // one line
  std::string text;               // the full description (what to change and why)
};

// A kernel written by an executor (or repaired by a fixer). `ok == false` is a failed sample:
// the model's answer had no usable code block, or the call itself failed; `raw` keeps the answer.
struct KernelDraft {
  bool ok = false;
  std::string code;
  std::string raw;
  std::string error;
};

// A slow/fast pair from one (candidate, plan) group. A positive rewrite made the candidate faster
// (slow = candidate, fast = rewrite); a negative one made it slower (slow = rewrite, fast = candidate).
struct RewritePair {
  std::string task;
  int round = 0;
  bool positive = true;
  Plan plan;
  std::string slow_code, fast_code;
  double slow_latency_ms = 0, fast_latency_ms = 0;
  double speedup() const { return fast_latency_ms > 0 ? slow_latency_ms / fast_latency_ms : 0; }
};

// One optimization-memory item (docs/optimize.md "Memory file" documents its JSON form).
struct ExperienceItem {
  std::string task;
  int round = 0;
  bool positive = true;
  double speedup = 0;             // slow latency / fast latency (>= 1)
  std::string plan;               // title of the plan that produced the pair
  std::string key_change;         // the code change that made the difference
  std::string lesson;             // the general lesson, reusable on other kernels
  std::string slow_code, fast_code;
};

}  // namespace agents
