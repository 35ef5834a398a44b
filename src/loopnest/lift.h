// Lifting: from a kernel's AST to its loop-nest form (form.h). The lifter evaluates the kernel
// body abstractly: Python integers become quasi-affine expressions of the loop variables
// (constants folded, `x.shape` unpacked, helper variables followed), index grids
// (`nl.arange(128)[:, None]`, `nl.mgrid`), slices and integers become access maps, and every
// NKI call becomes a tile operation. A construct it cannot express is a LiftError carrying a
// compiler-style diagnostic at that construct (file:line:col).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "loopnest/arg_spec.h"
#include "loopnest/form.h"
#include "nki/diagnostics.h"

namespace loopnest {

struct LiftError : std::runtime_error {
  nki::Diagnostic diag;
  explicit LiftError(nki::Diagnostic d);
  std::string render() const;  // "path:line:col: error: cannot lift ...", the line, a caret
};

// The def a run of the module's file calls for `entry` (as `eval --entry`; "" = the file's default):
// nki::lib::choose_kernel, which loads the file and asks find_kernel_entry. The one rule that
// picks the kernel of a file, for running it and for lifting and rewriting it. Throws LiftError
// (the file does not load, no function or several compete, or it is not a top-level def).
const nki::FunctionCode& kernel_definition(const nki::ModuleAst& module, const std::string& entry);

// Lifts the function the run calls (kernel_definition) for arguments `args` (in parameter order),
// on the NeuronCore generation `nc_version` (what nisa.get_nc_version() returns while tracing, as
// the interpreter does for the simulated target: 2 trn1, 3 trn2). Throws LiftError.
// A wrapper whose only tile work is one SPMD launch lifts as the launched function's form (its
// program ids node-less loops, Kernel::grid: adopt_launch) unless `launch` is Launch::Kept: then
// the launch is the wrapper's call, one helper node whose program-id loops open_helpers opens into
// the wrapper's own nest (the form of a move across programs: find_sites' launch=open).
enum class Launch { Adopted, Kept };
Kernel lift(std::shared_ptr<const nki::ModuleAst> module, const std::vector<ArgSpec>& args,
            const std::string& entry = "", int nc_version = 2, Launch launch = Launch::Adopted);
// Parses and lifts; a parse error is reported as a LiftError too.
Kernel lift_source(const std::string& path, const std::string& text, const std::vector<ArgSpec>& args,
                   const std::string& entry = "", int nc_version = 2, Launch launch = Launch::Adopted);

}  // namespace loopnest
