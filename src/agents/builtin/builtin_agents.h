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

// Planner, executor and summarizer (no fixer: a rewrite the checker rejects is simply dropped).
AgentSet make_builtin_agents(uint64_t seed);

// A planner that ignores memory (ablation: search without memory).
AgentSet make_builtin_agents_without_memory(uint64_t seed);

}  // namespace agents::builtin
