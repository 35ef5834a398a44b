// One HTTP POST over libcurl, with a wall-clock timeout and cancellation. No retries here.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace llm {

struct HttpResult {
  // Connect: any network failure worth a retry; Other: a bad URL or local failure.
  enum class Transport { Ok, Timeout, Connect, Cancelled, Other };
  Transport transport = Transport::Ok;
  std::string transport_error;  // curl's message when transport != Ok
  long status = 0;              // HTTP status when transport == Ok
  std::string body;
  std::optional<double> retry_after_s;  // parsed Retry-After header (seconds form only)
};

// Time limits of one POST (0 = none). `total_s` bounds the whole exchange; `idle_s` the longest
// time without a byte received (a streamed answer may take long as long as it keeps coming;
// checked about once a second).
struct HttpLimits {
  double total_s = 0, idle_s = 0;
};

// Thread-safe: each calling thread reuses its own curl handle (keeps connections alive).
HttpResult http_post(const std::string& url, const std::vector<std::string>& headers,
                     const std::string& body, HttpLimits limits, const std::atomic<bool>* cancel);

// "120" -> 120; "1.5" -> 1.5; anything else (HTTP dates included) -> nullopt.
std::optional<double> parse_retry_after(const std::string& value);

}  // namespace llm
