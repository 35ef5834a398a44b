#include "llm/wire_format.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "llm/wire_json.h"

namespace llm {
namespace {

using nlohmann::json;

double effective_temperature(const EndpointConfig& config, const ChatRequest& request) {
  return request.temperature >= 0 ? request.temperature : config.temperature;
}

int effective_max_tokens(const EndpointConfig& config, const ChatRequest& request) {
  return request.max_tokens > 0 ? request.max_tokens : config.max_tokens;
}

// Keys the client sets itself; `extra` may not replace them.
bool is_owned_key(const std::string& key) {
  return key == "model" || key == "messages" || key == "system" || key == "stream" || key == "n";
}

json parse_extra(const std::string& extra_json) {
  if (extra_json.empty()) return json::object();
  json extra = json::parse(extra_json, nullptr, /*allow_exceptions=*/false);
  if (extra.is_discarded() || !extra.is_object())
    throw LlmError(LlmError::Kind::BadRequest, "extra: expected a mapping of request keys");
  return extra;
}

// Sampling keys, then `extra` (which wins: e.g. a provider's own name for a setting), then the
// streaming and sampling switches.
void finish_body(json& body, const EndpointConfig& config, const ChatRequest& request, Api api) {
  body["temperature"] = effective_temperature(config, request);
  body["max_tokens"] = effective_max_tokens(config, request);
  const json extra = parse_extra(config.extra_json);  // named: items() of a temporary dangles
  for (const auto& [key, value] : extra.items()) {
    if (is_owned_key(key)) continue;
    if (value.is_null()) body.erase(key);  // e.g. max_tokens: null for a server that rejects it
    else body[key] = value;
  }
  if (config.stream) {
    body["stream"] = true;
    // OpenAI-compatible servers send the usage in the last chunk only when asked.
    if (api == Api::OpenAi && !body.contains("stream_options")) body["stream_options"] = {{"include_usage", true}};
  }
  if (request.n > 1) body["n"] = request.n;
}

std::string openai_body(const EndpointConfig& config, const ChatRequest& request) {
  json messages = json::array();
  for (const auto& message : request.messages)
    messages.push_back({{"role", message.role}, {"content", message.content}});
  json body = {{"model", config.model}, {"messages", messages}};
  finish_body(body, config, request, Api::OpenAi);
  return body.dump();
}

// The content of an anthropic message: plain text, or two text blocks when the message has a
// cacheable prefix (the first block carries the cache breakpoint).
json anthropic_content(const Message& message) {
  if (message.cache_prefix == 0 || message.cache_prefix >= message.content.size()) return message.content;
  return json::array({{{"type", "text"},
                       {"text", message.content.substr(0, message.cache_prefix)},
                       {"cache_control", {{"type", "ephemeral"}}}},
                      {{"type", "text"}, {"text", message.content.substr(message.cache_prefix)}}});
}

// Anthropic takes the system prompt as a top-level field, not as a message.
std::string anthropic_body(const EndpointConfig& config, const ChatRequest& request) {
  std::string system;
  json messages = json::array();
  for (const auto& message : request.messages) {
    if (message.role == "system") {
      system += system.empty() ? message.content : "\n\n" + message.content;
      continue;
    }
    messages.push_back({{"role", message.role}, {"content", anthropic_content(message)}});
  }
  json body = {{"model", config.model}, {"messages", messages}};
  if (!system.empty()) body["system"] = system;
  finish_body(body, config, request, Api::Anthropic);
  return body.dump();
}

Reply parse_openai(const json& doc, const std::string& body) {
  if (!doc.contains("choices") || !doc["choices"].is_array() || doc["choices"].empty())
    bad_response("no choices", body);
  Reply reply;
  for (const json& choice : doc["choices"]) {
    if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
      bad_response("a choice has no message", body);
    const json& content = choice["message"].value("content", json());
    if (!content.is_string()) bad_response("a choice's message.content is not text", body);
    reply.samples.push_back(content.get<std::string>());
    if (reply.finish_reason.empty()) reply.finish_reason = optional_string(choice, "finish_reason");
  }
  reply.text = reply.samples.front();
  reply.model = optional_string(doc, "model");
  read_openai_usage(doc.value("usage", json()), body, reply);
  return reply;
}

Reply parse_anthropic(const json& doc, const std::string& body) {
  if (!doc.contains("content") || !doc["content"].is_array()) bad_response("no content array", body);
  Reply reply;
  bool has_text = false;
  for (const json& block : doc["content"]) {
    if (!block.is_object() || block.value("type", "") != "text") continue;
    if (!block.contains("text") || !block["text"].is_string()) bad_response("text block without text", body);
    reply.text += block["text"].get<std::string>();
    has_text = true;
  }
  if (!has_text) bad_response("no text block in content", body);
  reply.samples = {reply.text};
  reply.model = optional_string(doc, "model");
  reply.finish_reason = optional_string(doc, "stop_reason");
  read_anthropic_usage(doc.value("usage", json()), body, reply);
  return reply;
}

}  // namespace

Api parse_api(const std::string& name) {
  if (name == "openai") return Api::OpenAi;
  if (name == "anthropic") return Api::Anthropic;
  throw LlmError(LlmError::Kind::BadRequest,
                 fmt::format("unknown api '{}' (expected 'openai' or 'anthropic')", name));
}

std::string chat_url(Api api, const std::string& base_url) {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  // Servers print their base as ".../v1"; the path below adds it again.
  if (base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0) base.resize(base.size() - 3);
  return base + (api == Api::OpenAi ? "/v1/chat/completions" : "/v1/messages");
}

std::string request_body(Api api, const EndpointConfig& config, const ChatRequest& request) {
  return api == Api::OpenAi ? openai_body(config, request) : anthropic_body(config, request);
}

void check_extra(const std::string& extra_json) {
  const json extra = parse_extra(extra_json);
  for (const auto& [key, value] : extra.items())
    if (is_owned_key(key))
      throw LlmError(LlmError::Kind::BadRequest, fmt::format("extra: '{}' is set by accelopt itself", key));
}

std::vector<std::string> request_headers(Api api, const std::string& api_key) {
  std::vector<std::string> headers = {"Content-Type: application/json"};
  if (api == Api::Anthropic) headers.push_back("anthropic-version: 2023-06-01");
  if (api_key.empty()) return headers;
  headers.push_back(api == Api::OpenAi ? "Authorization: Bearer " + api_key : "x-api-key: " + api_key);
  return headers;
}

Reply parse_reply(Api api, const std::string& body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) bad_response("not a JSON object", body);
  return api == Api::OpenAi ? parse_openai(doc, body) : parse_anthropic(doc, body);
}

std::string excerpt(const std::string& body, size_t max_chars) {
  std::string out;
  for (char c : body.substr(0, max_chars)) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (body.size() > max_chars) out += "...";
  return out;
}

}  // namespace llm
