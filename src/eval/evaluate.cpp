// eval::evaluate: the harness of bench/checker.h, then (for a correct kernel) a trace-only run of
// the kernel into the NeuronCore simulator for the request's arch.
#include "eval/evaluate.h"

#include <fmt/core.h>

#include "bench/checker.h"
#include "bench/loader.h"
#include "bench/profile_run.h"

namespace eval {
namespace {

Status status_of(bench::Outcome o) {
  switch (o) {
    case bench::Outcome::Ok: return Status::Ok;
    case bench::Outcome::CompileError: return Status::CompileError;
    case bench::Outcome::RuntimeError: return Status::RuntimeError;
    case bench::Outcome::Incorrect: return Status::Incorrect;
    case bench::Outcome::Timeout: return Status::Timeout;
    case bench::Outcome::LowerPrecision: return Status::LowerPrecision;
    case bench::Outcome::InternalError: return Status::InternalError;
  }
  return Status::InternalError;
}

// The file texts of the request: given inline, or read from the paths. A kernel that cannot be
// read is the submitter's problem (compile_error); a missing reference is ours.
std::optional<Evaluation> fill_texts(const EvalRequest& r, std::string& kernel, std::string& reference) {
  kernel = r.kernel_text;
  reference = r.reference_text;
  Evaluation failed;
  try {
    if (kernel.empty()) kernel = bench::read_file(r.kernel_path);
  } catch (const std::exception& e) {
    failed.status = Status::CompileError;
    failed.diagnostics.push_back(fmt::format("error: {}", e.what()));
    return failed;
  }
  try {
    if (reference.empty()) reference = bench::read_file(r.reference_path);
  } catch (const std::exception& e) {
    failed.status = Status::InternalError;
    failed.diagnostics.push_back(fmt::format("error: {}", e.what()));
    return failed;
  }
  return std::nullopt;
}

bench::CheckLimits limits_of(const Limits& l) {
  return bench::CheckLimits{l.max_steps, l.max_bytes, l.max_seconds};
}

}  // namespace

Evaluation evaluate(const EvalRequest& request) {
  std::string kernel_text, reference_text;
  if (auto failed = fill_texts(request, kernel_text, reference_text)) return *failed;
  bench::CheckRequest check;
  check.kernel_path = request.kernel_path.empty() ? "kernel.py" : request.kernel_path;
  check.kernel_text = kernel_text;
  check.reference_path = request.reference_path.empty() ? "reference.py" : request.reference_path;
  check.reference_text = reference_text;
  check.seeds = request.seeds;
  check.tolerance = request.tolerance;
  check.cache_dir = request.cache_dir;
  check.limits = limits_of(request.limits);
  bench::CheckResult result = bench::check_kernel(check);

  Evaluation e;
  e.status = status_of(result.outcome);
  e.correct = result.outcome == bench::Outcome::Ok;
  e.diagnostics = result.diagnostics;
  for (const auto& s : result.seeds) {
    e.seeds.push_back(SeedResult{s.seed, s.correct, s.diff.rel_l2, s.diff.max_abs_diff, s.diff.mean_abs_diff,
                                 s.diff.max_rel_diff});
  }
  if (!e.correct || !request.profile) return e;

  bench::TraceRequest trace{check.kernel_path, kernel_text, result.shape_only_args, check.limits};
  bench::ProfileRun run = bench::profile_kernel(trace, request.arch);
  if (run.outcome != bench::Outcome::Ok) {
    // The numerics run succeeded, so a failure here is in the trace/simulator path.
    e.status = status_of(run.outcome == bench::Outcome::Timeout ? run.outcome : bench::Outcome::InternalError);
    e.correct = false;
    for (auto& d : run.diagnostics) e.diagnostics.push_back("profiling failed: " + d);
    return e;
  }
  e.profile = run.profile;
  return e;
}

}  // namespace eval
