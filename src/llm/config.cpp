#include "llm/config.h"

#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace llm {
namespace {

// Reads YAML nodes into typed fields; every error carries file:line:col and the key path.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& message) const {
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0) throw ConfigError(fmt::format("{}: {}: {}", source_, key, message));
    throw ConfigError(fmt::format("{}:{}:{}: {}: {}", source_, mark.line + 1, mark.column + 1, key, message));
  }

  std::string scalar_text(const YAML::Node& node) const {
    if (node.IsScalar()) return "'" + node.Scalar() + "'";
    if (node.IsMap()) return "a mapping";
    return node.IsSequence() ? "a list" : "nothing";
  }

  double number(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) {
      try {
        size_t used = 0;
        double value = std::stod(node.Scalar(), &used);
        if (used == node.Scalar().size()) return value;
      } catch (const std::exception&) {
      }
    }
    fail(node, key, fmt::format("expected a number (got {})", scalar_text(node)));
  }

  int64_t integer(const YAML::Node& node, const std::string& key) const {
    double value = number(node, key);
    if (value != static_cast<double>(static_cast<int64_t>(value)))
      fail(node, key, fmt::format("expected an integer (got {})", scalar_text(node)));
    return static_cast<int64_t>(value);
  }

  std::string text(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, key, fmt::format("expected a string (got {})", scalar_text(node)));
    return node.Scalar();
  }

  double at_least(double value, double minimum, const YAML::Node& node, const std::string& key) const {
    if (value < minimum) fail(node, key, fmt::format("must be at least {} (got {})", minimum, value));
    return value;
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

using Setter = std::function<void(const Reader&, const YAML::Node&, const std::string&, EndpointConfig&)>;

// One row per key: the table is the format (docs/config.md lists the same keys).
const std::map<std::string, Setter>& endpoint_keys() {
  static const std::map<std::string, Setter> keys = {
      {"api", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.api = r.text(n, k);
         if (c.api != "openai" && c.api != "anthropic")
           r.fail(n, k, fmt::format("expected 'openai' or 'anthropic' (got '{}')", c.api));
       }},
      {"url", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.url = r.text(n, k);
         if (c.url.rfind("http://", 0) != 0 && c.url.rfind("https://", 0) != 0)
           r.fail(n, k, fmt::format("expected an http:// or https:// URL (got '{}')", c.url));
       }},
      {"model", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.model = r.text(n, k);
       }},
      {"api_key_env", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.api_key_env = r.text(n, k);
       }},
      {"temperature", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.temperature = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"max_tokens", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.max_tokens = static_cast<int>(r.at_least(static_cast<double>(r.integer(n, k)), 1, n, k));
       }},
      {"price_in", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.usd_per_mtok_in = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"price_out", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.usd_per_mtok_out = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"max_concurrency", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.max_concurrency = static_cast<int>(r.at_least(static_cast<double>(r.integer(n, k)), 1, n, k));
       }},
      {"timeout_s", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.timeout_s = r.number(n, k);
         if (!(c.timeout_s > 0)) r.fail(n, k, "must be greater than 0");
       }},
      {"max_retries", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.max_retries = static_cast<int>(r.at_least(static_cast<double>(r.integer(n, k)), 0, n, k));
       }},
      {"backoff_initial_s", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.backoff_initial_s = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"backoff_max_s", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.backoff_max_s = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"jitter_seed", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.jitter_seed = static_cast<uint64_t>(r.at_least(static_cast<double>(r.integer(n, k)), 0, n, k));
       }},
  };
  return keys;
}

void apply_endpoint_keys(const Reader& reader, const YAML::Node& node, const std::string& path,
                         EndpointConfig& config) {
  if (!node.IsMap()) reader.fail(node, path, fmt::format("expected a mapping (got {})", reader.scalar_text(node)));
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    auto setter = endpoint_keys().find(key);
    if (setter == endpoint_keys().end()) reader.fail(entry.first, path + "." + key, "unknown key");
    setter->second(reader, entry.second, path + "." + key, config);
  }
}

void require_complete(const Reader& reader, const YAML::Node& node, const std::string& path,
                      const EndpointConfig& config) {
  if (config.url.empty()) reader.fail(node, path + ".url", "missing (set it here or under 'defaults')");
  if (config.model.empty()) reader.fail(node, path + ".model", "missing (set it here or under 'defaults')");
}

YAML::Node load_yaml(const std::string& text, const std::string& source) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", source, error.mark.line + 1, error.mark.column + 1, error.msg));
  }
}

}  // namespace

const EndpointConfig& AgentsConfig::agent(const std::string& name) const {
  auto found = agents.find(name);
  if (found == agents.end())
    throw ConfigError(fmt::format("{}: agents.{}: missing (this agent has no endpoint)", source, name));
  return found->second;
}

AgentsConfig parse_agents_config(const std::string& yaml_text, const std::string& source) {
  Reader reader(source);
  YAML::Node root = load_yaml(yaml_text, source);
  if (!root.IsMap()) throw ConfigError(fmt::format("{}: expected a mapping with an 'agents' key", source));
  EndpointConfig defaults;
  if (root["defaults"]) apply_endpoint_keys(reader, root["defaults"], "defaults", defaults);
  YAML::Node agents = root["agents"];
  if (!agents) throw ConfigError(fmt::format("{}: agents: missing", source));
  if (!agents.IsMap() || agents.size() == 0) reader.fail(agents, "agents", "expected a non-empty mapping");
  AgentsConfig config;
  config.source = source;
  for (const auto& entry : agents) {
    const std::string name = entry.first.Scalar();
    EndpointConfig endpoint = defaults;
    apply_endpoint_keys(reader, entry.second, "agents." + name, endpoint);
    require_complete(reader, entry.first, "agents." + name, endpoint);
    config.agents[name] = endpoint;
  }
  return config;
}

AgentsConfig load_agents_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot read the file", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_agents_config(text.str(), path);
}

std::string agents_config_json(const AgentsConfig& config) {
  nlohmann::json agents = nlohmann::json::object();
  for (const auto& [name, c] : config.agents) {
    agents[name] = {{"api", c.api},           {"url", c.url},
                    {"model", c.model},       {"api_key_env", c.api_key_env},
                    {"temperature", c.temperature}, {"max_tokens", c.max_tokens},
                    {"price_in", c.usd_per_mtok_in}, {"price_out", c.usd_per_mtok_out},
                    {"max_concurrency", c.max_concurrency}, {"timeout_s", c.timeout_s},
                    {"max_retries", c.max_retries}, {"backoff_initial_s", c.backoff_initial_s},
                    {"backoff_max_s", c.backoff_max_s}, {"jitter_seed", c.jitter_seed}};
  }
  return nlohmann::json{{"source", config.source}, {"agents", agents}}.dump();
}

}  // namespace llm
