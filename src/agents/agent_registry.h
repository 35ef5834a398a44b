// Agent kinds other than the LLM agents (e.g. the built-in rewrite agent of src/agents/builtin/)
// register a factory here under the name `--agent NAME` selects. The factory is called once per
// run; `seed` is the run's --seed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace agents {

using AgentFactory = std::function<AgentSet(uint64_t seed)>;

void register_agent_kind(const std::string& name, AgentFactory factory);
const AgentFactory* find_agent_kind(const std::string& name);  // null when not registered
std::vector<std::string> agent_kinds();                        // registered names, sorted

}  // namespace agents
