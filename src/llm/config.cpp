#include "llm/config.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "llm/wire_format.h"

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

  bool boolean(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) {
      const std::string& v = node.Scalar();
      if (v == "true" || v == "yes" || v == "on") return true;
      if (v == "false" || v == "no" || v == "off") return false;
    }
    fail(node, key, fmt::format("expected true or false (got {})", scalar_text(node)));
  }

  // YAML as JSON, for request keys passed as they are: plain scalars become numbers, booleans or
  // null when they read as such, quoted ones stay strings.
  nlohmann::json json_value(const YAML::Node& node) const {
    if (node.IsMap()) {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) out[entry.first.Scalar()] = json_value(entry.second);
      return out;
    }
    if (node.IsSequence()) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(json_value(item));
      return out;
    }
    if (!node.IsScalar() || node.IsNull()) return nullptr;
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") return text;  // quoted
    if (text == "true" || text == "false") return text == "true";
    nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
    if (!number.is_discarded() && number.is_number()) return number;
    return text;
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
      {"retry_window_s", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.retry_window_s = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"price_cached_in", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.usd_per_mtok_cached_in = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"price_cache_write", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.usd_per_mtok_cache_write = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"stream", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.stream = r.boolean(n, k);
       }},
      {"stream_max_s", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.stream_max_s = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"n_samples", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.n_samples = r.boolean(n, k);
       }},
      {"weight", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         c.weight = r.at_least(r.number(n, k), 0, n, k);
       }},
      {"extra", [](const Reader& r, const YAML::Node& n, const std::string& k, EndpointConfig& c) {
         if (!n.IsMap()) r.fail(n, k, fmt::format("expected a mapping of request keys (got {})", r.scalar_text(n)));
         // A later `extra` (an agent's) adds to and overrides an earlier one (the defaults').
         nlohmann::json merged = c.extra_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(c.extra_json);
         const nlohmann::json given = r.json_value(n);
         for (const auto& [key, value] : given.items()) merged[key] = value;
         c.extra_json = merged.dump();
         try {
           check_extra(c.extra_json);
         } catch (const LlmError& error) {
           r.fail(n, k, std::string(error.what()).substr(std::string("extra: ").size()));
         }
       }},
  };
  return keys;
}

void require_complete(const Reader& reader, const YAML::Node& node, const std::string& path,
                      const EndpointConfig& config) {
  if (config.url.empty()) reader.fail(node, path + ".url", "missing (set it here or under 'defaults')");
  if (config.model.empty()) reader.fail(node, path + ".model", "missing (set it here or under 'defaults')");
  if (config.n_samples && config.api != "openai")
    reader.fail(node, path + ".n_samples", "only the openai api takes n samples per request");
}

bool is_route_key(const std::string& key) { return key == "fallbacks" || key == "ensemble"; }

void apply_endpoint_keys(const Reader& reader, const YAML::Node& node, const std::string& path,
                         EndpointConfig& config, bool routes_allowed = true);

// `fallbacks` / `ensemble`: lists of endpoints, each starting from the agent's settings.
std::vector<EndpointConfig> route_list(const Reader& reader, const YAML::Node& node, const std::string& path,
                                       const EndpointConfig& agent) {
  if (!node.IsSequence() || node.size() == 0)
    reader.fail(node, path, fmt::format("expected a list of endpoints (got {})", reader.scalar_text(node)));
  std::vector<EndpointConfig> out;
  for (size_t idx = 0; idx < node.size(); ++idx) {
    std::string where = fmt::format("{}[{}]", path, idx);
    EndpointConfig member = agent;
    member.fallbacks.clear();
    member.ensemble.clear();
    member.weight = 1;
    apply_endpoint_keys(reader, node[idx], where, member, /*routes_allowed=*/false);
    require_complete(reader, node[idx], where, member);
    out.push_back(member);
  }
  return out;
}

// Plain keys first, then the routes (their members start from the finished agent settings,
// whatever the order of the keys in the file).
void apply_endpoint_keys(const Reader& reader, const YAML::Node& node, const std::string& path,
                         EndpointConfig& config, bool routes_allowed) {
  if (!node.IsMap()) reader.fail(node, path, fmt::format("expected a mapping (got {})", reader.scalar_text(node)));
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    if (is_route_key(key)) {
      if (!routes_allowed) reader.fail(entry.first, path + "." + key, "only allowed directly under an agent");
      continue;
    }
    auto setter = endpoint_keys().find(key);
    if (setter == endpoint_keys().end()) reader.fail(entry.first, path + "." + key, "unknown key");
    setter->second(reader, entry.second, path + "." + key, config);
  }
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    if (key == "fallbacks") config.fallbacks = route_list(reader, entry.second, path + "." + key, config);
    if (key == "ensemble") config.ensemble = route_list(reader, entry.second, path + "." + key, config);
  }
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
  if (root["defaults"]) apply_endpoint_keys(reader, root["defaults"], "defaults", defaults, /*routes_allowed=*/false);
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

std::string unset_api_key_env(const EndpointConfig& config) {
  auto unset = [](const EndpointConfig& c) {
    if (c.api_key_env.empty()) return false;
    const char* value = std::getenv(c.api_key_env.c_str());
    return !value || !*value;
  };
  if (unset(config)) return config.api_key_env;
  for (const auto* list : {&config.ensemble, &config.fallbacks})
    for (const auto& member : *list)
      if (unset(member)) return member.api_key_env;
  return "";
}

AgentsConfig load_agents_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot read the file", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_agents_config(text.str(), path);
}

namespace {

nlohmann::json endpoint_json(const EndpointConfig& c) {
  nlohmann::json j = {{"api", c.api},           {"url", c.url},
                      {"model", c.model},       {"api_key_env", c.api_key_env},
                      {"temperature", c.temperature}, {"max_tokens", c.max_tokens},
                      {"price_in", c.usd_per_mtok_in}, {"price_out", c.usd_per_mtok_out},
                      {"max_concurrency", c.max_concurrency}, {"timeout_s", c.timeout_s},
                      {"max_retries", c.max_retries}, {"backoff_initial_s", c.backoff_initial_s},
                      {"backoff_max_s", c.backoff_max_s}, {"jitter_seed", c.jitter_seed},
                      {"retry_window_s", c.retry_window_s}, {"stream", c.stream}, {"n_samples", c.n_samples},
                      {"weight", c.weight}};
  if (c.usd_per_mtok_cached_in >= 0) j["price_cached_in"] = c.usd_per_mtok_cached_in;
  if (c.usd_per_mtok_cache_write >= 0) j["price_cache_write"] = c.usd_per_mtok_cache_write;
  if (c.stream_max_s > 0) j["stream_max_s"] = c.stream_max_s;
  if (!c.extra_json.empty()) j["extra"] = nlohmann::json::parse(c.extra_json);
  for (const auto& f : c.fallbacks) j["fallbacks"].push_back(endpoint_json(f));
  for (const auto& m : c.ensemble) j["ensemble"].push_back(endpoint_json(m));
  return j;
}

}  // namespace

std::string agents_config_json(const AgentsConfig& config) {
  nlohmann::json agents = nlohmann::json::object();
  for (const auto& [name, c] : config.agents) agents[name] = endpoint_json(c);
  return nlohmann::json{{"source", config.source}, {"agents", agents}}.dump();
}

}  // namespace llm
