// The two chat APIs on the wire: request bodies, headers and response parsing (whole JSON bodies
// and event streams). JSON stays in wire_format.cpp; callers see typed values.
#pragma once

#include <string>
#include <vector>

#include "llm/client.h"

namespace llm {

enum class Api { OpenAi, Anthropic };

// Throws LlmError(BadRequest) for anything but "openai" / "anthropic".
Api parse_api(const std::string& name);

// Full URL of the chat endpoint: base url + the API's path. The base may end in '/' or in "/v1"
// (as many servers print it): "http://h:8000", "http://h:8000/" and "http://h:8000/v1" all give
// "http://h:8000/v1/chat/completions".
std::string chat_url(Api api, const std::string& base_url);

// The request body; the request's temperature/max_tokens override the endpoint's when set. Adds
// `stream`, `n` and the endpoint's `extra` keys (which win over the defaults, but never replace
// model, messages or system; an extra key set to null removes the default, e.g. max_tokens). Anthropic: a message with a cache prefix is sent as two text blocks,
// the first with cache_control.
std::string request_body(Api api, const EndpointConfig& config, const ChatRequest& request);

// Throws LlmError(BadRequest) when `extra_json` is not a JSON object or sets a key the client
// owns (model, messages, system, stream, n). Called when a client is made.
void check_extra(const std::string& extra_json);

// HTTP headers ("Name: value"), including authentication when `api_key` is not empty.
std::vector<std::string> request_headers(Api api, const std::string& api_key);

struct Reply {
  std::string text, model, finish_reason;
  std::vector<std::string> samples;  // every choice's text (openai `n`), samples[0] == text
  int64_t input_tokens = 0, output_tokens = 0, cached_input_tokens = 0, cache_write_tokens = 0;
};

// Parses a 2xx body. Throws LlmError(BadResponse) when it is not the API's response shape.
Reply parse_reply(Api api, const std::string& body);

// Parses a whole event stream (text/event-stream) of a streamed answer. Throws
// LlmError(BadResponse) for a stream that is not the API's or ended before its last event, and
// LlmError(Unavailable) for an error event (e.g. "overloaded") sent in the stream.
Reply parse_stream(Api api, const std::string& stream);

// A short, single-line excerpt of an error body for messages.
std::string excerpt(const std::string& body, size_t max_chars = 200);

}  // namespace llm
