#include "agents/llm_setup.h"

#include <fmt/core.h>

namespace agents {

namespace {

constexpr const char* kRoles[] = {"planner", "executor", "summarizer", "fixer"};

// The configured agent that serves `role`.
std::string agent_for(const llm::AgentsConfig& config, const std::string& role) {
  if (config.has(role)) return role;
  if (role == "fixer" && config.has("executor")) return "executor";
  if (role == "summarizer" && config.has("planner")) return "planner";
  config.agent(role);  // throws ConfigError naming the file and the role
  return role;
}

}  // namespace

std::map<std::string, LlmSession::Role> make_llm_roles(const llm::AgentsConfig& config, uint64_t jitter_seed,
                                                       RetryObserver on_retry, bool with_clients) {
  std::map<std::string, LlmSession::Role> roles;
  for (const char* role : kRoles) {
    llm::EndpointConfig endpoint = config.agent(agent_for(config, role));
    if (jitter_seed != 0) endpoint.jitter_seed = jitter_seed;
    if (on_retry)
      endpoint.on_retry = [on_retry, name = std::string(role)](const llm::RetryNotice& notice) { on_retry(name, notice); };
    std::shared_ptr<llm::ChatClient> client;
    if (with_clients) client = llm::make_client(endpoint);
    roles[role] = {client, endpoint};
  }
  return roles;
}

void check_api_keys(const llm::AgentsConfig& config) {
  for (const char* role : kRoles) {
    std::string agent = agent_for(config, role);
    std::string unset = llm::unset_api_key_env(config.agent(agent));
    if (unset.empty()) continue;
    throw llm::ConfigError(fmt::format(
        "{}: agents.{}: the environment variable {} (its API key, api_key_env) is not set; export it or "
        "name the right variable",
        config.source, agent, unset));
  }
}

}  // namespace agents
