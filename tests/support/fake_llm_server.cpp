#include "support/fake_llm_server.h"

#include <chrono>
#include <stdexcept>

#include <httplib.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace fake_llm {
namespace {

using nlohmann::json;

json anthropic_usage(const Reply& reply) {
  json usage = {{"input_tokens", reply.input_tokens - reply.cached_tokens - reply.cache_write_tokens},
                {"output_tokens", reply.output_tokens}};
  if (reply.cached_tokens > 0) usage["cache_read_input_tokens"] = reply.cached_tokens;
  if (reply.cache_write_tokens > 0) usage["cache_creation_input_tokens"] = reply.cache_write_tokens;
  return usage;
}

// `text` in `count` pieces, never splitting a UTF-8 sequence.
std::vector<std::string> pieces(const std::string& text, int count) {
  std::vector<std::string> out;
  size_t start = 0;
  for (int idx = 1; idx <= count; ++idx) {
    size_t end = idx == count ? text.size() : text.size() * static_cast<size_t>(idx) / static_cast<size_t>(count);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    end = std::max(end, start);
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string sse(const json& data, const std::string& event = "") {
  return (event.empty() ? "" : "event: " + event + "\n") + "data: " + data.dump() + "\n\n";
}

// The events of a streamed answer (the OpenAI-compatible chunks or the Anthropic Messages stream).
std::vector<std::string> stream_events(const std::string& api, const std::string& model,
                                       const std::vector<Reply>& replies, int64_t serial) {
  const Reply& first = replies.front();
  std::vector<std::string> events;
  int64_t output_tokens = 0;
  for (const auto& reply : replies) output_tokens += reply.output_tokens;
  if (api == "openai") {
    std::string id = fmt::format("chatcmpl-fake-{}", serial);
    auto chunk = [&](json choices) {
      return sse({{"id", id}, {"object", "chat.completion.chunk"}, {"model", model}, {"choices", choices}});
    };
    for (size_t idx = 0; idx < replies.size(); ++idx)
      for (const auto& piece : pieces(replies[idx].text, first.chunks))
        events.push_back(chunk(json::array({{{"index", idx}, {"delta", {{"content", piece}}}, {"finish_reason", nullptr}}})));
    for (size_t idx = 0; idx < replies.size(); ++idx)
      events.push_back(chunk(json::array({{{"index", idx}, {"delta", json::object()}, {"finish_reason", replies[idx].finish_reason}}})));
    json usage = {{"prompt_tokens", first.input_tokens}, {"completion_tokens", output_tokens},
                  {"total_tokens", first.input_tokens + output_tokens}};
    if (first.cached_tokens > 0) usage["prompt_tokens_details"] = {{"cached_tokens", first.cached_tokens}};
    events.push_back(sse({{"id", id}, {"object", "chat.completion.chunk"}, {"model", model}, {"choices", json::array()},
                          {"usage", usage}}));
    events.push_back("data: [DONE]\n\n");
    return events;
  }
  json start_usage = anthropic_usage(first);
  start_usage["output_tokens"] = 1;
  events.push_back(sse({{"type", "message_start"},
                        {"message", {{"id", fmt::format("msg_fake_{}", serial)}, {"type", "message"}, {"role", "assistant"},
                                     {"model", model}, {"content", json::array()}, {"usage", start_usage}}}},
                       "message_start"));
  events.push_back(sse({{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}},
                       "content_block_start"));
  events.push_back(sse({{"type", "ping"}}, "ping"));
  for (const auto& piece : pieces(first.text, first.chunks))
    events.push_back(sse({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", piece}}}},
                         "content_block_delta"));
  events.push_back(sse({{"type", "content_block_stop"}, {"index", 0}}, "content_block_stop"));
  events.push_back(sse({{"type", "message_delta"},
                        {"delta", {{"stop_reason", first.finish_reason == "stop" ? "end_turn" : first.finish_reason}}},
                        {"usage", {{"output_tokens", first.output_tokens}}}},
                       "message_delta"));
  events.push_back(sse({{"type", "message_stop"}}, "message_stop"));
  return events;
}

bool rule_matches(const Rule& rule, const std::string& api, const std::string& model, const json& request) {
  if (!rule.api.empty() && rule.api != api) return false;
  if (!rule.model.empty() && rule.model != model) return false;
  if (rule.contains.empty()) return true;
  if (request.contains("system") && request["system"].is_string() &&
      request["system"].get<std::string>().find(rule.contains) != std::string::npos)
    return true;
  if (!request.contains("messages") || !request["messages"].is_array()) return false;
  for (const json& message : request["messages"]) {
    if (!message.is_object() || !message.contains("content")) continue;
    // Text, or (anthropic) a list of content blocks, e.g. a cached prefix and the rest.
    std::string text;
    const json& content = message["content"];
    if (content.is_string()) text = content.get<std::string>();
    if (content.is_array())
      for (const json& block : content)
        if (block.is_object() && block.contains("text") && block["text"].is_string()) text += block["text"].get<std::string>();
    if (text.find(rule.contains) != std::string::npos) return true;
  }
  return false;
}

// The whole-body answer: one choice per reply (several with `n`), the usage of them all.
std::string success_body(const std::string& api, const std::string& model, const std::vector<Reply>& replies,
                         int64_t serial) {
  const Reply& first = replies.front();
  int64_t output_tokens = 0;
  for (const auto& reply : replies) output_tokens += reply.output_tokens;
  if (api == "openai") {
    json choices = json::array();
    for (size_t idx = 0; idx < replies.size(); ++idx)
      choices.push_back({{"index", idx},
                         {"message", {{"role", "assistant"}, {"content", replies[idx].text}}},
                         {"finish_reason", replies[idx].finish_reason}});
    json usage = {{"prompt_tokens", first.input_tokens},
                  {"completion_tokens", output_tokens},
                  {"total_tokens", first.input_tokens + output_tokens}};
    if (first.cached_tokens > 0) usage["prompt_tokens_details"] = {{"cached_tokens", first.cached_tokens}};
    return json{{"id", fmt::format("chatcmpl-fake-{}", serial)},
                {"object", "chat.completion"},
                {"model", model},
                {"choices", choices},
                {"usage", usage}}
        .dump();
  }
  return json{{"id", fmt::format("msg_fake_{}", serial)},
              {"type", "message"},
              {"role", "assistant"},
              {"model", model},
              {"content", {{{"type", "text"}, {"text", first.text}}}},
              {"stop_reason", first.finish_reason == "stop" ? "end_turn" : first.finish_reason},
              {"usage", anthropic_usage(first)}}
      .dump();
}

std::string error_body(const std::string& message) {
  return json{{"error", {{"message", message}, {"type", "fake_llm_error"}}}}.dump();
}

}  // namespace

const char* standalone_binary() { return ACCELOPT_FAKE_LLM; }

std::string agents_config_yaml(const std::string& url, double timeout_s) {
  std::string yaml = fmt::format(
      "defaults: {{api: openai, url: \"{}\", price_in: 1, price_out: 2, timeout_s: {}, max_retries: 3,\n"
      "           backoff_initial_s: 0.05, backoff_max_s: 0.2, jitter_seed: 1}}\nagents:\n",
      url, timeout_s);
  for (const char* agent : {"planner", "executor", "summarizer", "fixer"})
    yaml += fmt::format("  {}: {{model: fake-{}}}\n", agent, agent);
  return yaml;
}

std::string stats_json(const Stats& stats) {
  return json{{"requests", stats.requests},     {"by_rule", stats.by_rule},
              {"by_model", stats.by_model},     {"by_status", stats.by_status},
              {"unmatched", stats.unmatched},   {"answered", stats.answered},
              {"input_tokens", stats.input_tokens}, {"output_tokens", stats.output_tokens},
              {"cached_tokens", stats.cached_tokens},
              {"max_in_flight", stats.max_in_flight}}
      .dump(2);
}

// Owns the script and counters; every handler runs under its mutex except for the delay.
class FakeLlmServer::Handler {
 public:
  explicit Handler(Script script) : script_(std::move(script)), next_(script_.rules.size(), 0) {}

  void chat(const std::string& api, const httplib::Request& request, httplib::Response& response) {
    InFlight in_flight(*this);
    json doc = json::parse(request.body, nullptr, false);
    std::string model = doc.is_object() ? doc.value("model", "") : "";
    bool stream = doc.is_object() && doc.value("stream", false);
    int n = api == "openai" && doc.is_object() && doc.contains("n") && doc["n"].is_number_integer()
                ? std::max(1, doc["n"].get<int>())
                : 1;
    auto [replies, serial] = pick(api, request, doc, model, n);
    const Reply& reply = replies.front();
    if (reply.delay_s > 0) sleep_unless_stopping(reply.delay_s);
    response.status = reply.status;
    if (reply.retry_after) response.set_header("Retry-After", *reply.retry_after);
    if (reply.body) {
      response.set_content(*reply.body, "application/json");
    } else if (reply.status / 100 == 2 && stream) {
      auto events = stream_events(api, model, replies, serial);
      if (reply.cut_stream) events.pop_back();
      double delay = reply.chunk_delay_s;
      // The delay goes between the text pieces (the model writing); the closing events follow at once.
      size_t first_piece = api == "anthropic" ? 3 : 0;  // after message_start, content_block_start, ping
      size_t end_piece = first_piece + static_cast<size_t>(reply.chunks);
      response.set_chunked_content_provider("text/event-stream", [=, this](size_t, httplib::DataSink& sink) {
        for (size_t idx = 0; idx < events.size(); ++idx) {
          if (idx > first_piece && idx < end_piece && delay > 0) sleep_unless_stopping(delay);
          if (!sink.write(events[idx].data(), events[idx].size())) return false;
        }
        sink.done();
        return true;
      });
    } else if (reply.status / 100 == 2) {
      // Unstreamed, the answer comes once the model has written all of it.
      if (reply.chunk_delay_s > 0) sleep_unless_stopping(reply.chunk_delay_s * (reply.chunks - 1));
      response.set_content(success_body(api, model, replies, serial), "application/json");
    } else {
      response.set_content(error_body(fmt::format("scripted status {}", reply.status)), "application/json");
    }
  }

  void set_script(Script script) {
    std::lock_guard lock(mutex_);
    script_ = std::move(script);
    next_.assign(script_.rules.size(), 0);
  }

  void reset() {
    std::lock_guard lock(mutex_);
    stats_ = Stats{};
    next_.assign(script_.rules.size(), 0);
    requests_.clear();
  }

  Stats stats() {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  std::vector<RecordedRequest> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

  std::atomic<bool> stopping{false};

 private:
  struct InFlight {
    Handler& handler;
    explicit InFlight(Handler& h) : handler(h) {
      std::lock_guard lock(handler.mutex_);
      handler.stats_.max_in_flight = std::max(handler.stats_.max_in_flight, ++handler.in_flight_);
    }
    ~InFlight() {
      std::lock_guard lock(handler.mutex_);
      --handler.in_flight_;
    }
  };

  // Chooses (and counts) the replies under the lock (`n` of them for a request with n samples,
  // the next n of the same rule); returns copies so the delay runs unlocked.
  std::pair<std::vector<Reply>, int64_t> pick(const std::string& api, const httplib::Request& request, const json& doc,
                                              const std::string& model, int n) {
    std::lock_guard lock(mutex_);
    record(request);
    int64_t serial = ++stats_.requests;
    ++stats_.by_model[model];
    std::vector<Reply> replies = {choose(api, request, doc, model, /*count=*/true)};
    for (int idx = 1; idx < n && replies.front().status / 100 == 2 && !replies.front().body; ++idx)
      replies.push_back(choose(api, request, doc, model, /*count=*/false));
    const Reply& reply = replies.front();
    ++stats_.by_status[std::to_string(reply.status)];
    if (reply.status / 100 == 2 && !reply.body) {
      ++stats_.answered;
      stats_.input_tokens += reply.input_tokens;
      stats_.cached_tokens += reply.cached_tokens;
      for (const auto& each : replies) stats_.output_tokens += each.output_tokens;
    }
    return {replies, serial};
  }

  // `count`: the request counts for its rule in /stats (the extra samples of `n` do not).
  Reply choose(const std::string& api, const httplib::Request& request, const json& doc, const std::string& model,
               bool count) {
    if (!doc.is_object()) return error_reply(400, "request body is not a JSON object");
    if (!script_.require_api_key.empty() && presented_key(api, request) != script_.require_api_key)
      return error_reply(401, "missing or wrong API key");
    for (size_t idx = 0; idx < script_.rules.size(); ++idx) {
      const Rule& rule = script_.rules[idx];
      if (!rule_matches(rule, api, model, doc)) continue;
      size_t& next = next_[idx];
      if (next >= rule.replies.size() && !rule.repeat_last) continue;
      if (count) ++stats_.by_rule[rule.name];
      const Reply& reply = rule.replies[std::min(next, rule.replies.size() - 1)];
      ++next;
      return reply;
    }
    if (count) ++stats_.unmatched;
    // 400 so that clients fail at once instead of retrying: an unmatched request is a test bug.
    return error_reply(400, "fake-llm: no rule matches this request (model '" + model + "')");
  }

  static Reply error_reply(int status, const std::string& message) {
    Reply reply;
    reply.status = status;
    reply.body = error_body(message);
    return reply;
  }

  static std::string presented_key(const std::string& api, const httplib::Request& request) {
    if (api == "anthropic") return request.get_header_value("x-api-key");
    std::string auth = request.get_header_value("Authorization");
    return auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : "";
  }

  void record(const httplib::Request& request) {
    RecordedRequest recorded{request.path, request.body, {}};
    for (const auto& [name, value] : request.headers) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      recorded.headers[lower] = value;
    }
    requests_.push_back(std::move(recorded));
  }

  void sleep_unless_stopping(double seconds) {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until && !stopping.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  std::mutex mutex_;
  Script script_;
  std::vector<size_t> next_;
  Stats stats_;
  int in_flight_ = 0;
  std::vector<RecordedRequest> requests_;
};

FakeLlmServer::FakeLlmServer(Script script) : handler_(std::make_unique<Handler>(std::move(script))) {}

FakeLlmServer::~FakeLlmServer() {
  if (restarter_.joinable()) restarter_.join();
  stop();
}

// A new httplib server per start, so that a stopped server can start again on its port (an
// endpoint that restarts); the script and the counters live on in the handler.
void FakeLlmServer::make_server() {
  server_ = std::make_unique<httplib::Server>();
  // Enough workers for concurrency tests (the default pool has as many threads as cores).
  server_->new_task_queue = [] { return new httplib::ThreadPool(32); };
  // One request per connection: a worker idling on a kept-alive connection would hold stop()
  // for the whole keep-alive timeout.
  server_->set_keep_alive_max_count(1);
  server_->Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    handler_->chat("openai", req, res);
  });
  server_->Post("/v1/messages", [this](const httplib::Request& req, httplib::Response& res) {
    handler_->chat("anthropic", req, res);
  });
  server_->Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(stats_json(handler_->stats()), "application/json");
  });
  server_->Post("/reset", [this](const httplib::Request&, httplib::Response& res) {
    handler_->reset();
    res.set_content("{}", "application/json");
  });
  server_->Post("/script", [this](const httplib::Request& req, httplib::Response& res) {
    try {
      handler_->set_script(parse_script(req.body, "POST /script", ""));
      res.set_content("{}", "application/json");
    } catch (const ScriptError& error) {
      res.status = 400;
      res.set_content(error_body(error.what()), "application/json");
    }
  });
}

