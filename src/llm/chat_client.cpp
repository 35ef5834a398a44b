// The HTTP chat client: one request body, then attempts with retries (see client.h).
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "llm/backoff.h"
#include "llm/client.h"
#include "llm/endpoint_client.h"
#include "llm/endpoint_limiter.h"
#include "llm/http_post.h"
#include "llm/wire_format.h"

namespace llm {
namespace {

using Clock = std::chrono::steady_clock;
using Kind = LlmError::Kind;

bool is_retryable(Kind kind) {
  return kind == Kind::Unavailable || kind == Kind::Timeout || kind == Kind::RateLimited;
}

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(); }

// Sleeps in short slices so that a cancelled call returns promptly.
void sleep_unless_cancelled(double seconds, const std::atomic<bool>* cancel) {
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (cancelled(cancel)) return;
    auto left = std::chrono::duration<double>(until - Clock::now());
    std::this_thread::sleep_for(std::min(left, std::chrono::duration<double>(0.05)));
  }
}

Kind kind_of_status(long status) {
  if (status == 429) return Kind::RateLimited;
  if (status == 408) return Kind::Timeout;
  if (status >= 500) return Kind::Unavailable;
  if (status == 401 || status == 403) return Kind::Auth;
  return Kind::BadRequest;
}

class HttpChatClient final : public ChatClient {
 public:
  explicit HttpChatClient(const EndpointConfig& config)
      : config_(config),
        api_(parse_api(config.api)),
        url_(chat_url(api_, config.url)),
        slots_(endpoint_semaphore(url_, config.max_concurrency)),
        backoff_(config.backoff_initial_s, config.backoff_max_s, config.jitter_seed) {
    check_extra(config.extra_json);
  }

  ChatResponse chat(const ChatRequest& request) override {
    auto start = Clock::now();
    const std::string body = request_body(api_, config_, request);
    HttpResult last;
    int sent = 0;
    try {
      const auto headers = request_headers(api_, api_key());
      for (int attempt = 1;; ++attempt) {
        if (cancelled(request.cancel)) throw LlmError(Kind::Cancelled, where() + ": cancelled");
        last = post_in_slot(headers, body, request.cancel);
        sent = attempt;
        if (last.transport == HttpResult::Transport::Ok && last.status / 100 == 2) return answer(last, attempt, start);
        LlmError error = failure(last, attempt, start);
        // The server knows best when it will have capacity again.
        double wait = last.retry_after_s ? *last.retry_after_s : backoff_.delay_s(attempt);
        if (!is_retryable(error.kind) || !may_retry(attempt, start, wait)) throw error;
        if (config_.on_retry)
          config_.on_retry({config_.model, url_, error.kind, error.what(), attempt, max_attempts(), wait});
        sleep_unless_cancelled(wait, request.cancel);
      }
    } catch (LlmError& error) {
      // What happened on the wire, for the run store (the message already says it in words).
      error.attempts = sent;
      error.latency_s = seconds_since(start);
      error.http_status = last.transport == HttpResult::Transport::Ok ? last.status : 0;
      error.raw = last.body;
      error.model = config_.model;
      throw;
    }
  }

 private:
  std::string where() const { return fmt::format("{} at {}", config_.model, url_); }

  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  // max_retries retries, then more while the retry window lasts (an endpoint that restarts).
  bool may_retry(int attempt, Clock::time_point start, double wait_s) const {
    if (attempt <= config_.max_retries) return true;
    return config_.retry_window_s > 0 && seconds_since(start) + wait_s < config_.retry_window_s;
  }

  // For notices: the attempts max_retries allows (a retry window may allow more).
  int max_attempts() const { return config_.max_retries + 1; }

  // Read at call time so a key rotated in the environment is picked up; never stored.
  std::string api_key() const {
    if (config_.api_key_env.empty()) return "";
    const char* value = std::getenv(config_.api_key_env.c_str());
    if (!value || !*value)
      throw LlmError(Kind::Auth, fmt::format("{}: environment variable {} (the API key) is not set",
                                             where(), config_.api_key_env));
    return value;
  }

  // The slot is held only for the HTTP exchange, not for backoff waits.
  HttpResult post_in_slot(const std::vector<std::string>& headers, const std::string& body,
                          const std::atomic<bool>* cancel) {
    if (!slots_->acquire(cancel)) throw LlmError(Kind::Cancelled, where() + ": cancelled");
    SlotGuard guard(*slots_);
    // Streamed: timeout_s is the longest silence, stream_max_s the whole exchange.
    HttpLimits limits = config_.stream ? HttpLimits{config_.stream_max_s, config_.timeout_s} : HttpLimits{config_.timeout_s, 0};
    return http_post(url_, headers, body, limits, cancel);
  }

