// The status of an evaluation: the one word the search loop, the agents and the store read.
// Their spellings are stable (docs/evaluation.md "Statuses"): ok, incorrect, compile_error,
// runtime_error, timeout, resource_error, lower_precision, internal_error, unfinished.
#pragma once

#include <optional>
#include <string>

namespace eval {

enum class Status {
  Ok,              // correct on every seed (and profiled)
  Incorrect,       // ran, but an output differs from the reference (or has the wrong shape)
  CompileError,    // the kernel file does not load: syntax, unsupported Python, unknown names, sandbox
  RuntimeError,    // the kernel failed while running: shapes, NKI hardware rules, assertions
  Timeout,         // the step limit or the CPU-time limit (the kernel needs more than the check allows)
  ResourceError,   // the memory limit, or a tile that can never fit on chip
  LowerPrecision,  // computes in a float format below the task's (bf16/fp16/fp8/tf32 for fp32 data)
  InternalError,   // accelopt or the task's reference failed: not the kernel's fault
  Unfinished,      // the wall-clock backstop stopped the check with CPU time left: the machine was
                   // too loaded to judge the kernel (not the kernel's fault; run it again)
};

const char* to_string(Status s);
std::optional<Status> parse_status(const std::string& s);

}  // namespace eval
