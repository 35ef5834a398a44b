#include "eval/kernel_exec.h"

#include <fmt/core.h>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/kernel_runner.h"
#include "nki/lib/modules.h"
#include "trn/arch_config.h"

namespace eval {

void install_modules(nki::Interpreter& in) {
  nki::lib::install_builtin_modules(in);
  // Registering numpy again is harmless (the registry keeps one factory per name) and keeps the
  // evaluation working while install_builtin_modules does not list it.
  in.register_module("numpy", nki::lib::make_numpy_module);
}

KernelRun run_kernel_numerics(nki::Interpreter& in, nki::ModuleObj& kernel_module, const std::vector<nki::Value>& args,
                              trn::TraceSink* sink, const KernelEntry& entry, const std::string& arch) {
  nki::lib::KernelRunOptions options;
  options.nc_version = trn::arch_config(arch).nc_version;
  options.numerics = true;
  options.sink = sink;
  options.entry = entry.function;
  options.inputs_in_place = true;  // every seed builds its inputs afresh; the guard checksums them
  nki::lib::KernelRunResult result = nki::lib::run_kernel(in, kernel_module, args, options);
  KernelRun run;
  std::vector<nki::Value> outputs;
  for (auto& array : result.outputs) outputs.push_back(nki::lib::make_array(std::move(array)));
  run.output_count = outputs.size();
  run.outputs = result.returned_tuple || outputs.size() != 1 ? nki::make_tuple(std::move(outputs)) : outputs[0];
  run.mutated_inputs = std::move(result.mutated_inputs);
  run.narrow_formats = std::move(result.narrow_formats);
  return run;
}

void run_kernel_traced(nki::Interpreter& in, nki::ModuleObj& kernel_module, const std::vector<nki::Value>& args,
                       trn::TraceSink& sink, const KernelEntry& entry, const std::string& arch) {
  nki::lib::KernelRunOptions options;
  options.nc_version = trn::arch_config(arch).nc_version;
  options.numerics = false;
  options.entry = entry.function;
  options.sink = &sink;
  nki::lib::run_kernel(in, kernel_module, args, options);
}

std::string missing_entry(const nki::ModuleObj& kernel_module, const KernelEntry& entry) {
  nki::lib::EntryProblem problem;
  if (!nki::lib::find_kernel_entry(kernel_module, entry.function, &problem).is_none()) return "";
  return problem.message(entry.chosen_with);
}

}  // namespace eval
