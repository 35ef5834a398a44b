// JSON helpers shared by the body and stream parsers of wire_format (internal to src/llm).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "llm/wire_format.h"

namespace llm {

[[noreturn]] void bad_response(const std::string& what, const std::string& body);

// A non-negative integer token count at usage[key]; 0 when absent or null.
int64_t token_count(const nlohmann::json& usage, const char* key, const std::string& body);

std::string optional_string(const nlohmann::json& object, const char* key);

// usage.prompt_tokens, completion_tokens and prompt_tokens_details.cached_tokens (part of the
// prompt tokens). Leaves the reply's counts alone when `usage` is not an object.
void read_openai_usage(const nlohmann::json& usage, const std::string& body, Reply& reply);

// usage.input_tokens (the uncached part), cache_read_input_tokens and cache_creation_input_tokens:
// the reply's input_tokens is their sum, the whole prompt. Counts present in `usage` replace the
// reply's (a stream reports them in two events).
void read_anthropic_usage(const nlohmann::json& usage, const std::string& body, Reply& reply);

}  // namespace llm
