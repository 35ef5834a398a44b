// The two chat APIs on the wire: request bodies, headers and response parsing. JSON stays in
// wire_format.cpp; callers see typed values.
#pragma once

#include <string>
#include <vector>

#include "llm/client.h"

namespace llm {

enum class Api { OpenAi, Anthropic };

// Throws LlmError(BadRequest) for anything but "openai" / "anthropic".
Api parse_api(const std::string& name);

// Full URL of the chat endpoint: base url (trailing '/' ignored) + the API's path.
std::string chat_url(Api api, const std::string& base_url);

// The request body; the request's temperature/max_tokens override the endpoint's when set.
std::string request_body(Api api, const EndpointConfig& config, const ChatRequest& request);

// HTTP headers ("Name: value"), including authentication when `api_key` is not empty.
std::vector<std::string> request_headers(Api api, const std::string& api_key);

struct Reply {
  std::string text, model, finish_reason;
  int64_t input_tokens = 0, output_tokens = 0;
};

// Parses a 2xx body. Throws LlmError(BadResponse) when it is not the API's response shape.
Reply parse_reply(Api api, const std::string& body);

// A short, single-line excerpt of an error body for messages.
std::string excerpt(const std::string& body, size_t max_chars = 200);

}  // namespace llm
