// Which function of a kernel file a run calls. One rule for every path (eval, profile, trace,
// bench, optimize, the corpus harness), asked of the loaded module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nki/value.h"

namespace nki::lib {

// Why a kernel file has no function to run (typed: the caller words the remedy).
struct EntryProblem {
  enum class Kind : uint8_t { None, NoSuchFunction, NoKernel, SeveralKernels };
  Kind kind = Kind::None;
  std::string entry;                 // NoSuchFunction: the name asked for
  std::vector<std::string> kernels;  // the file's kernels, host wrappers left out, sorted
  // `choose_with`: how the caller picks a function ("--entry NAME"); empty when only the file
  // can say it (a function named 'kernel').
  std::string message(std::string_view choose_with = {}) const;
};

// The function a kernel file's run calls: `entry` when given; else `kernel` (or
// `optimized_kernel`); else the one kernel of the file: a function decorated as a kernel
// (@nki.jit, @nki.baremetal, ...), counted by object (an alias is the same kernel), leaving out
// host wrappers (host_wrapper_target). Returns none when there is no such function; `problem`
// then says why.
Value find_kernel_entry(const ModuleObj& kernel_module, const std::string& entry, EntryProblem* problem);
Value find_kernel_entry(const ModuleObj& kernel_module, const std::string& entry, std::string* problem = nullptr);

// The kernel a host wrapper launches, or null. A host wrapper is a function made only by harness
// decorators (nki.benchmark, nki.profile, nki.baremetal: JitKernelObj::harness_only) whose body,
// after an optional docstring, is the one statement `return K(...)` or `K(...)` (or `K[grid](...)`)
// where K is a module-level name holding another decorated kernel, and every argument is one
// of the wrapper's parameters or a constant: running it is running K on the same arguments. The
// decision reads the function's syntax tree and the objects its names hold, never names.
const Object* host_wrapper_target(const Value& kernel);

}  // namespace nki::lib
