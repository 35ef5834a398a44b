#include "llm/wire_json.h"

#include <fmt/core.h>

namespace llm {

using nlohmann::json;

void bad_response(const std::string& what, const std::string& body) {
  throw LlmError(LlmError::Kind::BadResponse, fmt::format("malformed response: {} (body: {})", what, excerpt(body)));
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

void read_openai_usage(const json& usage, const std::string& body, Reply& reply) {
  if (!usage.is_object()) return;
  reply.input_tokens = token_count(usage, "prompt_tokens", body);
  reply.output_tokens = token_count(usage, "completion_tokens", body);
  reply.cached_input_tokens = token_count(usage.value("prompt_tokens_details", json()), "cached_tokens", body);
  if (reply.cached_input_tokens > reply.input_tokens)
    bad_response("usage.prompt_tokens_details.cached_tokens exceeds prompt_tokens", body);
}

void read_anthropic_usage(const json& usage, const std::string& body, Reply& reply) {
  if (!usage.is_object()) return;
  int64_t uncached = reply.input_tokens - reply.cached_input_tokens - reply.cache_write_tokens;
  if (usage.contains("input_tokens")) uncached = token_count(usage, "input_tokens", body);
  if (usage.contains("cache_read_input_tokens"))
    reply.cached_input_tokens = token_count(usage, "cache_read_input_tokens", body);
  if (usage.contains("cache_creation_input_tokens"))
    reply.cache_write_tokens = token_count(usage, "cache_creation_input_tokens", body);
  reply.input_tokens = uncached + reply.cached_input_tokens + reply.cache_write_tokens;
  if (usage.contains("output_tokens")) reply.output_tokens = token_count(usage, "output_tokens", body);
}

}  // namespace llm
