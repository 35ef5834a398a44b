// Running an NKI kernel on the interpreter: the entry point used by the benchmark harness, the
// evaluator and `accelopt trace`. See tests/unit/nkilib/kernel_runner_test.cpp for examples.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nki/lib/kernel_context.h"
#include "nki/lib/kernel_entry.h"
#include "nki/value.h"
#include "tensor/array.h"
#include "trn/trace.h"

namespace nki {
class Interpreter;
}

namespace nki::lib {

struct KernelRunOptions {
  bool numerics = true;            // false: trace-only mode (shape-only arrays, no arithmetic)
  trn::TraceSink* sink = nullptr;  // receives every record in program order; finish() is called at the end
  // What nisa.get_nc_version() returns: the simulated NeuronCore's generation (2: trn1, 3: trn2;
  // trn::ArchConfig::nc_version), so a kernel choosing its code by target takes the branch the
  // simulated target would.
  int nc_version = 2;
  // The function to run; empty: `kernel`, else `optimized_kernel` (the NKIBench protocol).
  std::string entry;
  // The caller never reads the input arrays again (the evaluation builds them afresh for every
  // seed): the kernel's HBM inputs are the arrays themselves (a contiguous copy only when they are
  // strided views), not private copies. A kernel that writes an input still shows in
  // mutated_inputs, and the caller's array then holds what it wrote.
  bool inputs_in_place = false;
};

struct KernelRunResult {
  std::vector<tensor::Array> outputs;  // shape-only arrays in trace-only mode
  bool returned_tuple = false;
  // A kernel that returns nothing (written for nki.baremetal) has as outputs the arguments it
  // wrote; their indices in the argument list. A kernel that returns its outputs lists here the
  // arguments it updated in place and returned (nt.mutable_tensor).
  std::vector<size_t> written_arguments;
  uint64_t instructions = 0;           // instruction records (also counted when no sink is given)
  // With numerics: the positions of the array inputs whose contents the kernel changed (the
  // inputs are checksummed before and after the call).
  std::vector<size_t> mutated_inputs;
  std::vector<NarrowFormatUse> narrow_formats;  // see KernelContext
};

// Finds the kernel function (find_kernel_entry) in the loaded kernel module, turns
// ndarray inputs into HBM tensors (Python scalars pass through), runs it, returns the returned HBM
// tensors as arrays (for a kernel that returns nothing, the arguments it wrote). Returning an
// input tensor is a Rule error: outputs are tensors the kernel creates.
// Errors are NkiError (Name when no kernel function exists, Rule/Type/Value/Index/Limit from the
// kernel, located by the interpreter).
KernelRunResult run_kernel(Interpreter& in, ModuleObj& kernel_module, const std::vector<Value>& inputs,
                           const KernelRunOptions& options);

// A kernel called from host code (`kernel(a, b)`, `nki.simulate_kernel(kernel, a, b)`,
// `nki.baremetal(kernel)(a, b)` in a script, or a harness-run wrapper launching a kernel on an
// array it allocated with numpy): true when an argument is a numpy array.
bool is_host_call(const CallArgs& args);
// Runs `body` as one kernel run with numerics: numpy arguments become HBM input tensors, the
// returned HBM tensors come back as numpy arrays (a tuple stays a tuple), and the arguments a
// kernel that returns nothing wrote are copied back into the caller's arrays, as nki.baremetal
// does on the device. `kernel` (the function `body` runs) says which parameters are annotated
// nt.mutable_tensor: those arguments, written and returned, are outputs.
Value call_from_host(Interpreter& in, CallArgs& args, const std::function<Value(CallArgs&)>& body,
                     const Value& kernel = Value());

}  // namespace nki::lib
