#pragma once
// The Python builtins a kernel may call on host values (`range`, `len`, `min`, ...): a call of one of
// these names computes a host value, never a tile. One list for the lifter (which binds them as
// functions) and the built-in agent's text rewrites (which must tell them from the module's own
// functions, whose results may be tiles).
#include <string>

namespace loopnest {

bool is_host_builtin(const std::string& name);

}  // namespace loopnest
