#include "agents/llm_session.h"

#include <stdexcept>

#include <fmt/core.h>

#include "base/content_hash.h"

namespace agents {

namespace {

// Everything that determines the answer of one request, sampling settings included: a run
// resumed with another temperature or max_tokens asks again instead of replaying answers given
// under the old settings. (Keys stored before run.db schema 4 left the settings out; the
// migration sets them apart, store/schema.cpp.)
std::string request_hash(const llm::EndpointConfig& endpoint, const CallSpec& spec, const std::string& tag, int n) {
  return base::content_hash({"request/2", spec.agent, endpoint.model, tag, spec.system_prompt, spec.user_prompt,
                             endpoint.extra_json, std::to_string(n), fmt::format("{}", endpoint.temperature),
                             std::to_string(endpoint.max_tokens)});
}

std::string replay_key(const CallSpec& spec, const std::string& site) {
  std::string inputs;
  for (const auto& input : spec.replay_inputs) inputs += std::to_string(input.size()) + ":" + input;
  return base::content_hash({"replay/1", spec.agent, site, inputs});
}

void copy_outcome(CallRecord& to, const CallRecord& from) {
  to.model = from.model;
  to.ok = from.ok;
  to.text = from.text;
  to.error = from.error;
  to.error_kind = from.error_kind;
  to.http_status = from.http_status;
  to.input_tokens = from.input_tokens;
  to.output_tokens = from.output_tokens;
  to.cached_input_tokens = from.cached_input_tokens;
  to.cost_usd = from.cost_usd;
  to.latency_s = from.latency_s;
  to.attempts = from.attempts;
  to.raw = from.raw;
  to.finish_reason = from.finish_reason;
}

}  // namespace

LlmSession::LlmSession(std::map<std::string, Role> roles, CallJournal* journal, RecordedAnswers* recorded)
    : roles_(std::move(roles)), journal_(journal), recorded_(recorded) {}

const LlmSession::Role& LlmSession::role(const std::string& agent) const {
  auto found = roles_.find(agent);
  if (found == roles_.end() || (!found->second.client && !recorded_))
    throw std::invalid_argument(fmt::format("no model configured for the {} agent", agent));
  return found->second;
}

CallRecord LlmSession::prepare(const CallSpec& spec, const std::string& tag, const std::string& site, int sample,
                               int n) const {
  const Role& r = role(spec.agent);
  CallRecord record;
  record.agent = spec.agent;
  record.model = r.endpoint.model;
  record.tag = tag;
  record.sample = sample;
  record.prompt = spec.user_prompt;
  record.request_hash = request_hash(r.endpoint, spec, tag, n);
  record.replay_key = replay_key(spec, site);
  return record;
}

CallRecord LlmSession::call(const CallSpec& spec) {
  std::string site = spec.site.empty() ? spec.tag : spec.site;
  return ask(spec, spec.purpose, {prepare(spec, spec.tag, site, 0, 1)}, 1).front();
}

CallRecord LlmSession::call(const std::string& agent, const std::string& tag, const std::string& system_prompt,
                            const std::string& user_prompt) {
  CallSpec spec;
  spec.agent = agent;
  spec.tag = tag;
  spec.system_prompt = system_prompt;
  spec.user_prompt = user_prompt;
  return call(spec);
}

std::vector<CallRecord> LlmSession::call_samples(const CallSpec& spec, int k) {
  std::string site = spec.site.empty() ? spec.tag : spec.site;
  if (k > 1 && role(spec.agent).endpoint.n_samples) {
    std::vector<CallRecord> records;
    for (int i = 0; i < k; ++i)
      records.push_back(prepare(spec, fmt::format("{}/n{}", spec.tag, k), fmt::format("{}/k{}", site, i), i, k));
    return ask(spec, spec.purpose, std::move(records), k);
  }
  std::vector<CallRecord> out;
  bool admitted = false;  // the branch is open once one of its samples got through the gate
  for (int i = 0; i < k; ++i) {
    CallPurpose purpose = admitted ? CallPurpose::Plain : spec.purpose;
    CallRecord record = prepare(spec, fmt::format("{}/k{}", spec.tag, i), fmt::format("{}/k{}", site, i), 0, 1);
    out.push_back(ask(spec, purpose, {std::move(record)}, 1).front());
    admitted = admitted || out.back().error_kind != kRefusedByBudget;
  }
  return out;
}

std::vector<CallRecord> LlmSession::ask(const CallSpec& spec, CallPurpose purpose, std::vector<CallRecord> records,
                                        int n) {
  if (journal_) {  // resume: this run already has the answers
    std::vector<CallRecord> found;
    for (const auto& record : records) {
      auto previous = journal_->find_call(record.request_hash, record.sample);
      if (!previous) break;
      previous->tag = record.tag;
      previous->sample = record.sample;
      previous->replay_key = record.replay_key;
      found.push_back(std::move(*previous));
    }
    if (found.size() == records.size()) {
      for (const auto& record : found) account(record, /*replayed=*/true);
      return found;
    }
  }
  if (stopped_) {  // not a model failure: neither recorded nor counted
    refuse(records, kStopped, "stopped");
    return records;
  }
  if (recorded_) return replay(std::move(records));
  const Role& r = role(spec.agent);
  SpendGate::Ticket ticket = gate_.admit(spec.agent, purpose, [this] { return usage(); });
  if (!ticket.admitted) {
    refuse(records, kRefusedByBudget, "not sent: the call would pass the run's budget (--budget-usd / --budget-tokens)");
    budget_refused_ = true;
    if (journal_)  // kept so that a replay refuses it too
      for (const auto& record : records) journal_->record_call(record);
    return records;
  }
  llm::ChatRequest request;
  if (!spec.system_prompt.empty()) request.messages.push_back({"system", spec.system_prompt});
  request.messages.push_back({"user", spec.user_prompt, spec.cache_prefix});
  request.temperature = r.endpoint.temperature;
  request.max_tokens = r.endpoint.max_tokens;
  request.n = n;
  request.route_key = records.front().request_hash;
  try {
    llm::ChatResponse response = r.client->chat(request);
    for (auto& record : records) {
      record.model = response.endpoint_model.empty() ? record.model : response.endpoint_model;
      record.attempts = response.attempts;
      record.latency_s = response.latency_s;
      record.finish_reason = response.finish_reason;
      record.http_status = 200;
      size_t i = static_cast<size_t>(record.sample);
      if (i < response.samples.size() || (i == 0 && response.samples.empty())) {
        record.ok = true;
        record.text = response.samples.empty() ? response.text : response.samples[i];
      } else {
        record.error = fmt::format("the answer has {} of the {} samples asked for", response.samples.size(), n);
        record.error_kind = llm::to_string(llm::LlmError::Kind::BadResponse);
      }
    }
    // The request's usage and body go with its first sample.
    records.front().input_tokens = response.input_tokens;
    records.front().output_tokens = response.output_tokens;
    records.front().cached_input_tokens = response.cached_input_tokens;
    records.front().cost_usd = response.cost_usd;
    records.front().raw = response.raw;
  } catch (const llm::LlmError& error) {
    for (auto& record : records) {
      record.error = error.what();
      record.error_kind = llm::to_string(error.kind);
      record.attempts = error.attempts;
      record.latency_s = error.latency_s;
      record.http_status = error.http_status;
      record.raw = error.raw;
      if (!error.model.empty()) record.model = error.model;
    }
  } catch (const std::exception& error) {  // a client bug: a failed sample all the same
    for (auto& record : records) {
      record.error = error.what();
      record.error_kind = "internal";
    }
  }
  finish(records, /*replayed=*/false);
  gate_.settle(ticket);  // after accounting: a waiting call sees the real cost
  return records;
}

std::vector<CallRecord> LlmSession::replay(std::vector<CallRecord> records) {
  for (auto& record : records) {
    auto found = recorded_->find_recorded(record.request_hash, record.replay_key, record.sample);
    if (!found) {
      std::string why = fmt::format(
          "{} has no recorded answer for the {} call at {} (request {}, inputs {}): the replayed search asked "
          "something the recorded run did not",
          recorded_->source(), record.agent, record.tag, record.request_hash.substr(0, 12),
          record.replay_key.substr(0, 12));
      {
        std::lock_guard lock(mutex_);
        if (!replay_missing_) replay_missing_ = why;
      }
      stop();
      record.error = why;
      record.error_kind = kNotRecorded;
      continue;
    }
    copy_outcome(record, *found);
    record.origin = "replay";
    if (record.error_kind == kRefusedByBudget) budget_refused_ = true;
  }
  std::vector<CallRecord> served;
  for (const auto& record : records)
    if (record.error_kind != kNotRecorded) served.push_back(record);
  finish(served, /*replayed=*/true);
  for (auto& record : records)
    for (const auto& done : served)
      if (done.tag == record.tag && done.sample == record.sample) record = done;
  return records;
}

void LlmSession::refuse(std::vector<CallRecord>& records, const char* kind, const std::string& why) {
  for (auto& record : records) {
    record.ok = false;
    record.error = why;
    record.error_kind = kind;
  }
}

void LlmSession::finish(std::vector<CallRecord>& records, bool replayed) {
  for (const auto& record : records) {
    if (journal_) journal_->record_call(record);
    account(record, replayed);
  }
}

void LlmSession::account(const CallRecord& record, bool replayed) {
  if (!record.counted() || record.sample > 0) return;  // a request counts once, with its first sample
  UsageTotals call;
  call.calls = 1;
  call.failed_calls = record.ok ? 0 : 1;
  call.replayed_calls = replayed ? 1 : 0;
  call.input_tokens = record.input_tokens;
  call.output_tokens = record.output_tokens;
  call.cached_input_tokens = record.cached_input_tokens;
  call.cost_usd = record.cost_usd;
  std::lock_guard lock(mutex_);
  static_cast<UsageTotals&>(usage_) = usage_.totals() + call;
  usage_.by_agent[record.agent] = usage_.by_agent[record.agent] + call;
  usage_.by_model[record.model] = usage_.by_model[record.model] + call;
  if (!record.ok) last_error_ = record.error;
}

Usage LlmSession::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

void LlmSession::add_usage(const Usage& usage) {
  std::lock_guard lock(mutex_);
  usage_ = usage_ + usage;
}

std::optional<std::string> LlmSession::replay_missing() const {
  std::lock_guard lock(mutex_);
  return replay_missing_;
}

std::string LlmSession::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

}  // namespace agents
