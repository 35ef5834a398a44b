// RunStore: the llm_calls table (run_store.h).
#include "store/database.h"
#include "store/run_store.h"

namespace store {
namespace {

using Lock = std::lock_guard<std::recursive_mutex>;

constexpr const char* kColumns =
    "id, run_id, agent, model, request_hash, sample, round, input_tokens, output_tokens, cost_usd, "
    "latency_s, attempts, response_text, raw_response, error, tag, replay_key, cached_input_tokens, error_kind, "
    "http_status, finish_reason, origin";

LlmCallRecord read_call(const Statement& row) {
  LlmCallRecord call;
  call.id = row.int64(0);
  call.run_id = row.int64(1);
  call.agent = row.text(2);
  call.model = row.text(3);
  call.request_hash = row.text(4);
  call.sample = static_cast<int>(row.int64(5));
  call.round = static_cast<int>(row.int64(6));
  call.input_tokens = row.int64(7);
  call.output_tokens = row.int64(8);
  call.cost_usd = row.real(9);
  call.latency_s = row.real(10);
  call.attempts = static_cast<int>(row.int64(11));
  call.response_text = row.text(12);
  call.raw_response = row.text(13);
  call.error = row.text(14);
  call.tag = row.text(15);
  call.replay_key = row.text(16);
  call.cached_input_tokens = row.int64(17);
  call.error_kind = row.text(18);
  call.http_status = static_cast<long>(row.int64(19));
  call.finish_reason = row.text(20);
  call.origin = row.text(21);
  return call;
}

std::string select(const std::string& where) { return std::string("SELECT ") + kColumns + " FROM llm_calls " + where; }

}  // namespace

int64_t RunStore::add_llm_call(const LlmCallRecord& call) {
  Lock lock(mutex_);
  Statement(*db_,
            "INSERT INTO llm_calls(run_id, agent, model, request_hash, sample, round, input_tokens, output_tokens, "
            "cost_usd, latency_s, attempts, response_text, raw_response, error, tag, replay_key, cached_input_tokens, "
            "error_kind, http_status, finish_reason, origin) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, call.run_id).bind(2, call.agent).bind(3, call.model).bind(4, call.request_hash)
      .bind(5, call.sample).bind(6, call.round).bind(7, call.input_tokens).bind(8, call.output_tokens)
      .bind(9, call.cost_usd).bind(10, call.latency_s).bind(11, call.attempts).bind(12, call.response_text)
      .bind(13, call.raw_response).bind(14, call.error).bind(15, call.tag).bind(16, call.replay_key)
      .bind(17, call.cached_input_tokens).bind(18, call.error_kind).bind(19, static_cast<int64_t>(call.http_status))
      .bind(20, call.finish_reason).bind(21, call.origin).run();
  return db_->last_insert_id();
}

std::optional<LlmCallRecord> RunStore::find_llm_call(int64_t run_id, const std::string& request_hash, int sample) {
  Lock lock(mutex_);
  Statement query(*db_, select("WHERE run_id = ? AND request_hash = ? AND sample = ? AND error = '' ORDER BY id LIMIT 1"));
  query.bind(1, run_id).bind(2, request_hash).bind(3, sample);
  if (!query.step()) return std::nullopt;
  return read_call(query);
}

std::optional<LlmCallRecord> RunStore::find_recorded_call(int64_t run_id, const std::string& request_hash,
                                                          const std::string& replay_key, int sample) {
  Lock lock(mutex_);
  {
    Statement exact(*db_, select("WHERE run_id = ? AND request_hash = ? AND sample = ? "
                                 "ORDER BY error = '' DESC, id DESC LIMIT 1"));
    exact.bind(1, run_id).bind(2, request_hash).bind(3, sample);
    if (exact.step()) return read_call(exact);
  }
  if (replay_key.empty()) return std::nullopt;
  Statement by_key(*db_, select("WHERE run_id = ? AND replay_key = ? ORDER BY error = '' DESC, id DESC LIMIT 1"));
  by_key.bind(1, run_id).bind(2, replay_key);
  if (!by_key.step()) return std::nullopt;
  return read_call(by_key);
}

std::vector<LlmCallRecord> RunStore::llm_calls(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_, select("WHERE run_id = ? ORDER BY id"));
  query.bind(1, run_id);
  std::vector<LlmCallRecord> out;
  while (query.step()) out.push_back(read_call(query));
  return out;
}

LlmTotals RunStore::llm_totals(int64_t run_id) {
  Lock lock(mutex_);
  Statement query(*db_,
                  "SELECT COUNT(*), COALESCE(SUM(error != ''), 0), COALESCE(SUM(input_tokens), 0), "
                  "COALESCE(SUM(output_tokens), 0), COALESCE(SUM(cost_usd), 0) FROM llm_calls "
                  "WHERE run_id = ? AND error_kind != 'budget'");
  query.bind(1, run_id);
  query.step();
  return {query.int64(0), query.int64(1), query.int64(2), query.int64(3), query.real(4)};
}

}  // namespace store
