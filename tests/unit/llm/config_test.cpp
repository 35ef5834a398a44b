// The agents' config file: defaults, per-agent overrides, and errors that name file, line and key.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/config.h"

namespace {

const char* kFullConfig = R"(
defaults:
  api: openai
  url: http://127.0.0.1:8000
  api_key_env: OPENAI_API_KEY
  timeout_s: 120
  max_retries: 5
agents:
  planner:
    model: big-model
    temperature: 1.0
    max_tokens: 8192
    price_in: 2.5
    price_out: 10
  executor:
    api: anthropic
    url: https://llm.internal/
    api_key_env: ANTHROPIC_API_KEY
    model: coder
    temperature: 0.2
    max_concurrency: 8
  summarizer: {model: small-model}
)";

std::string parse_error(const std::string& yaml) {
  try {
    llm::parse_agents_config(yaml, "config.yaml");
  } catch (const llm::ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(AgentsConfig, AgentsInheritDefaultsAndOverrideThem) {
  auto config = llm::parse_agents_config(kFullConfig, "config.yaml");
  ASSERT_EQ(config.agents.size(), 3u);
  const auto& planner = config.agent("planner");
  EXPECT_EQ(planner.api, "openai");
  EXPECT_EQ(planner.url, "http://127.0.0.1:8000");
  EXPECT_EQ(planner.model, "big-model");
  EXPECT_EQ(planner.max_tokens, 8192);
  EXPECT_DOUBLE_EQ(planner.usd_per_mtok_in, 2.5);
  EXPECT_DOUBLE_EQ(planner.usd_per_mtok_out, 10);
  EXPECT_DOUBLE_EQ(planner.timeout_s, 120);
  EXPECT_EQ(planner.max_retries, 5);
  const auto& executor = config.agent("executor");
  EXPECT_EQ(executor.api, "anthropic");
  EXPECT_EQ(executor.api_key_env, "ANTHROPIC_API_KEY");
  EXPECT_EQ(executor.max_concurrency, 8);
  EXPECT_DOUBLE_EQ(executor.temperature, 0.2);
  EXPECT_EQ(config.agent("summarizer").max_tokens, 4096);  // built-in default
  EXPECT_FALSE(config.has("fixer"));
  EXPECT_THROW(config.agent("fixer"), llm::ConfigError);
}

TEST(AgentsConfig, ErrorsNameTheFileTheLineAndTheKey) {
  EXPECT_EQ(parse_error("agents:\n  planner:\n    url: http://x\n    model: m\n    temperature: hot\n"),
            "config.yaml:5:18: agents.planner.temperature: expected a number (got 'hot')");
  EXPECT_EQ(parse_error("agents:\n  planner: {url: http://x, model: m, temprature: 1}\n"),
            "config.yaml:2:38: agents.planner.temprature: unknown key");
  EXPECT_EQ(parse_error("agents:\n  planner: {url: http://x, model: m, max_tokens: 1.5}\n"),
            "config.yaml:2:50: agents.planner.max_tokens: expected an integer (got '1.5')");
}

TEST(AgentsConfig, RejectsBadValuesAndMissingFields) {
  auto contains = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(contains(parse_error("agents:\n  planner: {url: http://x}\n"), "agents.planner.model: missing"));
  EXPECT_TRUE(contains(parse_error("agents:\n  planner: {model: m}\n"), "agents.planner.url: missing"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: ftp://x, model: m}\n"), "agents.p.url: expected an http"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, api: grpc}\n"), "agents.p.api:"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, price_in: -1}\n"),
                       "agents.p.price_in: must be at least 0"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, timeout_s: 0}\n"),
                       "agents.p.timeout_s: must be greater than 0"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, max_concurrency: 0}\n"),
                       "agents.p.max_concurrency: must be at least 1"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, temperature: }\n"),
                       "expected a number (got nothing)"));
  EXPECT_EQ(parse_error("defaults: {model: m}\n"), "config.yaml: agents: missing");
  EXPECT_TRUE(contains(parse_error("agents: [planner]\n"), "agents: expected a non-empty mapping"));
  EXPECT_TRUE(contains(parse_error("agents: {p: {model: [unclosed\n"), "config.yaml:"));
  EXPECT_TRUE(contains(parse_error("just text"), "expected a mapping"));
}

TEST(AgentsConfig, LoadsFromAFileAndReportsAMissingOne) {
  auto path = std::filesystem::temp_directory_path() / ("accelopt_config_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << kFullConfig;
  auto config = llm::load_agents_config(path.string());
  EXPECT_EQ(config.source, path.string());
  EXPECT_EQ(config.agent("planner").model, "big-model");
  std::filesystem::remove(path);
  try {
    llm::load_agents_config(path.string());
    FAIL() << "expected ConfigError";
  } catch (const llm::ConfigError& error) {
    EXPECT_EQ(std::string(error.what()), path.string() + ": cannot read the file");
  }
}

TEST(AgentsConfig, JsonFormNamesKeyVariablesButHoldsNoKeys) {
  setenv("OPENAI_API_KEY", "sk-do-not-store", 1);
  auto json = nlohmann::json::parse(llm::agents_config_json(llm::parse_agents_config(kFullConfig, "c.yaml")));
  EXPECT_EQ(json["agents"]["planner"]["api_key_env"], "OPENAI_API_KEY");
  EXPECT_EQ(json["agents"]["executor"]["model"], "coder");
  EXPECT_EQ(json.dump().find("sk-do-not-store"), std::string::npos);
}

}  // namespace
