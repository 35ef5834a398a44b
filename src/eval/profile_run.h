// Trace-only runs of a kernel (no numerics; array arguments are shape-only): the raw trace for
// `accelopt trace`, and the profile for `accelopt profile` and the fidelity benchmark, through
// the pipeline's back end (trace -> lower -> simulate, eval/profile_chain.h). An evaluation does
// not use these: it profiles the very run it checked (eval/pipeline.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/arg_specs.h"
#include "eval/evaluate.h"
#include "eval/failure.h"
#include "eval/kernel_exec.h"
#include "eval/profile_chain.h"
#include "lower/options.h"
#include "nki/value.h"
#include "trn/arch_config.h"
#include "trn/profile.h"
#include "trn/trace.h"

namespace eval {

struct TraceRequest {
  std::string kernel_path, kernel_text;
  std::vector<nki::Value> args;  // kernel arguments; arrays shape-only
  Limits limits = default_limits();
  KernelEntry entry;             // which function runs (default: kernel)
  std::string arch = "trn1";     // the target nisa.get_nc_version() reports (profile_kernel: its arch)
};

struct TraceRun {
  Status status = Status::InternalError;
  std::optional<Failure> failure;        // set unless status is Ok
  std::vector<std::string> diagnostics;  // the failure, rendered
};

// Runs the kernel trace-only into `sink`, then calls sink.finish().
TraceRun trace_kernel(const TraceRequest& request, trn::TraceSink& sink);

struct ProfileRun : TraceRun {
  std::optional<trn::Profile> profile;
  // What each compiler-stage rule did to the trace (pipeline order).
  std::vector<std::pair<lower::Rule, lower::RuleStats>> lowering;
};

// trace_kernel through the compiler stage (src/lower) into the simulator for `arch`, run as
// `options` say (eval/profile_chain.h).
ProfileRun profile_kernel(const TraceRequest& request, const std::string& arch, const BackEndOptions& options = {});
// The same with an explicit (e.g. parameter-scanned, trn::set_parameter) configuration.
ProfileRun profile_kernel(const TraceRequest& request, const trn::ArchConfig& arch, const BackEndOptions& options = {});

// The kernel arguments a reference produces (get_inputs + transform_to_nki_inputs under seed 0),
// as shape-only values (numpy in shape-only mode), without computing forward. Throws
// std::runtime_error with the rendered diagnostic when the reference fails.
std::vector<nki::Value> reference_kernel_args(const std::string& reference_path, const std::string& reference_text,
                                              const Limits& limits);
// The same as the loop-nest lifter takes them (bench::arg_specs).
std::vector<loopnest::ArgSpec> reference_arg_specs(const std::string& reference_path, const std::string& reference_text,
                                                   const Limits& limits = default_limits());

// The request `accelopt trace` and `accelopt profile` run: the kernel file, and shape-only
// arguments from the reference file. Throws like reference_kernel_args, or when a file is unreadable.
TraceRequest trace_request_from_files(const std::string& reference_path, const std::string& kernel_path,
                                      const Limits& limits = default_limits());

}  // namespace eval
