// A scripted fake LLM server on 127.0.0.1 (ephemeral port) for tests: it speaks both the
// OpenAI-compatible /v1/chat/completions and the Anthropic /v1/messages shapes, serves the
// replies of a Script in order, and counts what it was asked.
//
//   fake_llm::FakeLlmServer server(fake_llm::parse_script(yaml, "test", ""));
//   server.start();                     // background threads; stop() or the destructor ends them
//   client_config.url = server.url();   // "http://127.0.0.1:PORT"
//   ... server.stats().requests ...     // also served as JSON at GET /stats
//
// Other endpoints: POST /script (replace the script, body = YAML/JSON), POST /reset (zero the
// counters and rewind every rule). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_llm_script.h"

namespace httplib {
class Server;
}

namespace fake_llm {

struct RecordedRequest {
  std::string path, body;
  std::map<std::string, std::string> headers;  // lower-case names
};

struct Stats {
  int64_t requests = 0;  // chat requests (both APIs), whatever the reply
  std::map<std::string, int64_t> by_rule, by_model, by_status;
  int64_t unmatched = 0;
  // Usage reported in 2xx replies with text (what a client should have accounted).
  int64_t answered = 0, input_tokens = 0, output_tokens = 0, cached_tokens = 0;
  int max_in_flight = 0;
};

std::string stats_json(const Stats& stats);

// Path of the built accelopt-fake-llm executable (same server, as a process: --script FILE
// [--port N] [--port-file FILE]; prints its URL; stops on SIGTERM).
const char* standalone_binary();

// An agents config file (docs/config.md) pointing planner, executor, summarizer and fixer at
// `url` with models "fake-planner", "fake-executor", ... (match them with a rule's `model:`),
// prices of 1 and 2 USD per million input/output tokens, short backoffs and `timeout_s`.
std::string agents_config_yaml(const std::string& url, double timeout_s = 5);

class FakeLlmServer {
 public:
  explicit FakeLlmServer(Script script);
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  // Binds 127.0.0.1:port (0 = ephemeral) and serves in the background; returns the port. A
  // stopped server may start again (same script and counters).
  int start(int port = 0);
  void stop();
  // An endpoint that restarts: stops now (connections are refused) and starts again on the same
  // port after `down_s` seconds, in the background.
  void restart_after(double down_s);
  int port() const { return port_; }
  std::string url() const;

  void set_script(Script script);
  void reset();
  Stats stats() const;
  std::vector<RecordedRequest> requests() const;

 private:
  class Handler;
  std::unique_ptr<Handler> handler_;
  void make_server();

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_, restarter_;
  int port_ = 0;
};

}  // namespace fake_llm
