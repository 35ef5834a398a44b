// The decorated def a forwarding user decorator's wrapper runs (forwarding_decorator.cpp).
#pragma once

#include <string>

#include "nki/ast.h"

namespace loopnest {

// The module-level def bound as `bound_as` when `wrapper` (the def the run calls, nested in a
// module function) is the wrapper a plain decorator of that def made and it only checks its
// arguments before `return fn(*args, **kwargs)`; null otherwise.
const nki::FunctionCode* forwarded_definition(const nki::ModuleAst& module, const nki::FunctionCode& wrapper,
                                              const std::string& bound_as);

}  // namespace loopnest