int FakeLlmServer::start(int port) {
  if (thread_.joinable()) throw std::logic_error("fake-llm: server already started");
  make_server();
  handler_->stopping = false;
  port_ = port == 0 ? server_->bind_to_any_port("127.0.0.1") : (server_->bind_to_port("127.0.0.1", port) ? port : -1);
  if (port_ <= 0) throw std::runtime_error(fmt::format("fake-llm: cannot bind 127.0.0.1:{}", port));
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // listen_after_bind accepts on the already-bound socket, so connections queue even before
  // the thread runs; wait anyway until the server reports running, for a clean stop().
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server_->is_running()) {
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("fake-llm: server did not start");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port_;
}

void FakeLlmServer::stop() {
  if (!thread_.joinable()) return;
  handler_->stopping = true;
  server_->stop();
  thread_.join();
}

void FakeLlmServer::restart_after(double down_s) {
  stop();
  if (restarter_.joinable()) restarter_.join();
  int port = port_;
  restarter_ = std::thread([this, port, down_s] {
    std::this_thread::sleep_for(std::chrono::duration<double>(down_s));
    start(port);
  });
}

std::string FakeLlmServer::url() const { return fmt::format("http://127.0.0.1:{}", port_); }

void FakeLlmServer::set_script(Script script) { handler_->set_script(std::move(script)); }
void FakeLlmServer::reset() { handler_->reset(); }
Stats FakeLlmServer::stats() const { return handler_->stats(); }
std::vector<RecordedRequest> FakeLlmServer::requests() const { return handler_->requests(); }

}  // namespace fake_llm
