// Typed rows of the run store (see run_store.h). JSON-valued fields are kept as strings: the
// store does not interpret them, the search loop and the CLI do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace store {

struct RunRecord {
  int64_t id = 0;
  std::string name;         // e.g. the run directory's name
  std::string config_json;  // the whole run configuration, as given
  std::string status;       // "running" | "finished" | "failed" | "cancelled"
  std::string created_at;   // UTC, ISO 8601 (set by the store)
};

// One round of the beam search on one task. A round is "completed" once its history (plans,
// kernel links, new beam, memory items) has been written.
struct RoundRecord {
  int64_t run_id = 0;
  std::string task;
  int round = 0;
  std::string status;        // "started" | "completed"
  std::string summary_json;  // free-form (best latency, counts, ...)
};

// Beam membership: kernel `kernel_id` is member `rank` of the beam after round `round`.
struct CandidateRecord {
  int64_t run_id = 0;
  int round = 0;
  std::string task;
  int rank = 0;
  int64_t kernel_id = 0;
};

struct PlanRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  int round = 0;
  std::string task;
  int64_t base_kernel_id = 0;  // the candidate the plan rewrites (0 = none)
  int64_t llm_call_id = 0;     // the call that produced it (0 = none, e.g. built-in agent)
  std::string text;
};

struct KernelRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string task;
  std::string hash;              // base::content_hash(text) unless the caller sets it
  std::string text;
  int64_t parent_kernel_id = 0;  // 0 = a baseline kernel
  int64_t plan_id = 0;           // 0 = not produced from a plan
  int64_t llm_call_id = 0;
  int round = -1;                // round that produced it (-1 = baseline)
};

struct EvaluationRecord {
  int64_t id = 0;
  int64_t kernel_id = 0;
  std::string status;            // eval::Status as text ("ok", "wrong", ...)
  std::string diagnostics;       // rendered diagnostics
  std::string profile_json;      // the neuron-profile-style summary ("" = no profile)
  std::optional<double> latency_ms;
  std::string evaluation_json;   // the whole evaluation (per-seed results etc.), for replay
};

// The search state saved after a round (the resume point), numbered in run order.
struct CheckpointRecord {
  int64_t run_id = 0;
  int seq = 0;
  std::string state_json;
};

struct LlmCallRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string agent;             // "planner" | "executor" | "summarizer" | "fixer"
  std::string model;             // the configured model that answered (or failed last)
  std::string request_hash;      // the session's key of the request (agents/llm_session.cpp)
  int sample = 0;                // index of this sample among the samples of one request (`n`)
  int round = -1;
  int64_t input_tokens = 0, output_tokens = 0;
  int64_t cached_input_tokens = 0;  // part of input_tokens read from the provider's cache
  double cost_usd = 0;
  double latency_s = 0;          // the whole call, retries and waits included
  int attempts = 0;              // HTTP attempts made
  std::string response_text;     // the answer's text (empty when `error` is set)
  std::string raw_response;      // the server's last body (the event stream when streamed)
  std::string error;             // "" = answered
  // Added in schema 3 ("" / 0 in rows written before):
  std::string tag;               // the call site, e.g. "silu/r3/c1/p4/k0"
  std::string replay_key;        // the call's inputs apart from judged figures (--replay)
  std::string error_kind;        // "unavailable", "timeout", "rate-limited", "bad-request", "auth",
                                 // "bad-response", "cancelled", "budget" (refused by the gate, not sent)
  long http_status = 0;          // the last HTTP status (0 = no HTTP answer)
  std::string finish_reason;
  std::string origin;            // "" = asked in this run, "replay" = served from a recorded run
};

struct MemoryItemRecord {
  int64_t id = 0;
  int64_t run_id = 0;
  int round = 0;
  std::string item_json;
};

// Calls refused by the budget gate (error_kind "budget") were never sent and are not counted.
struct LlmTotals {
  int64_t calls = 0, failed_calls = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;
};

}  // namespace store
