// The agents' config file: defaults, per-agent overrides, and errors that name file, line and key.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/config.h"
#include "support/test_paths.h"

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

TEST(AgentsConfig, ProviderFeatureKeys) {
  auto config = llm::parse_agents_config(R"(
defaults:
  url: http://127.0.0.1:8000/v1
  extra: {top_p: 0.95, seed: 42}
agents:
  planner:
    model: gpt-oss-120b
    stream: true
    stream_max_s: 3600
    retry_window_s: 600
    price_in: 0.15
    price_cached_in: 0.075
    extra:
      reasoning_effort: high
      chat_template_kwargs: {enable_thinking: true}
      stop: ["</answer>", "42", 7]
      note: "007"
  executor:
    model: qwen3-coder
    n_samples: true
    weight: 2
    ensemble:
      - {model: deepseek-coder, weight: 1, price_out: 1.1}
    fallbacks:
      - {model: small-coder, url: http://backup:8000, api_key_env: BACKUP_KEY}
)", "c.yaml");
  const auto& planner = config.agent("planner");
  EXPECT_TRUE(planner.stream);
  EXPECT_DOUBLE_EQ(planner.stream_max_s, 3600);
  EXPECT_DOUBLE_EQ(planner.retry_window_s, 600);
  EXPECT_DOUBLE_EQ(planner.usd_per_mtok_cached_in, 0.075);
  EXPECT_LT(planner.usd_per_mtok_cache_write, 0);  // not given: priced as input
  auto extra = nlohmann::json::parse(planner.extra_json);
  EXPECT_EQ(extra["top_p"], 0.95);  // from defaults, merged with the agent's
  EXPECT_EQ(extra["seed"], 42);
  EXPECT_EQ(extra["reasoning_effort"], "high");
  EXPECT_EQ(extra["chat_template_kwargs"]["enable_thinking"], true);
  EXPECT_EQ(extra["stop"], nlohmann::json::parse(R"(["</answer>", "42", 7])"));
  EXPECT_EQ(extra["note"], "007");  // quoted: stays a string
  const auto& executor = config.agent("executor");
  EXPECT_TRUE(executor.n_samples);
  EXPECT_DOUBLE_EQ(executor.weight, 2);
  ASSERT_EQ(executor.ensemble.size(), 1u);
  EXPECT_EQ(executor.ensemble[0].model, "deepseek-coder");
  EXPECT_EQ(executor.ensemble[0].url, "http://127.0.0.1:8000/v1");  // inherited from the agent
  EXPECT_DOUBLE_EQ(executor.ensemble[0].usd_per_mtok_out, 1.1);
  ASSERT_EQ(executor.fallbacks.size(), 1u);
  EXPECT_EQ(executor.fallbacks[0].url, "http://backup:8000");
  EXPECT_TRUE(executor.fallbacks[0].n_samples);  // inherited
  // The JSON form (kept in the run store for --replay) reads back as the same configuration.
  auto again = llm::parse_agents_config(llm::agents_config_json(config), "json");
  EXPECT_EQ(nlohmann::json::parse(llm::agents_config_json(again))["agents"],
            nlohmann::json::parse(llm::agents_config_json(config))["agents"]);
}

TEST(AgentsConfig, ProviderFeatureKeysAreChecked) {
  auto contains = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, api: anthropic, n_samples: true}\n"),
                       "agents.p.n_samples: only the openai api"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, extra: {model: other}}\n"),
                       "agents.p.extra: 'model' is set by accelopt itself"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, extra: [1]}\n"), "agents.p.extra: expected a mapping"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, stream: maybe}\n"),
                       "agents.p.stream: expected true or false"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, fallbacks: [{model: b, fallbacks: []}]}\n"),
                       "agents.p.fallbacks[0].fallbacks: only allowed directly under an agent"));
  EXPECT_TRUE(contains(parse_error("defaults: {fallbacks: [{model: b}]}\nagents:\n  p: {url: http://x, model: m}\n"),
                       "defaults.fallbacks: only allowed directly under an agent"));
  EXPECT_TRUE(contains(parse_error("agents:\n  p: {url: http://x, model: m, ensemble: {model: b}}\n"),
                       "agents.p.ensemble: expected a list of endpoints"));
}

TEST(AgentsConfig, UnsetKeyVariablesAreFoundBeforeAnyCall) {
  auto config = llm::parse_agents_config(R"(
agents:
  planner: {url: http://x, model: m, api_key_env: ACCELOPT_TEST_SET_KEY,
            fallbacks: [{model: b, api_key_env: ACCELOPT_TEST_UNSET_FALLBACK_KEY}]}
)", "c.yaml");
  setenv("ACCELOPT_TEST_SET_KEY", "k", 1);
  unsetenv("ACCELOPT_TEST_UNSET_FALLBACK_KEY");
  EXPECT_EQ(llm::unset_api_key_env(config.agent("planner")), "ACCELOPT_TEST_UNSET_FALLBACK_KEY");
  setenv("ACCELOPT_TEST_UNSET_FALLBACK_KEY", "k2", 1);
  EXPECT_EQ(llm::unset_api_key_env(config.agent("planner")), "");
  unsetenv("ACCELOPT_TEST_UNSET_FALLBACK_KEY");
}

// Every agents config example in docs/config.md (the provider examples included) parses.
TEST(AgentsConfig, TheDocumentedExamplesParse) {
  std::ifstream in(std::string(ACCELOPT_SOURCE_DIR) + "/docs/config.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  int examples = 0;
  for (size_t at = 0; (at = doc.find("```yaml\n", at)) != std::string::npos;) {
    size_t begin = at + 8, end = doc.find("```", begin);
    std::string yaml = doc.substr(begin, end - begin);
    at = end + 3;
    if (yaml.find("agents:") == std::string::npos) continue;  // the fake server's script format
    EXPECT_NO_THROW(llm::parse_agents_config(yaml, "docs/config.md example")) << yaml;
    ++examples;
  }
  EXPECT_GE(examples, 8);
}

}  // namespace
