// The two ways the evaluation runs a kernel (through nki::lib::run_kernel): with numerics, its
// outputs back as numpy values (optionally tracing the same run into a sink), and trace-only.
#pragma once

#include <string>
#include <vector>

#include "nki/lib/kernel_context.h"
#include "nki/value.h"
#include "trn/trace.h"

namespace nki {
class Interpreter;
}

namespace eval {

// Which function of the kernel file runs; the default is the NKIBench protocol: `kernel` (or
// `optimized_kernel`). A published file holds several versions under their authors' names.
struct KernelEntry {
  std::string function;  // "" = kernel / optimized_kernel, else the file's one kernel
  // How the user names the function ("--entry NAME" on the command line), for the error when
  // several kernels compete; empty: the file itself must name one 'kernel'.
  std::string chosen_with;
};

// Installs numpy, math and the nki modules into a fresh interpreter.
void install_modules(nki::Interpreter& in);

struct KernelRun {
  nki::Value outputs;                   // numpy arrays (a tuple when the kernel returned one)
  size_t output_count = 0;
  std::vector<size_t> mutated_inputs;   // argument positions whose contents changed
  std::vector<nki::lib::NarrowFormatUse> narrow_formats;
};

// Runs the module's kernel function (missing_entry's rule) on `args` with numerics on. When `sink` is
// given, the same run's instruction trace goes to it (sink.finish() has been called on return):
// the profile is of the run that was checked, so a kernel cannot behave differently when traced.
// The array arguments are the kernel's HBM inputs in place (no private copies): the caller must
// not read them afterwards (mutated_inputs says whether the kernel wrote one). Throws nki::NkiError.
KernelRun run_kernel_numerics(nki::Interpreter& in, nki::ModuleObj& kernel_module, const std::vector<nki::Value>& args,
                              trn::TraceSink* sink = nullptr, const KernelEntry& entry = {},
                              const std::string& arch = "trn1");

// Runs it without numerics (array arguments may be shape-only), sending the instruction trace
// to `sink`; sink.finish() has been called when this returns. Throws nki::NkiError.
void run_kernel_traced(nki::Interpreter& in, nki::ModuleObj& kernel_module, const std::vector<nki::Value>& args,
                       trn::TraceSink& sink, const KernelEntry& entry = {}, const std::string& arch = "trn1");

// Why the kernel module has no function to run for `entry` (nki::lib::find_kernel_entry's
// rule: the named entry, else `kernel` / `optimized_kernel`, else the file's one @nki.jit
// function), or "" when it has one.
std::string missing_entry(const nki::ModuleObj& kernel_module, const KernelEntry& entry);

}  // namespace eval
