#include "search/store_journal.h"

#include <nlohmann/json.hpp>

#include "agents/memory.h"
#include "search/kernel_evaluator.h"

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

std::string plan_text(const agents::Plan& plan) {
  if (plan.title.empty() || plan.text.rfind(plan.title, 0) == 0) return plan.text;
  return plan.title + "\n\n" + plan.text;
}

}  // namespace

StoreJournal::StoreJournal(store::RunStore& store, int64_t run_id) : store_(store), run_id_(run_id) {}

agents::CallRecord call_from_row(const store::LlmCallRecord& row) {
  agents::CallRecord r;
  r.agent = row.agent;
  r.model = row.model;
  r.tag = row.tag;
  r.request_hash = row.request_hash;
  r.replay_key = row.replay_key;
  r.sample = row.sample;
  r.ok = row.error.empty();
  r.text = row.response_text;
  r.error = row.error;
  // Rows from before schema 3 have no kind: a failure of unknown kind.
  r.error_kind = r.ok ? "" : (row.error_kind.empty() ? "unknown" : row.error_kind);
  r.http_status = row.http_status;
  r.raw = row.raw_response;
  r.input_tokens = row.input_tokens;
  r.output_tokens = row.output_tokens;
  r.cached_input_tokens = row.cached_input_tokens;
  r.cost_usd = row.cost_usd;
  r.latency_s = row.latency_s;
  r.attempts = row.attempts;
  r.finish_reason = row.finish_reason;
  r.origin = row.origin;
  return r;
}

std::optional<agents::CallRecord> StoreJournal::find_call(const std::string& request_hash, int sample) {
  auto found = store_.find_llm_call(run_id_, request_hash, sample);
  if (!found || !found->error.empty()) return std::nullopt;
  return call_from_row(*found);
}

void StoreJournal::record_call(const agents::CallRecord& r) {
  store::LlmCallRecord row;
  row.run_id = run_id_;
  row.agent = r.agent;
  row.model = r.model;
  row.request_hash = r.request_hash;
  row.sample = r.sample;
  row.round = round_of(r.tag);
  row.input_tokens = r.input_tokens;
  row.output_tokens = r.output_tokens;
  row.cached_input_tokens = r.cached_input_tokens;
  row.cost_usd = r.cost_usd;
  row.latency_s = r.latency_s;
  row.attempts = r.attempts;
  row.response_text = r.text;
  row.raw_response = r.raw;
  row.error = r.ok ? "" : (r.error.empty() ? "failed" : r.error);
  row.tag = r.tag;
  row.replay_key = r.replay_key;
  row.error_kind = r.ok ? "" : r.error_kind;
  row.http_status = r.http_status;
  row.finish_reason = r.finish_reason;
  row.origin = r.origin;
  store_.add_llm_call(row);
}

double StoreJournal::seconds_after_last_checkpoint() { return store_.seconds_active_after_last_checkpoint(run_id_); }

StoreAnswers::StoreAnswers(store::RunStore& store, int64_t run_id, std::string source)
    : store_(store), run_id_(run_id), source_(std::move(source)) {}

std::optional<agents::CallRecord> StoreAnswers::find_recorded(const std::string& request_hash,
                                                              const std::string& replay_key, int sample) {
  auto row = store_.find_recorded_call(run_id_, request_hash, replay_key, sample);
  if (!row) return std::nullopt;
  return call_from_row(*row);
}

std::optional<eval::Evaluation> StoreJournal::find_evaluation(const std::string& task, const std::string& key) {
  auto kernel = store_.find_kernel_by_hash(run_id_, task, key);
  if (!kernel) return std::nullopt;
  auto row = store_.find_evaluation(kernel->id);
  if (!row) return std::nullopt;
  // Schema v1 stores kept the whole Evaluation in profile_json.
  const std::string& text = row->evaluation_json.empty() ? row->profile_json : row->evaluation_json;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("status")) return std::nullopt;
  return eval::evaluation_from_json(j);
}

