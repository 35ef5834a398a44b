// Registers the built-in rewrite agent as `--agent builtin`. This file is compiled straight into
// the executable: a static registrar inside the accelopt_agents library would be dropped by the
// linker, since nothing references it.
#include "agents/agent_registry.h"
#include "agents/builtin/builtin_agents.h"

namespace {

const bool registered = [] {
  agents::register_agent_kind("builtin", [](uint64_t seed) { return agents::builtin::make_builtin_agents(seed); });
  return true;
}();

}  // namespace
