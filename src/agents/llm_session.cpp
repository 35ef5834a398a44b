#include "agents/llm_session.h"

#include <stdexcept>

#include <fmt/core.h>

#include "agents/content_hash.h"

namespace agents {

Usage operator-(const Usage& a, const Usage& b) {
  return {a.input_tokens - b.input_tokens, a.output_tokens - b.output_tokens, a.cost_usd - b.cost_usd,
          a.calls - b.calls,               a.failed_calls - b.failed_calls,   a.replayed_calls - b.replayed_calls};
}

Usage operator+(const Usage& a, const Usage& b) {
  return {a.input_tokens + b.input_tokens, a.output_tokens + b.output_tokens, a.cost_usd + b.cost_usd,
          a.calls + b.calls,               a.failed_calls + b.failed_calls,   a.replayed_calls + b.replayed_calls};
}

LlmSession::LlmSession(std::map<std::string, Role> roles, CallJournal* journal)
    : roles_(std::move(roles)), journal_(journal) {}

CallRecord LlmSession::call(const std::string& agent, const std::string& tag, const std::string& system_prompt,
                            const std::string& user_prompt) {
  auto role = roles_.find(agent);
  if (role == roles_.end() || !role->second.client)
    throw std::invalid_argument(fmt::format("no model configured for the {} agent", agent));
  const auto& endpoint = role->second.endpoint;
  CallRecord record;
  record.agent = agent;
  record.model = endpoint.model;
  record.tag = tag;
  record.prompt = user_prompt;
  record.request_hash = content_hash({agent, endpoint.model, tag, system_prompt, user_prompt});
  if (journal_) {
    if (auto previous = journal_->find_call(record.request_hash)) {
      account(*previous, /*replayed=*/true);
      return *previous;
    }
  }
  if (stopped_) {
    record.error = "stopped";
    return record;  // not a model failure: neither recorded nor counted
  }
  llm::ChatRequest request;
  if (!system_prompt.empty()) request.messages.push_back({"system", system_prompt});
  request.messages.push_back({"user", user_prompt});
  request.temperature = endpoint.temperature;
  request.max_tokens = endpoint.max_tokens;
  try {
    llm::ChatResponse response = role->second.client->chat(request);
    record.ok = true;
    record.text = response.text;
    record.input_tokens = response.input_tokens;
    record.output_tokens = response.output_tokens;
    record.cost_usd = response.cost_usd;
    record.latency_s = response.latency_s;
    record.attempts = response.attempts;
    record.raw = response.raw;
  } catch (const std::exception& e) {  // llm::LlmError, or a client bug: a failed sample either way
    record.error = e.what();
  }
  if (journal_) journal_->record_call(record);
  account(record, /*replayed=*/false);
  return record;
}

void LlmSession::account(const CallRecord& record, bool replayed) {
  std::lock_guard lock(mutex_);
  usage_.calls++;
  if (!record.ok) usage_.failed_calls++;
  if (replayed) usage_.replayed_calls++;
  usage_.input_tokens += record.input_tokens;
  usage_.output_tokens += record.output_tokens;
  usage_.cost_usd += record.cost_usd;
}

Usage LlmSession::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

void LlmSession::add_usage(const Usage& usage) {
  std::lock_guard lock(mutex_);
  usage_ = usage_ + usage;
}

}  // namespace agents
