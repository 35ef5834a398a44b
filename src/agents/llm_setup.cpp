#include "agents/llm_setup.h"

namespace agents {

namespace {

const llm::EndpointConfig& endpoint_for(const llm::AgentsConfig& config, const std::string& role) {
  if (config.has(role)) return config.agent(role);
  if (role == "fixer" && config.has("executor")) return config.agent("executor");
  if (role == "summarizer" && config.has("planner")) return config.agent("planner");
  return config.agent(role);  // throws ConfigError naming the file and the role
}

}  // namespace

std::map<std::string, LlmSession::Role> make_llm_roles(const llm::AgentsConfig& config, uint64_t jitter_seed) {
  std::map<std::string, LlmSession::Role> roles;
  for (const char* role : {"planner", "executor", "summarizer", "fixer"}) {
    llm::EndpointConfig endpoint = endpoint_for(config, role);
    if (jitter_seed != 0) endpoint.jitter_seed = jitter_seed;
    roles[role] = {std::shared_ptr<llm::ChatClient>(llm::make_client(endpoint)), endpoint};
  }
  return roles;
}

}  // namespace agents
