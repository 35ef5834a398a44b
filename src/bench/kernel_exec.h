// The two ways the harness runs a kernel (through nki::lib::run_kernel): with numerics, its
// outputs back as a numpy value, and trace-only into a sink.
#pragma once

#include <vector>

#include "nki/value.h"
#include "trn/trace.h"

namespace nki {
class Interpreter;
}

namespace bench {

// Installs numpy, math and the nki modules into a fresh interpreter.
void install_modules(nki::Interpreter& in);

// Runs the module's `kernel` (or `optimized_kernel`) on `args` with numerics on; returns the
// outputs as numpy arrays (a tuple when the kernel returned one). Throws nki::NkiError.
nki::Value run_kernel_numerics(nki::Interpreter& in, nki::ModuleObj& kernel_module, const std::vector<nki::Value>& args);

// Runs it without numerics (array arguments may be shape-only), sending the instruction trace
// to `sink`; sink.finish() has been called when this returns. Throws nki::NkiError.
void run_kernel_traced(nki::Interpreter& in, nki::ModuleObj& kernel_module, const std::vector<nki::Value>& args,
                       trn::TraceSink& sink);

}  // namespace bench
