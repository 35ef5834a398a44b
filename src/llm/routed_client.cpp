// make_client: one endpoint, or an agent's ensemble and fallbacks (client.h, docs/config.md).
// An ensemble member is chosen per call from the request's fingerprint, so a resumed or replayed
// run sends each request to the same model; fallbacks are tried in order after the chosen
// endpoint failed (its own retries done).
#include <chrono>

#include <fmt/core.h>

#include "llm/client.h"
#include "llm/endpoint_client.h"

namespace llm {
namespace {

// FNV-1a, then the splitmix64 finalizer so that keys differing in their last characters spread
// over the high bits too: stable across platforms and runs (std::hash is not).
uint64_t stable_hash(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  hash = (hash ^ (hash >> 30)) * 0xbf58476d1ce4e5b9ull;
  hash = (hash ^ (hash >> 27)) * 0x94d049bb133111ebull;
  return hash ^ (hash >> 31);
}

class RoutedClient final : public ChatClient {
 public:
  explicit RoutedClient(const EndpointConfig& config) : primary_(config) {
    add(members_, config);
    for (const auto& member : config.ensemble) add(members_, inherit(member, config));
    for (const auto& fallback : config.fallbacks) add(fallbacks_, inherit(fallback, config));
    for (const auto& member : members_) total_weight_ += member.weight;
  }

  ChatResponse chat(const ChatRequest& request) override {
    std::vector<const Member*> order = {&choose(request)};
    for (const auto& fallback : fallbacks_) order.push_back(&fallback);
    auto start = std::chrono::steady_clock::now();
    std::string failures;
    int attempts = 0;
    for (size_t idx = 0;; ++idx) {
      try {
        ChatResponse response = order[idx]->client->chat(request);
        response.attempts += attempts;
        response.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return response;
      } catch (LlmError& error) {
        attempts += error.attempts;
        if (error.kind == LlmError::Kind::Cancelled || idx + 1 == order.size()) {
          if (!failures.empty()) {
            LlmError last(error.kind, fmt::format("{}; then {}", failures, error.what()));
            last.attempts = attempts;
            last.http_status = error.http_status;
            last.raw = error.raw;
            last.model = error.model;
            last.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            throw last;
          }
          throw;
        }
        failures += (failures.empty() ? "" : "; then ") + std::string(error.what());
      }
    }
  }

 private:
  struct Member {
    double weight;
    std::unique_ptr<ChatClient> client;
  };

  // A member inherits the agent's observer (set after the file was read).
  static EndpointConfig inherit(EndpointConfig member, const EndpointConfig& agent) {
    if (!member.on_retry) member.on_retry = agent.on_retry;
    member.fallbacks.clear();
    member.ensemble.clear();
    return member;
  }

  static void add(std::vector<Member>& to, EndpointConfig config) {
    double weight = config.weight;
    config.fallbacks.clear();
    config.ensemble.clear();
    to.push_back({weight, make_endpoint_client(config)});
  }

  const Member& choose(const ChatRequest& request) const {
    if (members_.size() == 1 || total_weight_ <= 0) return members_.front();
    // A uniform number in [0, 1) from the fingerprint, then the member whose share covers it.
    const std::string key = request.route_key.empty() ? request_fingerprint(primary_, request) : request.route_key;
    double u = static_cast<double>(stable_hash(key) >> 11) * 0x1.0p-53;
    double cumulative = 0;
    for (const auto& member : members_) {
      cumulative += member.weight / total_weight_;
      if (u < cumulative) return member;
    }
    return members_.back();
  }

  EndpointConfig primary_;
  std::vector<Member> members_, fallbacks_;
  double total_weight_ = 0;
};

}  // namespace

std::unique_ptr<ChatClient> make_client(const EndpointConfig& config) {
  if (config.fallbacks.empty() && config.ensemble.empty()) return make_endpoint_client(config);
  return std::make_unique<RoutedClient>(config);
}

}  // namespace llm
