// Trace-only runs of a kernel: the profile (instruction trace fed to the NeuronCore simulator)
// and the raw trace for `accelopt trace`. No numerics anywhere: array arguments are shape-only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/checker.h"
#include "bench/kernel_exec.h"
#include "lower/options.h"
#include "nki/value.h"
#include "trn/arch_config.h"
#include "trn/profile.h"
#include "trn/trace.h"

namespace bench {

struct TraceRequest {
  std::string kernel_path, kernel_text;
  std::vector<nki::Value> args;  // kernel arguments; arrays shape-only
  CheckLimits limits;
  KernelEntry entry;             // which function runs (default: kernel)
};

struct TraceRun {
  Outcome outcome = Outcome::InternalError;  // Ok, CompileError, RuntimeError, Timeout, InternalError
  std::vector<std::string> diagnostics;
};

// Runs the kernel trace-only into `sink`, then calls sink.finish().
TraceRun trace_kernel(const TraceRequest& request, trn::TraceSink& sink);

struct ProfileRun : TraceRun {
  std::optional<trn::Profile> profile;
  // What each compiler-stage rule did to the trace (pipeline order).
  std::vector<std::pair<lower::Rule, lower::RuleStats>> lowering;
};

// trace_kernel through the compiler stage (lower::Lowering with `lowering`, all rules by
// default) into trn::Simulator(arch_config(arch)); `timeline_path` writes a Chrome trace.
ProfileRun profile_kernel(const TraceRequest& request, const std::string& arch, const std::string& timeline_path = "",
                          const lower::Options& lowering = {});
// The same with an explicit (e.g. parameter-scanned, trn::set_parameter) configuration.
ProfileRun profile_kernel(const TraceRequest& request, const trn::ArchConfig& arch,
                          const std::string& timeline_path = "", const lower::Options& lowering = {});

// The kernel arguments a reference produces (get_inputs + transform_to_nki_inputs under seed 0),
// as shape-only values (numpy in shape-only mode), without computing forward. Throws std::runtime_error with the rendered
// diagnostic when the reference fails.
std::vector<nki::Value> reference_kernel_args(const std::string& reference_path, const std::string& reference_text,
                                              const CheckLimits& limits);

// The request `accelopt trace` and `accelopt profile` run: the kernel file, and shape-only
// arguments from the reference file. Throws like reference_kernel_args, or when a file is unreadable.
TraceRequest trace_request_from_files(const std::string& reference_path, const std::string& kernel_path,
                                      const CheckLimits& limits = {});

}  // namespace bench
