#include "search/store_journal.h"

#include <nlohmann/json.hpp>

namespace search {

namespace {

// Tags look like "silu/r3/c1/p4/k0": the round is the number after "/r".
int round_of(const std::string& tag) {
  size_t pos = tag.find("/r");
  if (pos == std::string::npos) return -1;
  try {
    return std::stoi(tag.substr(pos + 2));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

StoreJournal::StoreJournal(store::RunStore& store, int64_t run_id)
    : store_(store), run_id_(run_id), sequence_(store.last_completed_round(run_id).value_or(0)) {}

std::optional<agents::CallRecord> StoreJournal::find_call(const std::string& request_hash) {
  auto found = store_.find_llm_call(run_id_, request_hash, 0);
  if (!found || !found->error.empty()) return std::nullopt;
  agents::CallRecord r;
  r.agent = found->agent;
  r.model = found->model;
  r.request_hash = found->request_hash;
  r.ok = true;
  r.text = found->response_text;
  r.raw = found->raw_response;
  r.input_tokens = found->input_tokens;
  r.output_tokens = found->output_tokens;
  r.cost_usd = found->cost_usd;
  r.latency_s = found->latency_s;
  r.attempts = found->attempts;
  return r;
}

void StoreJournal::record_call(const agents::CallRecord& r) {
  store::LlmCallRecord row;
  row.run_id = run_id_;
  row.agent = r.agent;
  row.model = r.model;
  row.request_hash = r.request_hash;
  row.sample = 0;  // the sample index is part of the tag, hence of the hash
  row.round = round_of(r.tag);
  row.input_tokens = r.input_tokens;
  row.output_tokens = r.output_tokens;
  row.cost_usd = r.cost_usd;
  row.latency_s = r.latency_s;
  row.attempts = r.attempts;
  row.response_text = r.text;
  row.raw_response = r.raw;
  row.error = r.ok ? "" : (r.error.empty() ? "failed" : r.error);
  store_.add_llm_call(row);
}

std::optional<eval::Evaluation> StoreJournal::find_evaluation(const std::string& task, const std::string& key) {
  auto kernel = store_.find_kernel_by_hash(run_id_, task, key);
  if (!kernel) return std::nullopt;
  auto row = store_.find_evaluation(kernel->id);
  if (!row) return std::nullopt;
  // The whole Evaluation is kept as JSON in profile_json (see record_evaluation).
  auto j = nlohmann::json::parse(row->profile_json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("status")) return std::nullopt;
  return eval::evaluation_from_json(j);
}

void StoreJournal::record_evaluation(const std::string& key, const std::string& task, const std::string& kernel_text,
                                     const eval::Evaluation& evaluation) {
  store::KernelRecord kernel;
  kernel.run_id = run_id_;
  kernel.task = task;
  kernel.hash = key;
  kernel.text = kernel_text;
  int64_t kernel_id = store_.add_kernel(kernel);
  store::EvaluationRecord row;
  row.kernel_id = kernel_id;
  row.status = eval::to_string(evaluation.status);
  for (const auto& d : evaluation.diagnostics) row.diagnostics += d + "\n";
  row.profile_json = eval::to_json(evaluation).dump();
  if (evaluation.profile) row.latency_ms = evaluation.latency_ms();
  store_.add_evaluation(row);
}

void StoreJournal::record_checkpoint(const std::string& state_json) {
  int round = ++sequence_;
  store_.begin_round(run_id_, round);
  store_.complete_round(run_id_, round, state_json);
}

std::string StoreJournal::last_checkpoint() {
  auto last = store_.last_completed_round(run_id_);
  if (!last) return "";
  for (const auto& round : store_.rounds(run_id_))
    if (round.round == *last) return round.summary_json;
  return "";
}

void StoreJournal::record_memory_item(int round, const std::string& item_json) {
  store_.add_memory_item({0, run_id_, round, item_json});
}

}  // namespace search