void StoreJournal::store_evaluation(const std::string& task, const EvaluatedKernel& kernel) {
  store::KernelRecord row;
  row.run_id = run_id_;
  row.task = task;
  row.hash = kernel.key;
  row.text = kernel.kernel_text;
  int64_t kernel_id = store_.add_kernel(row);
  const eval::Evaluation& evaluation = kernel.evaluation;
  store::EvaluationRecord record;
  record.kernel_id = kernel_id;
  record.status = eval::to_string(evaluation.status);
  for (const auto& d : evaluation.diagnostics) record.diagnostics += d + "\n";
  if (evaluation.profile) {
    record.profile_json = trn::to_json(*evaluation.profile).dump();
    record.latency_ms = evaluation.latency_ms();
  }
  record.evaluation_json = eval::to_json_text(evaluation);
  store_.add_evaluation(record);
}

void StoreJournal::record_evaluation(const std::string& key, const std::string& task, const std::string& kernel_text,
                                     const eval::Evaluation& evaluation) {
  store_.transaction([&] { store_evaluation(task, {key, kernel_text, evaluation}); });
}

void StoreJournal::record_evaluations(const std::string& task, const std::vector<EvaluatedKernel>& batch) {
  store_.transaction([&] {
    for (const auto& kernel : batch) store_evaluation(task, kernel);
  });
}

int64_t StoreJournal::kernel_id(const TaskSpec& task, const std::string& text, int round) {
  store::KernelRecord row;
  row.run_id = run_id_;
  row.task = task.info.name;
  row.hash = evaluation_key(task, text);
  row.text = text;
  row.round = round;
  return store_.add_kernel(row);  // the existing row's id when it was evaluated
}

void StoreJournal::record_round(const RoundHistory& h) {
  const TaskSpec& task = *h.task;
  const std::string& name = task.info.name;
  store_.transaction([&] {
    // A round is stored whole or not at all; a round resumed after a crash that came between its
    // history and its checkpoint is run again (from replayed answers) and must not be stored twice.
    if (store_.last_completed_round(run_id_, name).value_or(0) >= h.round) return;
    store_.begin_round(run_id_, name, h.round);
    std::vector<int64_t> candidate_ids;
    for (const auto& candidate : h.beam_in) candidate_ids.push_back(kernel_id(task, candidate.kernel_text, -1));
    if (h.round == 1) {  // the beam the search starts from (the baseline) is round 0's
      std::vector<store::CandidateRecord> start;
      for (size_t rank = 0; rank < candidate_ids.size(); ++rank)
        start.push_back({run_id_, 0, name, static_cast<int>(rank), candidate_ids[rank]});
      store_.set_beam(run_id_, 0, start);
    }
    std::vector<std::vector<int64_t>> plan_ids(h.plans.size());
    for (size_t c = 0; c < h.plans.size() && c < candidate_ids.size(); ++c)
      for (const auto& plan : h.plans[c])
        plan_ids[c].push_back(store_.add_plan({0, run_id_, h.round, name, candidate_ids[c], 0, plan_text(plan)}));
    for (const auto& result : h.results) {
      if (result.code.empty() || result.candidate >= plan_ids.size() || result.plan >= plan_ids[result.candidate].size())
        continue;  // a failed sample has no kernel
      int64_t parent = candidate_ids[result.candidate];
      int64_t plan = plan_ids[result.candidate][result.plan];
      // The fixer's versions descend from the draft they repaired: candidate -> draft -> fix 1 -> ...
      std::vector<std::string> versions = result.replaced_codes;
      versions.push_back(result.code);
      for (const auto& text : versions) {
        int64_t id = kernel_id(task, text, h.round);
        if (id != parent) store_.set_kernel_origin(id, parent, plan, 0, h.round);
        parent = id;
      }
    }
    std::vector<store::CandidateRecord> beam;
    for (size_t rank = 0; rank < h.beam_out.size(); ++rank)
      beam.push_back({run_id_, h.round, name, static_cast<int>(rank), kernel_id(task, h.beam_out[rank].kernel_text, h.round)});
    store_.set_beam(run_id_, h.round, beam);
    // new_items is newest first; stored oldest first so that ids follow the memory's order.
    for (auto it = h.new_items.rbegin(); it != h.new_items.rend(); ++it)
      store_.add_memory_item({0, run_id_, h.round, agents::to_json(*it).dump()});
    store_.complete_round(run_id_, name, h.round, to_json(h.stats).dump());
  });
}

void StoreJournal::record_checkpoint(const std::string& state_json) { store_.add_checkpoint(run_id_, state_json); }

std::string StoreJournal::last_checkpoint() {
  auto last = store_.last_checkpoint(run_id_);
  return last ? last->state_json : "";
}

}  // namespace search
