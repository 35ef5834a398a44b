// Builds the LlmSession roles of a run from the agents' configuration file (llm/config.h).
// A role missing from the file falls back to: fixer -> executor, summarizer -> planner.
#pragma once

#include <map>
#include <string>

#include "agents/llm_session.h"
#include "llm/config.h"

namespace agents {

// Throws llm::ConfigError naming the file when planner or executor is not configured, and
// llm::LlmError for an endpoint the client cannot use (unknown api, empty url or model).
std::map<std::string, LlmSession::Role> make_llm_roles(const llm::AgentsConfig& config, uint64_t jitter_seed);

}  // namespace agents
