#include "bench/profile_run.h"

#include <fmt/core.h>

#include "bench/kernel_exec.h"
#include "bench/loader.h"
#include "lower/lowering.h"
#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/modules.h"
#include "trn/arch_config.h"
#include "trn/simulator.h"

namespace bench {
namespace {

std::unique_ptr<nki::Interpreter> make_interpreter(const CheckLimits& l) {
  nki::Limits limits;
  limits.max_steps = l.max_steps;
  limits.max_bytes = l.max_bytes;
  limits.max_seconds = l.max_seconds;
  auto in = std::make_unique<nki::Interpreter>(limits);
  install_modules(*in);
  return in;
}

std::shared_ptr<nki::SourceFile> source(const std::string& path, const std::string& text) {
  auto src = std::make_shared<nki::SourceFile>();
  src->path = path;
  src->text = text;
  return src;
}

nki::Value find_function(const nki::ModuleObj& m, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto it = m.attrs.find(name); it != m.attrs.end()) return it->second;
  return {};
}

std::vector<nki::Value> items_of(const nki::Value& v) {
  if (auto* l = v.as<nki::ListObj>()) return l->items;
  if (auto* t = v.as<nki::TupleObj>()) return t->items;
  return {v};
}

nki::Value shape_only(const nki::Value& v) {
  if (auto* a = v.as<nki::lib::NdArrayObj>(); a && !a->is_scalar)
    return nki::lib::make_array(tensor::Array::shape_only(a->array.shape(), a->array.dtype()));
  return v;
}

}  // namespace

TraceRun trace_kernel(const TraceRequest& request, trn::TraceSink& sink) {
  TraceRun run;
  try {
    auto in = make_interpreter(request.limits);
    auto module = in->load_module(source(request.kernel_path, request.kernel_text));
    if (find_entry_function(*module, request.entry).is_none()) {
      run.outcome = Outcome::CompileError;
      run.diagnostics.push_back(fmt::format("{}: error: {}", request.kernel_path, missing_entry_message(request.entry)));
      return run;
    }
    run_kernel_traced(*in, *module, request.args, sink, request.entry);
    run.outcome = Outcome::Ok;
  } catch (const nki::NkiError& e) {
    run.outcome = outcome_of(e, Side::Kernel);
    run.diagnostics.push_back(nki::render(e.diag));
  } catch (const std::exception& e) {
    // The simulator rejects tiles that can never fit on chip (trn::AllocationError): the
    // kernel's fault, like a compiler's allocation failure.
    run.outcome = Outcome::RuntimeError;
    run.diagnostics.push_back(fmt::format("{}: error: {}", request.kernel_path, e.what()));
  }
  return run;
}

ProfileRun profile_kernel(const TraceRequest& request, const std::string& arch, const std::string& timeline_path,
                          const lower::Options& lowering) {
  return profile_kernel(request, trn::arch_config(arch), timeline_path, lowering);
}

ProfileRun profile_kernel(const TraceRequest& request, const trn::ArchConfig& arch, const std::string& timeline_path,
                          const lower::Options& lowering) {
  trn::SimOptions options;
  options.timeline_path = timeline_path;
  trn::Simulator sim(arch, options);
  lower::Lowering compiled(sim, lowering);
  ProfileRun run;
  static_cast<TraceRun&>(run) = trace_kernel(request, compiled);
  run.lowering = compiled.stats();
  if (run.outcome == Outcome::Ok) {
    run.profile = sim.profile();
    run.profile->arch = arch.name;
  }
  return run;
}

std::vector<nki::Value> reference_kernel_args(const std::string& reference_path, const std::string& reference_text,
                                              const CheckLimits& limits) {
  try {
    auto in = make_interpreter(limits);
    // Only shapes matter here: get_inputs() then costs nothing per element.
    nki::lib::set_numpy_shape_only(*in, true);
    auto module = in->load_module(source(reference_path, reference_text));
    nki::Value get_inputs = find_function(*module, {"get_inputs"});
    nki::Value to_nki = find_function(*module, {"transform_to_nki_inputs"});
    if (get_inputs.is_none() || to_nki.is_none())
      throw std::runtime_error(fmt::format("{}: reference defines no function '{}'", reference_path,
                                           get_inputs.is_none() ? "get_inputs" : "transform_to_nki_inputs"));
    nki::Value np = in->import_module("numpy");
    in->call(in->get_attr(in->get_attr(np, "random"), "seed"), nki::CallArgs{{nki::Value::from_int(0)}, {}});
    nki::Value inputs = in->call(get_inputs, {});
    nki::Value args = in->call(to_nki, nki::CallArgs{{inputs}, {}});
    std::vector<nki::Value> out;
    for (const auto& a : items_of(args)) out.push_back(shape_only(a));
    return out;
  } catch (const nki::NkiError& e) {
    throw std::runtime_error("error in the reference:\n" + nki::render(e.diag));
  }
}

TraceRequest trace_request_from_files(const std::string& reference_path, const std::string& kernel_path,
                                      const CheckLimits& limits) {
  TraceRequest req;
  req.kernel_path = kernel_path;
  req.kernel_text = read_file(kernel_path);
  req.args = reference_kernel_args(reference_path, read_file(reference_path), limits);
  req.limits = limits;
  return req;
}

}  // namespace bench
