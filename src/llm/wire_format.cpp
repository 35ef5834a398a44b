#include "llm/wire_format.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace llm {
namespace {

using nlohmann::json;

double effective_temperature(const EndpointConfig& config, const ChatRequest& request) {
  return request.temperature >= 0 ? request.temperature : config.temperature;
}

int effective_max_tokens(const EndpointConfig& config, const ChatRequest& request) {
  return request.max_tokens > 0 ? request.max_tokens : config.max_tokens;
}

std::string openai_body(const EndpointConfig& config, const ChatRequest& request) {
  json messages = json::array();
  for (const auto& message : request.messages)
    messages.push_back({{"role", message.role}, {"content", message.content}});
  json body = {{"model", config.model},
               {"messages", messages},
               {"temperature", effective_temperature(config, request)},
               {"max_tokens", effective_max_tokens(config, request)}};
  return body.dump();
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
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  json body = {{"model", config.model},
               {"messages", messages},
               {"temperature", effective_temperature(config, request)},
               {"max_tokens", effective_max_tokens(config, request)}};
  if (!system.empty()) body["system"] = system;
  return body.dump();
}

[[noreturn]] void bad_response(const std::string& what, const std::string& body) {
  throw LlmError(LlmError::Kind::BadResponse,
                 fmt::format("malformed response: {} (body: {})", what, excerpt(body)));
}

int64_t token_count(const json& usage, const char* key, const std::string& body) {
  if (!usage.is_object() || !usage.contains(key) || usage[key].is_null()) return 0;
  if (!usage[key].is_number_integer() || usage[key].get<int64_t>() < 0)
    bad_response(fmt::format("usage.{} is not a token count", key), body);
  return usage[key].get<int64_t>();
}

std::string optional_string(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
  return object[key].get<std::string>();
}

Reply parse_openai(const json& doc, const std::string& body) {
  if (!doc.contains("choices") || !doc["choices"].is_array() || doc["choices"].empty())
    bad_response("no choices", body);
  const json& choice = doc["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
    bad_response("choices[0] has no message", body);
  const json& content = choice["message"].value("content", json());
  if (!content.is_string()) bad_response("choices[0].message.content is not text", body);
  Reply reply;
  reply.text = content.get<std::string>();
  reply.model = optional_string(doc, "model");
  reply.finish_reason = optional_string(choice, "finish_reason");
  const json usage = doc.value("usage", json());
  reply.input_tokens = token_count(usage, "prompt_tokens", body);
  reply.output_tokens = token_count(usage, "completion_tokens", body);
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
  reply.model = optional_string(doc, "model");
  reply.finish_reason = optional_string(doc, "stop_reason");
  const json usage = doc.value("usage", json());
  reply.input_tokens = token_count(usage, "input_tokens", body);
  reply.output_tokens = token_count(usage, "output_tokens", body);
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
  return base + (api == Api::OpenAi ? "/v1/chat/completions" : "/v1/messages");
}

std::string request_body(Api api, const EndpointConfig& config, const ChatRequest& request) {
  return api == Api::OpenAi ? openai_body(config, request) : anthropic_body(config, request);
}

std::vector<std::string> request_headers(Api api, const std::string& api_key) {
  std::vector<std::string> headers = {"Content-Type: application/json"};
  if (api == Api::Anthropic) headers.push_back("anthropic-version: 2023-06-01");
  if (api_key.empty()) return headers;
  headers.push_back(api == Api::OpenAi ? "Authorization: Bearer " + api_key : "x-api-key: " + api_key);
  return headers;
}

Reply parse_reply(Api api, const std::string& body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
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
