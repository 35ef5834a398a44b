// The outcome of checking or tracing a kernel, and how interpreter errors map onto it.
#pragma once

#include "nki/diagnostics.h"

namespace bench {

enum class Outcome { Ok, CompileError, RuntimeError, Incorrect, Timeout, LowerPrecision, InternalError };

// "ok", "compile_error", ... (the spelling of eval::Status).
const char* to_string(Outcome o);

// Which file an error came from: a broken reference is not the kernel's fault.
enum class Side { Reference, Kernel };

// Time/step limits -> Timeout. In the reference -> InternalError. In the kernel, by kind
// (diagnostics.h): Syntax, Unsupported, Import, Name, Sandbox -> CompileError; Internal ->
// InternalError; anything else (shapes, hardware rules, memory limit) -> RuntimeError.
Outcome outcome_of(const nki::NkiError& e, Side side);

}  // namespace bench
