// The run journal kept in the run's SQLite store (store/run_store.h): model calls in llm_calls;
// evaluations as kernels + evaluations keyed by content key, one transaction per batch; each
// kept round's history (plans, kernel origins, beam, memory items, per-task round row) in one
// transaction; resume checkpoints in their own table.
#pragma once

#include <cstdint>

#include "search/run_journal.h"
#include "store/run_store.h"

namespace search {

class StoreJournal : public RunJournal {
 public:
  StoreJournal(store::RunStore& store, int64_t run_id);

  std::optional<agents::CallRecord> find_call(const std::string& request_hash, int sample = 0) override;
  void record_call(const agents::CallRecord& record) override;
  std::optional<eval::Evaluation> find_evaluation(const std::string& task, const std::string& key) override;
  void record_evaluation(const std::string& key, const std::string& task, const std::string& kernel_text,
                         const eval::Evaluation& evaluation) override;
  void record_evaluations(const std::string& task, const std::vector<EvaluatedKernel>& batch) override;
  void record_round(const RoundHistory& history) override;
  void record_checkpoint(const std::string& state_json) override;
  std::string last_checkpoint() override;
  double seconds_after_last_checkpoint() override;

 private:
  void store_evaluation(const std::string& task, const EvaluatedKernel& kernel);
  // The id of `text`'s kernel row, adding it (unevaluated) when the loop never evaluated it.
  int64_t kernel_id(const TaskSpec& task, const std::string& text, int round);

  store::RunStore& store_;
  int64_t run_id_;
};

// The answers of a recorded run's store, for `optimize --replay` (agents::RecordedAnswers).
class StoreAnswers : public agents::RecordedAnswers {
 public:
  // `source` names the recorded run in messages (its directory).
  StoreAnswers(store::RunStore& store, int64_t run_id, std::string source);
  std::optional<agents::CallRecord> find_recorded(const std::string& request_hash, const std::string& replay_key,
                                                  int sample) override;
  std::string source() const override { return source_; }

 private:
  store::RunStore& store_;
  int64_t run_id_;
  std::string source_;
};

// A stored call as the session sees it, and back.
agents::CallRecord call_from_row(const store::LlmCallRecord& row);

}  // namespace search
