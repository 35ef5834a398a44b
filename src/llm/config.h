// The agents' configuration file (YAML): one endpoint per agent, plus defaults shared by all.
// The format, with a full example, is in docs/config.md; tests in tests/unit/llm/config_test.cpp.
//
//   defaults: {api: openai, url: http://127.0.0.1:8000, api_key_env: OPENAI_API_KEY}
//   agents:
//     planner:  {model: m1, temperature: 1.0, max_tokens: 4096, price_in: 2.5, price_out: 10}
//     executor: {model: m2, api: anthropic, url: ..., api_key_env: ANTHROPIC_API_KEY}
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "llm/client.h"

namespace llm {

// A malformed file: the message names the file, line and key, e.g.
// "config.yaml:7:18: agents.planner.temperature: expected a number (got 'hot')".
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct AgentsConfig {
  std::string source;  // file name, for messages
  std::map<std::string, EndpointConfig> agents;

  bool has(const std::string& agent) const { return agents.count(agent) != 0; }
  // Throws ConfigError naming the file if the agent is not configured.
  const EndpointConfig& agent(const std::string& agent) const;
};

AgentsConfig load_agents_config(const std::string& path);
AgentsConfig parse_agents_config(const std::string& yaml_text, const std::string& source);

// The first API key variable named by `config` (its ensemble members and fallbacks included)
// that is unset or empty in the environment; "" when every one is set.
std::string unset_api_key_env(const EndpointConfig& config);

// The configuration as JSON (for the run store). It holds key variable names, never keys.
std::string agents_config_json(const AgentsConfig& config);

}  // namespace llm
