#include "eval/profile_run.h"

#include <fmt/core.h>

#include "eval/kernel_exec.h"
#include "eval/profile_chain.h"
#include "eval/session.h"
#include "eval/sources.h"
#include "nki/lib/array_value.h"

namespace eval {
namespace {

TraceRun failed_run(const Failed& f) {
  TraceRun run;
  run.status = classify(f.failure);
  run.failure = f.failure;
  run.diagnostics.push_back(f.rendered);
  return run;
}

}  // namespace

TraceRun trace_kernel(const TraceRequest& request, trn::TraceSink& sink) {
  Stage stage = Stage::ParseKernel;
  try {
    Session session(request.limits, deadlines_from_now(request.limits));
    auto compiled = session.compile(request.kernel_path, request.kernel_text);
    stage = Stage::RunKernel;
    auto module = session.load(compiled);
    if (std::string why = missing_entry(*module, request.entry); !why.empty())
      throw failed(Failure{Stage::RunKernel, nki::ErrorKind::Name, nki::LimitKind::None, request.kernel_path, 0, 0, why});
    run_kernel_traced(session.interpreter(), *module, request.args, sink, request.entry, request.arch);
    TraceRun run;
    run.status = Status::Ok;
    return run;
  } catch (...) {
    return failed_run(failed_from_current_exception(stage, request.kernel_path));
  }
}

ProfileRun profile_kernel(const TraceRequest& request, const std::string& arch, const BackEndOptions& options) {
  return profile_kernel(request, trn::arch_config(arch), options);
}

ProfileRun profile_kernel(const TraceRequest& request, const trn::ArchConfig& arch, const BackEndOptions& options) {
  ProfileChain chain(arch, request.kernel_path, options);
  ProfileRun run;
  TraceRequest on_arch = request;
  on_arch.arch = arch.name;
  static_cast<TraceRun&>(run) = trace_kernel(on_arch, chain.sink());
  run.lowering = chain.lowering_stats();
  if (run.status != Status::Ok) return run;
  if (chain.failure()) {
    static_cast<TraceRun&>(run) = failed_run(*chain.failure());
    return run;
  }
  run.profile = chain.profile();
  return run;
}

namespace {

// The kernel arguments of a reference's get_inputs() -> transform_to_nki_inputs(), as shapes.
// `shapes_only` runs numpy without element values (free for large inputs); references whose
// inputs depend on values (np.cumsum of random lengths, boolean selections) need them.
std::vector<nki::Value> reference_args_run(const std::string& reference_path, const std::string& reference_text,
                                           const Limits& limits, bool shapes_only) {
  Session session(limits, deadlines_from_now(limits));
  nki::lib::set_numpy_shape_only(session.interpreter(), shapes_only);
  auto module = session.load(session.compile(reference_path, reference_text));
  nki::Value get_inputs = find_function(*module, {"get_inputs"});
  nki::Value to_nki = find_function(*module, {"transform_to_nki_inputs"});
  if (get_inputs.is_none() || to_nki.is_none())
    throw std::runtime_error(fmt::format("{}: reference defines no function '{}'", reference_path,
                                         get_inputs.is_none() ? "get_inputs" : "transform_to_nki_inputs"));
  session.seed_numpy(0);
  nki::Value inputs = session.call(get_inputs, {});
  nki::Value args = session.call(to_nki, {inputs});
  std::vector<nki::Value> out;
  for (const auto& a : items_of(args)) out.push_back(shape_only(a));
  return out;
}

}  // namespace

std::vector<nki::Value> reference_kernel_args(const std::string& reference_path, const std::string& reference_text,
                                              const Limits& limits) {
  try {
    try {
      return reference_args_run(reference_path, reference_text, limits, true);
    } catch (const nki::NkiError& e) {
      if (e.diag.kind == nki::ErrorKind::Limit || e.diag.kind == nki::ErrorKind::Syntax) throw;
      return reference_args_run(reference_path, reference_text, limits, false);  // inputs that need values
    }
  } catch (const nki::NkiError& e) {
    throw std::runtime_error("error in the reference:\n" + nki::render(e.diag));
  }
}

std::vector<loopnest::ArgSpec> reference_arg_specs(const std::string& reference_path, const std::string& reference_text,
                                                   const Limits& limits) {
  return bench::arg_specs(reference_kernel_args(reference_path, reference_text, limits));
}

TraceRequest trace_request_from_files(const std::string& reference_path, const std::string& kernel_path,
                                      const Limits& limits) {
  TraceRequest req;
  req.kernel_path = kernel_path;
  req.kernel_text = read_source(kernel_path, limits.max_source_bytes);
  req.args = reference_kernel_args(reference_path, read_source(reference_path, limits.max_source_bytes), limits);
  req.limits = limits;
  return req;
}

}  // namespace eval
