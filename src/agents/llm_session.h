// One run's access to the models: a chat client per agent role, the record of every answer (so a
// resumed run replays instead of calling again), usage and cost totals, and a stop switch that the
// budget checks flip. Thread-safe: agents call it from several threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "llm/client.h"

namespace agents {

// One model call as recorded in the run store.
struct CallRecord {
  std::string agent, model, tag, request_hash;
  bool ok = false;                 // the call returned an answer (it may still be unparseable)
  std::string text, error;         // the answer, or why there is none
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0, latency_s = 0;
  int attempts = 0;
  std::string raw;
  std::string prompt;              // the user message (kept for the run's history)
};

// Where answers are recorded. `find` returns only answered calls (ok == true): a call that failed
// is tried again on resume, since the endpoint may be back.
class CallJournal {
 public:
  virtual ~CallJournal() = default;
  virtual std::optional<CallRecord> find_call(const std::string& request_hash) = 0;
  virtual void record_call(const CallRecord& record) = 0;  // committed before it returns
};

struct Usage {
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;
  int64_t calls = 0, failed_calls = 0, replayed_calls = 0;
  int64_t tokens() const { return input_tokens + output_tokens; }
};
Usage operator-(const Usage& a, const Usage& b);
Usage operator+(const Usage& a, const Usage& b);

class LlmSession {
 public:
  struct Role {
    std::shared_ptr<llm::ChatClient> client;
    llm::EndpointConfig endpoint;  // model name, temperature, max tokens
  };
  // `journal` may be null (nothing recorded, nothing replayed).
  LlmSession(std::map<std::string, Role> roles, CallJournal* journal);

  // Calls the model of `agent` ("planner", "executor", "summarizer", "fixer"), or replays the
  // recorded answer of the same (agent, tag, prompt). Never throws for model failures: the record
  // says ok == false with the reason. Throws std::invalid_argument for an unknown agent.
  CallRecord call(const std::string& agent, const std::string& tag, const std::string& system_prompt,
                  const std::string& user_prompt);

  Usage usage() const;
  void add_usage(const Usage& usage);  // restores the totals of a resumed run
  // After stop(), calls return ok == false with error "stopped" without reaching the model.
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_; }

 private:
  void account(const CallRecord& record, bool replayed);

  std::map<std::string, Role> roles_;
  CallJournal* journal_;
  mutable std::mutex mutex_;
  Usage usage_;
  std::atomic<bool> stopped_{false};
};

}  // namespace agents