  ChatResponse answer(const HttpResult& result, int attempt, Clock::time_point start) const {
    Reply reply;
    try {
      // A server may answer a streamed request with a whole JSON body (e.g. when it ignores `stream`).
      bool whole_body = !config_.stream || result.body.find_first_not_of(" \t\r\n") == result.body.find('{');
      reply = whole_body ? parse_reply(api_, result.body) : parse_stream(api_, result.body);
    } catch (const LlmError& error) {
      throw LlmError(error.kind, where() + ": " + error.what());
    }
    ChatResponse response;
    response.text = std::move(reply.text);
    response.samples = std::move(reply.samples);
    response.model = std::move(reply.model);
    response.endpoint_model = config_.model;
    response.finish_reason = std::move(reply.finish_reason);
    response.input_tokens = reply.input_tokens;
    response.output_tokens = reply.output_tokens;
    response.cached_input_tokens = reply.cached_input_tokens;
    response.cache_write_tokens = reply.cache_write_tokens;
    response.cost_usd = cost_usd(config_, reply.input_tokens, reply.output_tokens, reply.cached_input_tokens,
                                 reply.cache_write_tokens);
    response.attempts = attempt;
    response.raw = result.body;
    response.latency_s = seconds_since(start);
    return response;
  }

  LlmError failure(const HttpResult& result, int attempt, Clock::time_point start) const {
    std::string attempts = fmt::format("{} attempt{}", attempt, attempt == 1 ? "" : "s");
    if (attempt > max_attempts()) attempts += fmt::format(" over {:.1f} s", seconds_since(start));
    switch (result.transport) {
      case HttpResult::Transport::Ok: {
        Kind kind = kind_of_status(result.status);
        return LlmError(kind, fmt::format("{}: HTTP {} after {}: {}", where(), result.status, attempts,
                                          excerpt(result.body)));
      }
      case HttpResult::Transport::Timeout:
        return LlmError(Kind::Timeout, fmt::format("{}: {} {} s after {}", where(),
                                                   config_.stream ? "no data within" : "no answer within",
                                                   config_.timeout_s, attempts));
      case HttpResult::Transport::Cancelled: return LlmError(Kind::Cancelled, where() + ": cancelled");
      case HttpResult::Transport::Connect:
        return LlmError(Kind::Unavailable,
                        fmt::format("{}: {} after {}", where(), result.transport_error, attempts));
      case HttpResult::Transport::Other: break;
    }
    return LlmError(Kind::BadRequest, fmt::format("{}: {}", where(), result.transport_error));
  }

  EndpointConfig config_;
  Api api_;
  std::string url_;
  std::shared_ptr<EndpointSemaphore> slots_;
  Backoff backoff_;
};

}  // namespace

const char* to_string(LlmError::Kind kind) {
  switch (kind) {
    case Kind::Unavailable: return "unavailable";
    case Kind::Timeout: return "timeout";
    case Kind::RateLimited: return "rate-limited";
    case Kind::BadRequest: return "bad-request";
    case Kind::Auth: return "auth";
    case Kind::BadResponse: return "bad-response";
    case Kind::Cancelled: return "cancelled";
  }
  return "unknown";
}

std::unique_ptr<ChatClient> make_endpoint_client(const EndpointConfig& config) {
  if (config.url.empty()) throw LlmError(Kind::BadRequest, "endpoint has no url");
  if (config.model.empty()) throw LlmError(Kind::BadRequest, "endpoint " + config.url + " has no model");
  return std::make_unique<HttpChatClient>(config);
}

double cost_usd(const EndpointConfig& config, int64_t input_tokens, int64_t output_tokens, int64_t cached_input_tokens,
                int64_t cache_write_tokens) {
  double cached_price = config.usd_per_mtok_cached_in >= 0 ? config.usd_per_mtok_cached_in : config.usd_per_mtok_in;
  double write_price = config.usd_per_mtok_cache_write >= 0 ? config.usd_per_mtok_cache_write : config.usd_per_mtok_in;
  int64_t uncached = input_tokens - cached_input_tokens - cache_write_tokens;
  return (static_cast<double>(uncached) * config.usd_per_mtok_in +
          static_cast<double>(cached_input_tokens) * cached_price +
          static_cast<double>(cache_write_tokens) * write_price +
          static_cast<double>(output_tokens) * config.usd_per_mtok_out) / 1e6;
}

std::string request_fingerprint(const EndpointConfig& config, const ChatRequest& request) {
  nlohmann::json messages = nlohmann::json::array();
  for (const auto& message : request.messages) messages.push_back({message.role, message.content});
  nlohmann::json doc = {
      {"api", config.api},
      {"model", config.model},
      {"temperature", request.temperature >= 0 ? request.temperature : config.temperature},
      {"max_tokens", request.max_tokens > 0 ? request.max_tokens : config.max_tokens},
      {"messages", messages}};
  // Added only when set, so fingerprints of plain requests stay as they were.
  if (!config.extra_json.empty()) doc["extra"] = nlohmann::json::parse(config.extra_json, nullptr, false);
  if (request.n > 1) doc["n"] = request.n;
  return doc.dump();
}

}  // namespace llm
