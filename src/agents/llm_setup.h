// Builds the LlmSession roles of a run from the agents' configuration file (llm/config.h).
// A role missing from the file falls back to: fixer -> executor, summarizer -> planner.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "agents/llm_session.h"
#include "llm/config.h"

namespace agents {

// Told before a client waits to retry a call of `agent` (progress lines); called from the
// agents' threads.
using RetryObserver = std::function<void(const std::string& agent, const llm::RetryNotice& notice)>;

// Throws llm::ConfigError naming the file when planner or executor is not configured, and
// llm::LlmError for an endpoint the client cannot use (unknown api, empty url or model).
// `with_clients` false: the roles only (model names and settings), for --replay.
std::map<std::string, LlmSession::Role> make_llm_roles(const llm::AgentsConfig& config, uint64_t jitter_seed,
                                                       RetryObserver on_retry = {}, bool with_clients = true);

// Throws llm::ConfigError naming the file, the agent and the variable when an API key variable
// that a role's endpoints name is not set: found before a run starts, not at its first call.
void check_api_keys(const llm::AgentsConfig& config);

}  // namespace agents
