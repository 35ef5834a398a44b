// One run's access to the models: a chat client per agent role, the record of every answer (so a
// resumed run replays instead of calling again, and `--replay` serves a recorded run's answers
// without any endpoint), usage and cost totals by agent and model, the budget gate that admits
// calls (spend_gate.h), and a stop switch. Thread-safe: agents call it from several threads.
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

#include "agents/spend_gate.h"
#include "agents/usage.h"
#include "llm/client.h"

namespace agents {

// Why a call has no answer, beyond the client's llm::LlmError kinds ("unavailable", "timeout",
// "rate-limited", "bad-request", "auth", "bad-response", "cancelled").
inline constexpr const char* kRefusedByBudget = "budget";           // the gate did not admit it
inline constexpr const char* kNotRecorded = "replay-missing";        // --replay: no recorded answer
inline constexpr const char* kStopped = "stopped";                   // after stop(): not sent

// One model call as recorded in the run store.
struct CallRecord {
  std::string agent, model, tag, request_hash;
  std::string replay_key;          // the call's inputs apart from judged figures (see CallSpec)
  int sample = 0;                  // index among the samples of one request (`n`)
  bool ok = false;                 // the call returned an answer (it may still be unparseable)
  std::string text, error;         // the answer, or why there is none
  std::string error_kind;          // "" when ok; an LlmError kind name or one of the k* above
  long http_status = 0;            // last HTTP status (0: none)
  int64_t input_tokens = 0, output_tokens = 0, cached_input_tokens = 0;
  double cost_usd = 0, latency_s = 0;
  int attempts = 0;
  std::string raw;                 // the server's last body (the event stream when streamed)
  std::string finish_reason;
  std::string prompt;              // the user message (kept for the run's history)
  std::string origin;              // "" = asked in this run; "replay" = served from a recorded run
  // A model call that counts in usage (a refused or unserved call never reached a model).
  bool counted() const { return error_kind != kRefusedByBudget && error_kind != kNotRecorded && error_kind != kStopped; }
};

// Where answers are recorded. `find_call` returns only answered calls (ok == true): a call that
// failed is tried again on resume, since the endpoint may be back.
class CallJournal {
 public:
  virtual ~CallJournal() = default;
  virtual std::optional<CallRecord> find_call(const std::string& request_hash, int sample = 0) = 0;
  virtual void record_call(const CallRecord& record) = 0;  // committed before it returns
};

// A recorded run's calls, for `optimize --replay`.
class RecordedAnswers {
 public:
  virtual ~RecordedAnswers() = default;
  // The recorded call for a request: by exact fingerprint and sample first, then by replay key.
  // An answered call wins over a failed or refused one. nullopt: the recorded run never made it.
  virtual std::optional<CallRecord> find_recorded(const std::string& request_hash, const std::string& replay_key,
                                                  int sample) = 0;
  virtual std::string source() const = 0;  // the recorded run, for messages
};

// One call as an agent asks for it.
struct CallSpec {
  std::string agent;  // "planner", "executor", "summarizer", "fixer"
  std::string tag;    // the call site, unique in the run ("silu/r3/c1/p4/k0"): keys resume
  // The call site without what the judge decides (the candidate's rank in the beam, the pair's
  // rank): "silu/r3/p4/k0". With `replay_inputs` (kernel and plan texts, never latencies or
  // profiles) it keys --replay, so a replay with another simulator or arch still finds the
  // answers to the same questions although its prompts quote other figures. "" = `tag`.
  std::string site;
  std::vector<std::string> replay_inputs;
  std::string system_prompt, user_prompt;
  size_t cache_prefix = 0;  // bytes of user_prompt that repeat across calls (guide, reference)
  CallPurpose purpose = CallPurpose::Plain;
};

class LlmSession {
 public:
  struct Role {
    std::shared_ptr<llm::ChatClient> client;  // null when replaying (no endpoint is called)
    llm::EndpointConfig endpoint;             // model name, temperature, max tokens, n_samples
  };
  // `journal` may be null (nothing recorded, nothing resumed). With `recorded`, every answer comes
  // from that recorded run and no model is called.
  LlmSession(std::map<std::string, Role> roles, CallJournal* journal, RecordedAnswers* recorded = nullptr);

  // Calls the model of spec.agent, or replays the recorded answer. Never throws for model
  // failures: the record says ok == false with the reason. Throws std::invalid_argument for an
  // agent without a model.
  CallRecord call(const CallSpec& spec);
  CallRecord call(const std::string& agent, const std::string& tag, const std::string& system_prompt,
                  const std::string& user_prompt);
  // `k` samples of one prompt: one request with n = k when the agent's endpoint takes `n`, else k
  // calls tagged tag + "/k0" ... "/k{k-1}". The first sample carries spec.purpose, the others are
  // Plain (they belong to the same branch).
  std::vector<CallRecord> call_samples(const CallSpec& spec, int k);

  Usage usage() const;
  void add_usage(const Usage& usage);  // restores the totals of a resumed run

  // The budget gate (spend_gate.h).
  void set_spend_limits(SpendLimits limits) { gate_.set_limits(limits); }
  void set_curation_pairs(int max_pairs) { gate_.set_curation_pairs(max_pairs); }
  // Whether the gate refused a call since the last clear: the round ends like a budget stop.
  bool budget_refused() const { return budget_refused_; }
  void clear_budget_refused() { budget_refused_ = false; }

  // After stop(), calls return ok == false with error "stopped" without reaching the model.
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_; }

  bool replaying() const { return recorded_ != nullptr; }
  // The first request a replay found no recorded answer for (the replay has diverged).
  std::optional<std::string> replay_missing() const;
  // The error of the latest failed call ("" when none failed).
  std::string last_error() const;

 private:
  const Role& role(const std::string& agent) const;
  CallRecord prepare(const CallSpec& spec, const std::string& tag, const std::string& site, int sample, int n) const;
  std::vector<CallRecord> ask(const CallSpec& spec, CallPurpose purpose, std::vector<CallRecord> records, int n);
  std::vector<CallRecord> replay(std::vector<CallRecord> records);
  void refuse(std::vector<CallRecord>& records, const char* kind, const std::string& why);
  void finish(std::vector<CallRecord>& records, bool replayed);
  void account(const CallRecord& record, bool replayed);

  std::map<std::string, Role> roles_;
  CallJournal* journal_;
  RecordedAnswers* recorded_;
  SpendGate gate_;
  mutable std::mutex mutex_;
  Usage usage_;
  std::string last_error_;
  std::optional<std::string> replay_missing_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> budget_refused_{false};
};

}  // namespace agents
