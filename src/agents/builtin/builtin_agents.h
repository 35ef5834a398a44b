// The built-in agent: planner, executor and summarizer without a model. The planner reads the
// candidate's profile, maps its symptoms to transformations (transform.h) weighted by how they
// fared in the optimization memory, and draws plans without repeating a site already tried on
// the same kernel; the executor applies a plan on the AST and prints the kernel; the summarizer
// records transformation, parameters, symptoms, speedup and the key code change. Deterministic
// for a given seed (docs/builtin_agent.md).
#pragma once

#include <cstdint>

#include "agents/agent.h"

namespace agents::builtin {

// Planner, executor, summarizer and a fixer that does not repair: it records the rejected rewrite
// so the planner down-weights it on later kernels (failure_log.h; needs --fixer-attempts >= 1).
AgentSet make_builtin_agents(uint64_t seed);

// A planner that ignores memory (ablation: search without memory).
AgentSet make_builtin_agents_without_memory(uint64_t seed);

}  // namespace agents::builtin
