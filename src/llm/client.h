// Chat clients for LLM servers: OpenAI-compatible /v1/chat/completions and the Anthropic
// Messages API, with retries, usage and cost accounting.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<Message> messages;
  double temperature = 1.0;
  int max_tokens = 4096;
};

struct ChatResponse {
  std::string text;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;
  double latency_s = 0;
  int attempts = 1;
  std::string raw;  // raw response body (stored in the run store)
};

// Why a call failed: Retryable errors were already retried up to the configured limit.
struct LlmError : std::runtime_error {
  enum class Kind { Unavailable, Timeout, RateLimited, BadRequest, Auth, BadResponse, Cancelled };
  Kind kind;
  LlmError(Kind k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

struct EndpointConfig {
  std::string api = "openai";  // "openai" | "anthropic"
  std::string url;             // base URL, e.g. http://127.0.0.1:8000 (path added by the client)
  std::string model;
  std::string api_key_env;     // name of the environment variable holding the key ("" = none)
  double temperature = 1.0;
  int max_tokens = 4096;
  double usd_per_mtok_in = 0, usd_per_mtok_out = 0;
  int max_concurrency = 4;
  double timeout_s = 300;
  int max_retries = 4;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  virtual ChatResponse chat(const ChatRequest& request) = 0;  // throws LlmError
};

std::unique_ptr<ChatClient> make_client(const EndpointConfig& config);

}  // namespace llm
