// Chat clients for LLM servers: OpenAI-compatible /v1/chat/completions and the Anthropic
// Messages API, with retries, usage and cost accounting.
//
// Threading: a ChatClient is thread-safe; chat() may be called from many threads at once. All
// clients whose endpoint has the same URL share one concurrency limit (the first client created
// for a URL sets it). The API key is read from the named environment variable on every call and
// is never logged, stored or put in an error message.
// Tests with examples: tests/unit/llm/chat_client_test.cpp (against tests/support's fake server).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
  // The first `cache_prefix` bytes of `content` are the same in many requests (guide, reference):
  // the anthropic api marks them with cache_control so the provider caches them. OpenAI-compatible
  // servers cache prefixes by themselves; the field changes nothing in their requests.
  size_t cache_prefix = 0;
};

struct ChatRequest {
  std::vector<Message> messages;
  double temperature = -1;  // < 0: the endpoint's temperature
  int max_tokens = 0;       // <= 0: the endpoint's max_tokens
  int n = 1;                // samples in one request (endpoints with `n_samples: true`), else 1
  // Chooses the ensemble member (with the same key, the same member); "" = the request's
  // fingerprint. The run's session passes its call key, so the K samples of a plan spread too.
  std::string route_key;
  // Set to true (by another thread) to abandon the call: chat() throws LlmError::Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct ChatResponse {
  std::string text;                  // the first (or only) sample
  std::vector<std::string> samples;  // every sample's text, in order (size n; samples[0] == text)
  // input_tokens counts the whole prompt, cached part included; cached_input_tokens is the part
  // read from the provider's prompt cache, cache_write_tokens the part written to it (anthropic).
  int64_t input_tokens = 0, output_tokens = 0, cached_input_tokens = 0, cache_write_tokens = 0;
  double cost_usd = 0;
  double latency_s = 0;  // wall time of the whole call, retries and waits included
  int attempts = 1;
  std::string raw;  // raw response body (stored in the run store; the event stream when streamed)
  std::string model;           // model named in the response ("" if absent)
  std::string endpoint_model;  // the configured model that answered (differs from the agent's
                               // model after a fallback or with an ensemble)
  std::string finish_reason;  // "stop", "length", "end_turn", "max_tokens", ... ("" if absent)
};

// Why a call failed. Retryable kinds (Unavailable, Timeout, RateLimited) were already retried up
// to the configured limit; BadRequest, Auth and BadResponse are not retried (a retry would fail
// the same way or pay again for a garbled answer); the caller may retry the whole step.
// The error also says what happened on the wire, for the run store: how many attempts were made,
// how long they took, and the last HTTP status and body.
struct LlmError : std::runtime_error {
  enum class Kind { Unavailable, Timeout, RateLimited, BadRequest, Auth, BadResponse, Cancelled };
  Kind kind;
  int attempts = 0;        // HTTP attempts made (0: none was sent, e.g. the key variable is unset)
  double latency_s = 0;    // wall time of the whole call, retries and waits included
  long http_status = 0;    // status of the last attempt (0: no HTTP answer)
  std::string raw;         // body of the last attempt's answer ("" when none)
  std::string model;       // the configured model of the endpoint that failed last
  LlmError(Kind k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

const char* to_string(LlmError::Kind kind);

// What a client tells its observer before it waits to retry (for progress lines and logs).
struct RetryNotice {
  std::string model, url;
  LlmError::Kind kind;  // why the attempt failed (RateLimited, Unavailable, Timeout)
  std::string reason;   // e.g. "HTTP 429 after 1 attempt: ..." (never contains the key)
  int attempt = 0;      // the attempt that failed (1-based)
  int max_attempts = 0;
  double wait_s = 0;    // the wait before the next attempt (Retry-After or backoff)
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
  // Backoff before retry n (n = 1, 2, ...): min(backoff_max_s, backoff_initial_s * 2^(n-1)),
  // scaled by a jitter factor drawn from [0.5, 1]. A Retry-After header replaces it.
  double backoff_initial_s = 1.0;
  double backoff_max_s = 60;
  // Retryable failures are retried max_retries times, and beyond that for as long as the whole
  // call has not lasted retry_window_s (an endpoint that restarts for minutes). 0 = no window.
  double retry_window_s = 0;
  uint64_t jitter_seed = 0;    // 0: seeded from the clock; otherwise deterministic (tests)
  // Prices of cached prompt tokens: read from the cache, and written to it (anthropic). < 0: price_in.
  double usd_per_mtok_cached_in = -1, usd_per_mtok_cache_write = -1;
  // Stream the answer (SSE / the Messages event stream): timeout_s is then the longest silence,
  // and stream_max_s (0 = none) the limit of the whole attempt.
  bool stream = false;
  double stream_max_s = 0;
  bool n_samples = false;      // the server takes `n` (K samples in one request); openai only
  std::string extra_json;      // JSON object merged into every request body as is ("" = none)
  // Other endpoints for the same agent (docs/config.md): `fallbacks` are tried in order when a
  // call fails on this one after its retries; `ensemble` members (with `weight`) share the calls,
  // each call going to one member chosen from its request fingerprint (reproducible).
  std::vector<EndpointConfig> fallbacks, ensemble;
  double weight = 1;           // an ensemble member's share
  // Called (on the calling thread) before each retry wait; may be empty. Not part of the file format.
  std::function<void(const RetryNotice&)> on_retry;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  virtual ChatResponse chat(const ChatRequest& request) = 0;  // throws LlmError
};

// Throws LlmError(BadRequest) for an unknown api or an empty url/model.
std::unique_ptr<ChatClient> make_client(const EndpointConfig& config);

// USD cost of a call: tokens times the endpoint's price per million tokens. The cached part of
// the input (included in input_tokens) is priced at the cached-input price, cache writes at the
// cache-write price.
double cost_usd(const EndpointConfig& config, int64_t input_tokens, int64_t output_tokens,
                int64_t cached_input_tokens = 0, int64_t cache_write_tokens = 0);

// A canonical text of everything that determines an answer (api, model, temperature, max
// tokens, messages); routes an ensemble's calls when the request has no route key. (The run
// store keys LLM calls by agents' request hash, llm_session.cpp.)
std::string request_fingerprint(const EndpointConfig& config, const ChatRequest& request);

}  // namespace llm
